"""What the installed package is and holds: ``oneruler --version`` and ``oneruler metric-path``.

The version has one source, ``pyproject.toml``, read back from the installed distribution's metadata
(``importlib.metadata``); the line also says where the running code was imported from, so a
checkout shadowing an installed copy shows. ``metric-path`` is to ``evaluate.load`` what
``lm-eval-path`` is to lm-eval: the folder of the installed metric module.
"""

from __future__ import annotations

import platform
from importlib import metadata

import click

from .handler import cli_errors, fail

DISTRIBUTION = "oneruler"


def version_line() -> str:
    """``oneruler 0.2.0 (from /…/builders, Python 3.11.7)``; an error line when no distribution is installed."""
    from ..base.resources import package_folder

    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        fail(f"{DISTRIBUTION} is not installed, so it has no version (the code runs from {package_folder()}): "
             "install it (pip install oneruler, or pip install -e . in a clone)")
    return f"{DISTRIBUTION} {version} (from {package_folder()}, Python {platform.python_version()})"


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    click.echo(version_line())
    ctx.exit()


version_option = click.option(
    "--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
    help="Print the installed version (and where the code runs from) and exit.",
)


@click.command("metric-path")
@cli_errors
def metric_path_command() -> None:
    """Print the folder of the ONERULER `evaluate` metric, for evaluate.load("$(oneruler metric-path)")."""
    from ..export.metric import METRIC_DIR, metric_files

    metric_files(METRIC_DIR)  # present and current (its scoring copy is the installed scoring core)
    click.echo(str(METRIC_DIR))
