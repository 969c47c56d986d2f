"""The ``oneruler`` command line: a thin shell over the layers below; the only place that imports click.

Subcommands are imported lazily so that ``oneruler list`` does not pay for ``datasets``/matplotlib.
Errors go to stderr with exit code 2 (bad input) or 1 (a check failed); results go to stdout.
"""

from __future__ import annotations

import importlib
import sys

import click

from .handler import EXIT_INTERRUPTED, fail
from .package import version_option

# name -> "module:attribute" of a click.Command
SUBCOMMANDS: dict[str, str] = {
    "fetch": "builders.cli.sources:fetch_command",
    "list": "builders.cli.sources:list_command",
    "show": "builders.cli.show:show_command",
    "build": "builders.cli.build:build_command",
    "verify": "builders.cli.build:verify_command",
    "push": "builders.cli.hub:push_command",
    "push-metric": "builders.cli.hub:push_metric_command",
    "score": "builders.cli.score:score_command",
    "run": "builders.cli.run:run_command",
    "merge": "builders.cli.runfiles:merge_command",
    "ingest": "builders.cli.runfiles:ingest_command",
    "compare": "builders.cli.compare:compare_command",
    "publish": "builders.cli.publish:publish_command",
    "leaderboard": "builders.cli.publish:leaderboard_command",
    "lm-eval-path": "builders.cli.lmeval:lm_eval_path_command",
    "metric-path": "builders.cli.package:metric_path_command",
    "check-translation": "builders.cli.translations:check_translation_command",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = SUBCOMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        return getattr(importlib.import_module(module_name), attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@version_option
def cli() -> None:
    """ONERULER: build, verify, publish, run models on and score the multilingual long-context benchmark."""


def main(argv: list[str] | None = None) -> None:
    """Console entry point: usage errors too are one ``error:`` line on stderr (exit 2)."""
    try:
        code = cli.main(args=argv, prog_name="oneruler", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:  # bare `oneruler`: the help, as click shows it
        exc.show()
        sys.exit(exc.exit_code)
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "oneruler"
        fail(f"{where}: {exc.format_message().rstrip('.')} (see `{where} --help`)", exc.exit_code)
    except click.ClickException as exc:
        fail(exc.format_message(), exc.exit_code)
    except click.Abort:  # Ctrl-C outside a command's own handler (e.g. while importing it)
        fail("interrupted", EXIT_INTERRUPTED)
    sys.exit(code if isinstance(code, int) else 0)
