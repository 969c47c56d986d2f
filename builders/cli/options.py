"""Options shared by several commands, defined once (names, environment variables, defaults)."""

from __future__ import annotations

import click

from ..spec.defaults import DEFAULT_SAMPLES, DEFAULT_SEED, EFFECTIVE_LENGTH_THRESHOLD
from ..spec.grids import DEFAULT_GRID, GRIDS

mirror_option = click.option(
    "--mirror", envvar="ONERULER_MIRROR", default=None, metavar="PATH_OR_URL",
    help="Folders with the upstream layouts (several separated by ':', ';' on Windows), or one file:// or "
         "http(s):// base (env ONERULER_MIRROR).",
)
cache_option = click.option(
    "--cache-dir", envvar="ONERULER_CACHE", default=None, metavar="DIR",
    help="Content-addressed source cache (env ONERULER_CACHE; default: the user cache dir).",
)
tokenizer_option = click.option(
    "--tokenizer", "tokenizers", multiple=True, metavar="ALIAS=SPEC",
    help="Register a tokenizer for token-control configs: tiktoken encoding, HF hub id or local folder.",
)
samples_option = click.option("--samples", default=DEFAULT_SAMPLES, show_default=True, type=int,
                              help="Examples per config.")
seed_option = click.option("--seed", default=DEFAULT_SEED, show_default=True, type=int,
                           help="Base seed of every random draw.")
num_proc_option = click.option("--num-proc", default=1, show_default=True, type=int,
                               help="Configs built in parallel processes.")
wait_option = click.option(
    "--wait", default=0.0, show_default=True, type=float, metavar="SECONDS",
    help="If another build is writing into the folder, wait up to SECONDS for it (0: fail at once).",
)
quiet_option = click.option("--quiet", is_flag=True, help="No progress output.")
full_count_option = click.option(
    "--full-count", is_flag=True,
    help="Tokenise every candidate prompt whole instead of counting it by construction (same rows, slower).")
threshold_option = click.option(
    "--threshold", default=EFFECTIVE_LENGTH_THRESHOLD, show_default=True, type=click.FloatRange(0, 100),
    metavar="PERCENT",
    help=f"Accuracy the absolute effective context length must keep (RULER: {EFFECTIVE_LENGTH_THRESHOLD}, Llama-2-7B "
         f"at 4K).")
ruler_published_option = click.option(
    "--ruler-published", multiple=True, metavar="MODEL",
    help="Set RULER's published rows (its README's table, as data: another harness and tokenizer, no interval) beside "
         "the reports: 'all', or part of a model's name as the table gives it ('GPT-4', 'Llama3.1 (70B)'); repeatable.")
depth_bins_option = click.option(
    "--depth-bins", default=None, type=click.IntRange(1, 100), metavar="N",
    help="Bins of needle depth (0-100 %%) in depth.csv and depth.png: N equal ones [default: 10], or for a report "
         "with fixed-depth sweep configs N centred on 0, 100/(N-1), ..., 100 %% [default: one per step of the "
         "sweep's depths: 11 for 0, 10, ..., 100].")
depth_unit_option = click.option(
    "--depth-unit", type=click.Choice(["tokens", "sentences"]), default=None,
    help="Unit of needle depth in depth.csv and depth.png: tokens (%% of the haystack's tokens, needles[].token_depth) "
         "or sentences (needles[].actual_depth) [default: tokens, sentences for exports that predate token depths].")
grid_option = click.option(
    "--grid", type=click.Choice(list(GRIDS)), default=None,
    help=f"The grid globs select from (default: {DEFAULT_GRID}; "
         + ", ".join(f"{g.name}: {g.summary}" for g in GRIDS.values() if g.name != DEFAULT_GRID)
         + "; docs/generation.md). With no GLOB: the whole grid.")
hub_cache_option = click.option(
    "--hub-cache", "--datasets-cache", "hub_cache", default=None, metavar="DIR",
    help="Where files of a Hub dataset are downloaded [default: the Hugging Face cache] (--datasets-cache: old name).")


def source_options(func):
    """Add --mirror and --cache-dir."""
    return mirror_option(cache_option(func))


def echo_err(message: str) -> None:
    """A log line on stderr."""
    click.echo(message, err=True)
