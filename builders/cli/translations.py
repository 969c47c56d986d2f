"""``oneruler check-translation``: a contributor checks a translation of RULER's instructions before submitting it.

``--english`` prints RULER's English pieces in the file's layout (what to translate, exactly as the checker reads it).

Exit codes: 0 every file passes (or ``--english`` printed); 1 a file has problems (one ``error:`` line each, naming the file, the key and what
would be valid); 2 bad input that is not a translation's fault (no such file, RULER's templates not fetchable).
"""

from __future__ import annotations

import click
import yaml

from .handler import cli_errors
from .options import source_options


class _BlockDumper(yaml.SafeDumper):
    """Multi-line pieces as ``|-`` blocks, the way docs/translating.md asks a translator to write them."""


def _string(dumper: yaml.SafeDumper, text: str) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


_BlockDumper.add_representer(str, _string)


def as_yaml(doc: dict) -> str:
    """``doc`` as YAML, multi-line strings as literal blocks (read back equal by ``yaml.safe_load``)."""
    return yaml.dump(doc, Dumper=_BlockDumper, allow_unicode=True, sort_keys=False, width=1000)


@click.command("check-translation")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, dir_okay=False), metavar="FILE...")
@click.option("--english", is_flag=True, help="Print RULER's English pieces, sections as a translation file holds "
                                              "them, and exit.")
@source_options
@cli_errors
def check_translation_command(paths, english, mirror, cache_dir):
    """Check translation files of RULER's instructions ({lang}.yaml, docs/translating.md) against RULER's English
    templates: every key there, no unknown key, every placeholder kept and none added."""
    from ..sources.ruler.instructions import check_translation, english_pieces, nested
    from ..sources.ruler.store import RulerSources

    if not paths and not english:
        raise click.UsageError("give FILE... to check, or --english to print what to translate")
    tasks = RulerSources(mirror=mirror, cache_dir=cache_dir).tasks
    if english:
        doc = {section: nested(pieces) for section, pieces in english_pieces(tasks).items()}
        click.echo(as_yaml(doc), nl=False)
        return
    failed = 0
    for path in paths:
        problems = check_translation(path, tasks)
        for problem in problems:
            click.echo(f"error: {problem}", err=True)
        if problems:
            failed += 1
        else:
            click.echo(f"{path}: ok")
    if failed:
        raise SystemExit(1)
