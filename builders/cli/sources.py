"""``oneruler fetch`` and ``oneruler list``."""

from __future__ import annotations

import click

from ..spec.selection import match_configs
from .handler import cli_errors
from .options import grid_option, source_options, tokenizer_option


@click.command("fetch")
@source_options
@cli_errors
def fetch_command(mirror, cache_dir):
    """Download (or find in the cache) every pinned upstream file and verify its sha256."""
    from ..sources.fetch import default_cache_dir, fetch_sources
    from ..sources.mirror import resolve_mirror

    report = fetch_sources(mirror=mirror, cache_dir=cache_dir, progress=True)
    total = len(report.downloaded) + len(report.cached)
    click.echo(
        f"verified {total} files ({len(report.downloaded)} downloaded, {len(report.cached)} already cached) "
        f"from {resolve_mirror(mirror).describe()} into {cache_dir or default_cache_dir()}"
    )


@click.command("list")
@click.argument("patterns", nargs=-1)
@grid_option
@tokenizer_option
@cli_errors
def list_command(patterns, grid, tokenizers):
    """Print config names of a grid matching GLOB patterns (default: all; standard grid 952, depth 1,264, evidence 208)."""
    from ..generate.tokenizer import parse_tokenizer_option

    aliases = [parse_tokenizer_option(t)[0] for t in tokenizers]
    for spec in match_configs(patterns or ["*"], aliases, grid or "standard"):
        click.echo(spec.name)
