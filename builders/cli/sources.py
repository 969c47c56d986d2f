"""``oneruler fetch`` and ``oneruler list``."""

from __future__ import annotations

import click

from ..spec.selection import match_configs
from .handler import cli_errors
from .options import grid_option, source_options, tokenizer_option


@click.command("fetch")
@source_options
@click.option("--into", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Also copy the files into DIR in their upstream layout, with a SHA256SUMS: a mirror folder that "
                   "--mirror / ONERULER_MIRROR can name (the tests' ../shared/oneruler-upstream, CONTRIBUTING.md).")
@cli_errors
def fetch_command(mirror, cache_dir, into):
    """Download (or find in the cache) every pinned upstream file and verify its sha256."""
    from ..sources.fetch import default_cache_dir, fetch_sources, resolve_mirror, write_mirror
    from ..sources.manifest import load_manifest

    entries = load_manifest()
    report = fetch_sources(entries, mirror=mirror, cache_dir=cache_dir, progress=True)
    total = len(report.downloaded) + len(report.cached)
    click.echo(
        f"verified {total} files ({len(report.downloaded)} downloaded, {len(report.cached)} already cached) "
        f"from {resolve_mirror(mirror)} into {cache_dir or default_cache_dir()}"
    )
    if into is not None:
        click.echo(f"wrote a mirror of them to {write_mirror(report, entries, into)} (with SHA256SUMS)")


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
