"""``oneruler lm-eval-path``: the folder of the ONERULER lm-evaluation-harness tasks.

``lm_eval ... --tasks oneruler_pl --include_path "$(oneruler lm-eval-path)"`` (docs/lm-eval.md).
"""

from __future__ import annotations

import importlib.util

import click

from .options import echo_err


@click.command("lm-eval-path")
def lm_eval_path_command() -> None:
    """Print the folder to pass to `lm_eval --include_path` (tasks oneruler_<config> and groups)."""
    from ..lmeval import tasks_path

    click.echo(str(tasks_path()))
    if importlib.util.find_spec("lm_eval") is None:
        echo_err("note: lm-eval is not installed; install it with: pip install 'oneruler[lm-eval]'")
