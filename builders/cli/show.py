"""``oneruler show CONFIG``: one example for a human (context elided, needles highlighted), regenerated from the
sources or read from an export (``--dataset``)."""

from __future__ import annotations

import click

from ..base.errors import OneRulerError
from ..base.text import plural
from ..spec.configs import parse_config_name
from ..spec.tasks import family_of
from .handler import cli_errors
from .options import hub_cache_option, seed_option, source_options, tokenizer_option


def _highlight(text: str) -> str:
    return click.style(text, fg="yellow", bold=True)


def _where(needle: dict) -> str:
    """``depth 50%, landed at 48.6% of the sentences, 52.1% of the tokens`` (the parts the row records)."""
    where = f"depth {needle['depth']}%"
    landed, tokens = needle.get("actual_depth"), needle.get("token_depth")
    if landed is not None:
        where += f", landed at {landed:.1f}%" + ("" if tokens is None else " of the sentences")
    if tokens is not None:
        where += f", {tokens:.1f}% of the tokens"
    return where


def _needle_windows(context: str, needles: list[dict], around: int) -> list[tuple[int, int, int, dict]]:
    """(window start, value start, window end, needle) of each needle found in the context, in context order: the
    window opens at its sentence (at most ``around`` characters before the value) and closes just after the value."""
    found = []
    for needle in needles:
        at = context.find(needle["value"])
        if at < 0:
            continue
        start = max(context.rfind(".", 0, max(0, at - len(needle["key"]) - 5)) + 1, at - around, 0)
        found.append((start, at, min(len(context), at + len(needle["value"]) + 2), needle))
    return sorted(found, key=lambda w: w[1])


def _shown_context(context: str, needles: list[dict], edge: int, around: int) -> list[str]:
    """The context's first and last ``edge`` characters and each needle's window (value highlighted, ``◀`` marker
    after it), the characters between them elided; a needle at 0 % or 100 % is marked inside the edge it falls in."""
    windows = _needle_windows(context, needles, around)
    spans = sorted([(0, min(edge, len(context))), (max(0, len(context) - edge), len(context))]
                   + [(s, e) for s, _, e, _ in windows])
    merged: list[list[int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    pieces, cursor = [], 0
    for s, e in merged:
        if s > cursor:
            pieces.append(f"\n  [... {s - cursor:,} characters ...]\n")
        text, at = "", s
        for _, value_at, end, needle in windows:
            if s <= value_at < e:
                marker = click.style(f"  ◀ {_where(needle)}", fg="cyan") + ("\n" if end < e else "")
                text += context[at:value_at] + _highlight(context[value_at:end]) + marker
                at = end
        pieces.append(text + context[at:e])
        cursor = e
    return pieces


def format_example(row: dict, edge: int = 400, around: int = 120) -> str:
    """A human view of one row: the prompt with the context elided, needles highlighted."""
    family = family_of(row["task"])
    text = row["input"]
    start, end = row["context_span"]
    context = text[start:end]
    shown = _shown_context(context, row["needles"], edge, around)
    shown[0], shown[-1] = text[:start] + shown[0], shown[-1] + text[end:]
    out = [
        click.style(f"{row['id']}", bold=True)
        + f"  task={row['task']}  context={row['context_language']}  instruction={row['instruction_language']}",
        f"tokens: {row['num_tokens']:,} + reserve {row['reserve']} = {row['num_tokens'] + row['reserve']:,} "
        f"<= length {row['length']:,}  (slack {row['budget'] - row['num_tokens']} tokens; measured with {row['tokenizer']})",
        f"filling units: {row['num_units']:,} {family.unit}",
        "",
        *shown,
        "",
        click.style("gold answers: ", bold=True) + ", ".join(_highlight(a) for a in row["answers"]),
    ]
    if row["queries"]:
        out.append(click.style("queries: ", bold=True) + ", ".join(row["queries"]))
    out += family.describe(row)
    return "\n".join(out)


def exported_row(dataset: str, config: str, index: int, hub_cache: str | None = None) -> dict:
    """Row ``config/index`` of an export folder or Hub dataset (at main), every column, read through the dataset layer."""
    from ..dataset.reader import read_rows
    from ..dataset.source import DatasetSource

    source = DatasetSource.open(dataset, hub_cache=hub_cache)
    mapping = source.configs()
    if config not in mapping:
        sample = ", ".join(sorted(mapping)[:3])
        raise OneRulerError(f"dataset {dataset!r} has no config {config!r}; it has {plural(len(mapping), 'config')}, "
                            f"e.g. {sample}")
    rows = {row["id"]: row for row in read_rows(source, [config], mapping, ("id",), optional=None)}
    row = rows.get(f"{config}/{index}")
    if row is None:
        has = f"it has {len(rows):,}: --index 0 to {len(rows) - 1}" if rows else "it has none"
        raise OneRulerError(f"config {config!r} of dataset {dataset!r} has no example {index} ({has})")
    return row


@click.command("show")
@click.argument("config")
@click.option("--index", default=0, show_default=True, type=click.IntRange(min=0), help="Example index.")
@click.option("--dataset", default=None, metavar="DIR_OR_REPO",
              help="Read the row from this export folder or Hub dataset instead of regenerating it (no sources or "
                   "tokenizer files needed; --seed, --tokenizer, --mirror and --cache-dir are then unused).")
@hub_cache_option
@seed_option
@tokenizer_option
@source_options
@cli_errors
def show_command(config, index, dataset, hub_cache, seed, tokenizers, mirror, cache_dir):
    """Print one example of CONFIG for a human: elided prompt, needles, answers, token count."""
    if dataset is not None:
        click.echo(format_example(exported_row(dataset, config, index, hub_cache)))
        return
    from ..generate.rows import RowGenerator
    from ..generate.tokenizer import TokenizerRegistry
    from ..sources.store import load_sources

    registry = TokenizerRegistry(tokenizers)
    spec = parse_config_name(config, registry.aliases)
    generator = RowGenerator(load_sources(mirror=mirror, cache_dir=cache_dir), registry)
    row = generator.example(spec, index, seed=seed)
    click.echo(format_example(row))
