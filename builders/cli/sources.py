"""``oneruler fetch`` and ``oneruler list``."""

from __future__ import annotations

import click

from ..spec.grids import DEFAULT_GRID
from ..spec.selection import match_configs
from .handler import cli_errors
from .options import echo_err, grid_option, source_options, tokenizer_option


@click.command("fetch")
@source_options
@click.option("--sources", "group", type=click.Choice(["oneruler", "ruler", "all"]), default="oneruler",
              show_default=True, help="Which pinned files: ONERULER's (books, word lists, translations), RULER's "
                                      "inputs (templates, essays, XQuAD, SQuAD, HotpotQA, word list, Punkt), or all.")
@click.option("--into", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Also copy the files into DIR, each at its upstream path, with a SHA256SUMS: a mirror folder that "
                   "--mirror / ONERULER_MIRROR can name (the tests' mirror, CONTRIBUTING.md).")
@cli_errors
def fetch_command(mirror, cache_dir, group, into):
    """Download (or find in the cache) every pinned upstream file and verify its sha256."""
    from ..base.errors import SourceError
    from ..sources.fetch import default_cache_dir, fetch_sources, write_mirror
    from ..sources.mirror import resolve_mirror
    from ..sources.ruler.pins import source_group

    entries = source_group(group)
    try:
        report = fetch_sources(entries, mirror=mirror, cache_dir=cache_dir, progress=True)
    except SourceError:
        if into is not None:  # the files that did arrive still make a mirror; the error says which did not
            echo_err(f"wrote {len(write_mirror(entries, cache_dir, into))} of {len(entries)} files to {into}")
        raise
    total = len(report.downloaded) + len(report.cached)
    click.echo(
        f"verified {total} files ({len(report.downloaded)} downloaded, {len(report.cached)} already cached) "
        f"from {resolve_mirror(mirror).describe()} into {cache_dir or default_cache_dir()}"
    )
    if group == "oneruler":
        echo_err("(ONERULER's sources; RULER's tasks read others: oneruler fetch --sources ruler, or --sources all)")
    if into is not None:
        click.echo(f"wrote a mirror of them to {into} ({len(write_mirror(entries, cache_dir, into))} files, with "
                   f"SHA256SUMS)")


@click.command("list")
@click.argument("patterns", nargs=-1)
@grid_option
@tokenizer_option
@cli_errors
def list_command(patterns, grid, tokenizers):
    """Print config names of a grid matching GLOB patterns (default: all; standard grid 952, depth 1,264, evidence 208)."""
    from ..generate.tokenizer import parse_tokenizer_option

    aliases = [parse_tokenizer_option(t)[0] for t in tokenizers]
    for spec in match_configs(patterns or ["*"], aliases, grid or DEFAULT_GRID):
        click.echo(spec.name)
