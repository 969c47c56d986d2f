"""``oneruler build`` and ``oneruler verify``."""

from __future__ import annotations

import click

from ..base.text import plural
from .handler import cli_errors, flag_of
from .options import (
    echo_err,
    full_count_option,
    grid_option,
    num_proc_option,
    quiet_option,
    samples_option,
    seed_option,
    source_options,
    tokenizer_option,
    wait_option,
)


@click.command("build")
@click.argument("patterns", nargs=-1, metavar="[GLOB ...]")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Export folder (created if needed).")
@grid_option
@samples_option
@seed_option
@num_proc_option
@tokenizer_option
@source_options
@click.option("--force", is_flag=True,
              help="Rebuild configs even if their shards match the manifest; with another --seed/--samples than "
                   "the export's, rebuild all its configs with the new values.")
@wait_option
@full_count_option
@quiet_option
@cli_errors
def build_command(patterns, out_dir, grid, samples, seed, num_proc, tokenizers, mirror, cache_dir, force, wait, full_count,
                  quiet):
    """Build configs (names, or globs over the standard grid or the --grid sweep) into the export folder --out."""
    from ..base.errors import OneRulerError
    from ..export.build import build_dataset
    from ..export.request import BuildRequest
    from ..generate.tokenizer import parse_tokenizer_options
    from ..spec.grids import DEFAULT_GRID, GRIDS

    if not patterns and grid is None:
        raise OneRulerError("no config to build: give at least one config name or glob, e.g. 'pl_*_8k', "
                            f"or a grid with --grid {'|'.join(GRIDS)}")
    request = BuildRequest(patterns or ("*",), out_dir, grid=grid or DEFAULT_GRID, samples=samples, seed=seed,
                           num_proc=num_proc, tokenizers=parse_tokenizer_options(tokenizers), mirror=mirror,
                           cache_dir=cache_dir, force=force, wait=wait, full_count=full_count, progress=not quiet)
    summary = build_dataset(request, log=echo_err, name_setting=flag_of)
    click.echo(
        f"built {len(summary.built)}, skipped {len(summary.skipped)} (up to date); "
        f"{summary.out_dir} holds {plural(summary.total_configs, 'config')}, {summary.total_bytes / 1e6:.1f} MB of Parquet "
        f"({summary.seconds:.1f} s)"
    )


@click.command("verify")
@click.argument("out_dir", metavar="DIR", type=click.Path(exists=True, file_okay=False))
@num_proc_option
@source_options
@click.option("--tokenizer", "tokenizers", multiple=True, metavar="ALIAS=SPEC",
              help="Where to find a recorded tokenizer if it moved (its fingerprint must still match).")
@click.option("--checksums-only", is_flag=True, help="Only check shards and README against the manifest.")
@quiet_option
@cli_errors
def verify_command(out_dir, num_proc, mirror, cache_dir, tokenizers, checksums_only, quiet):
    """Check every shard of DIR against its manifest, then rebuild every config and compare."""
    from ..base.errors import CheckFailed
    from ..export.verify import verify_export
    from ..generate.tokenizer import parse_tokenizer_options

    report = verify_export(out_dir, mirror=mirror, cache_dir=cache_dir, num_proc=num_proc,
                           tokenizer_overrides=parse_tokenizer_options(tokenizers),
                           checksums_only=checksums_only, progress=not quiet, log=click.echo, name_setting=flag_of)
    n_ok = sum(check.identical for check in report.results.values())
    if not report.ok:
        found = []
        if n_ok < len(report.results):
            found.append(f"{len(report.results) - n_ok} of {len(report.results)} config(s) differ or could not be rebuilt")
        if report.problems:
            found.append(f"{len(report.problems)} {'other ' if found else ''}problem(s): " + "; ".join(report.problems))
        raise CheckFailed(f"{out_dir}: " + "; ".join(found))
    what = "checksums match" if checksums_only else "rebuilt identical"
    click.echo(f"verified {out_dir}: {n_ok}/{len(report.results)} configs {what}")
