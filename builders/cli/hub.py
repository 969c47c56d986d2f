"""``oneruler push`` and ``oneruler push-metric`` (the token never appears in any output)."""

from __future__ import annotations

import click

from ..base.redact import public_url
from .handler import cli_errors


@click.command("push")
@click.argument("out_dir", metavar="DIR", type=click.Path(file_okay=False))
@click.option("--repo-id", required=True, help="Target dataset repository, ORG/NAME.")
@click.option("--revision", default=None, help="Branch to commit to (created if missing; default main).")
@click.option("--private", is_flag=True, help="Create the repository as private (if it does not exist yet).")
@cli_errors
def push_command(out_dir, repo_id, revision, private):
    """Upload an export folder to the Hugging Face Hub as a dataset, in one commit."""
    from ..export.hub import push_dataset

    url = push_dataset(out_dir, repo_id, revision=revision, private=private)
    click.echo(f"pushed {out_dir} to {repo_id}: {public_url(url)}")


@click.command("push-metric")
@click.option("--repo-id", required=True, help="Target Space, ORG/NAME (then evaluate.load('ORG/NAME')).")
@click.option("--private", is_flag=True, help="Create the Space as private (if it does not exist yet).")
@cli_errors
def push_metric_command(repo_id, private):
    """Publish the ONERULER metric (metrics/oneruler/) as a Hugging Face Space."""
    from ..export.hub import push_metric

    url = push_metric(repo_id, private=private)
    click.echo(f"pushed metric to Space {repo_id}: {public_url(url)}")
