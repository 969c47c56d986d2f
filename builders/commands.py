"""CLI commands ``fetch``, ``list`` and ``show`` (thin shells over the core modules)."""

from __future__ import annotations

import click

from .configs import match_configs, parse_config_name
from .errors import cli_errors

# Shared options for every command that needs the pinned sources or tokenizers.
mirror_option = click.option(
    "--mirror", envvar="ONERULER_MIRROR", default=None, metavar="PATH_OR_URL",
    help="Folder, file:// or http(s):// base with the upstream layout (env ONERULER_MIRROR).",
)
cache_option = click.option(
    "--cache-dir", envvar="ONERULER_CACHE", default=None, metavar="DIR",
    help="Content-addressed source cache (env ONERULER_CACHE; default: the user cache dir).",
)
tokenizer_option = click.option(
    "--tokenizer", "tokenizers", multiple=True, metavar="ALIAS=SPEC",
    help="Register a tokenizer for token-control configs: tiktoken encoding, HF hub id or local folder.",
)


def source_options(func):
    """Add --mirror and --cache-dir."""
    return mirror_option(cache_option(func))


@click.command("fetch")
@source_options
@cli_errors
def fetch_command(mirror, cache_dir):
    """Download (or find in the cache) every pinned upstream file and verify its sha256."""
    from .fetch import default_cache_dir, fetch_sources, resolve_mirror

    report = fetch_sources(mirror=mirror, cache_dir=cache_dir, progress=True)
    total = len(report.downloaded) + len(report.cached)
    click.echo(
        f"verified {total} files ({len(report.downloaded)} downloaded, {len(report.cached)} already cached) "
        f"from {resolve_mirror(mirror)} into {cache_dir or default_cache_dir()}"
    )


@click.command("list")
@click.argument("patterns", nargs=-1)
@tokenizer_option
@cli_errors
def list_command(patterns, tokenizers):
    """Print config names of the standard grid matching GLOB patterns (default: all 952)."""
    from .tokenizer import parse_tokenizer_option

    aliases = [parse_tokenizer_option(t)[0] for t in tokenizers]
    for spec in match_configs(patterns or ["*"], aliases):
        click.echo(spec.name)


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
        out.append(context[s:value_at] + _highlight(context[value_at:e]) + click.style(f"  ◀ depth {needle['depth']}%", fg="cyan"))
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
@click.option("--seed", default=42, show_default=True, type=int)
@tokenizer_option
@source_options
@cli_errors
def show_command(config, index, seed, tokenizers, mirror, cache_dir):
    """Print one example of CONFIG for a human: elided prompt, needles, answers, token count."""
    from .generate import generate_example
    from .sources import load_sources
    from .tokenizer import TokenizerRegistry

    registry = TokenizerRegistry(tokenizers)
    spec = parse_config_name(config, registry.aliases)
    sources = load_sources(mirror=mirror, cache_dir=cache_dir)
    row = generate_example(spec, index, sources=sources, tokenizer=registry.get(spec.alias), seed=seed)
    click.echo(format_example(row))


