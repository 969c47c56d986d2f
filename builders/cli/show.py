"""``oneruler show CONFIG``: one example for a human (context elided, needles highlighted)."""

from __future__ import annotations

import click

from ..spec.configs import parse_config_name
from .handler import cli_errors
from .options import seed_option, source_options, tokenizer_option


def _highlight(text: str) -> str:
    return click.style(text, fg="yellow", bold=True)


def format_example(row: dict, edge: int = 400, around: int = 120) -> str:
    """A human view of one row: the prompt with the context elided, needles highlighted."""
    text = row["input"]
    start, end = row["context_span"]
    context = text[start:end]
    out = [
        click.style(f"{row['id']}", bold=True)
        + f"  task={row['task']}  context={row['context_language']}  instruction={row['instruction_language']}",
        f"tokens: {row['num_tokens']:,} + reserve {row['reserve']} = {row['num_tokens'] + row['reserve']:,} "
        f"<= length {row['length']:,}  (slack {row['budget'] - row['num_tokens']} tokens; measured with {row['tokenizer']})",
        f"filling units: {row['num_units']:,} {'words' if row['task'].startswith('cwe') else 'sentences'}",
        "",
        text[:start] + context[:edge],
    ]
    cursor = edge
    for needle in row["needles"]:
        value_at = context.find(needle["value"], cursor - around if cursor > around else 0)
        if value_at < 0:
            continue
        s = max(cursor, context.rfind(".", 0, value_at - len(needle["key"]) - 5) + 1, value_at - around)
        e = min(len(context), value_at + len(needle["value"]) + 2)
        out.append(f"\n  [... {s - cursor:,} characters ...]\n")
        landed = needle.get("actual_depth")
        where = f"depth {needle['depth']}%" + ("" if landed is None else f", landed at {landed:.1f}%")
        out.append(context[s:value_at] + _highlight(context[value_at:e]) + click.style(f"  ◀ {where}", fg="cyan"))
        cursor = e
    out.append(f"\n  [... {max(0, len(context) - edge - cursor):,} characters ...]\n")
    out.append(context[max(cursor, len(context) - edge):] + text[end:])
    out.append("")
    out.append(click.style("gold answers: ", bold=True) + ", ".join(_highlight(a) for a in row["answers"]))
    if row["queries"]:
        out.append(click.style("queries: ", bold=True) + ", ".join(row["queries"]))
    if row["task"].startswith("cwe"):
        out.append(
            f"words: {row['num_units']:,} of a pool of {row['cwe_pool_size']:,}; common ×{row['cwe_freq_common']}, "
            f"others ×{row['cwe_freq_uncommon']}" + ("; POOL EXHAUSTED before the budget" if row["cwe_pool_exhausted"] else "")
        )
    return "\n".join(out)


@click.command("show")
@click.argument("config")
@click.option("--index", default=0, show_default=True, type=click.IntRange(min=0), help="Example index.")
@seed_option
@tokenizer_option
@source_options
@cli_errors
def show_command(config, index, seed, tokenizers, mirror, cache_dir):
    """Print one example of CONFIG for a human: elided prompt, needles, answers, token count."""
    from ..generate.rows import RowGenerator
    from ..generate.tokenizer import TokenizerRegistry
    from ..sources.store import load_sources

    registry = TokenizerRegistry(tokenizers)
    spec = parse_config_name(config, registry.aliases)
    generator = RowGenerator(load_sources(mirror=mirror, cache_dir=cache_dir), registry)
    row = generator.example(spec, index, seed=seed)
    click.echo(format_example(row))
