"""Names and paths inside an export folder (``DIR``)::

    DIR/README.md                                  YAML front matter (configs, features) + dataset card
    DIR/manifest.json                              sha256 of every shard and source, inputs of every config
    DIR/eval.yaml                                  the Hub benchmark's leaderboards (only when the export serves one)
    DIR/data/<config>/test-<sha256[:16]>.parquet   one zstd Parquet shard per config (split ``test``)
    DIR/.oneruler-build/                           a build in progress: staged shards and their journal

Shards are content-addressed: a rebuild whose bytes differ gets a new file name, so the ``datasets``
cache (keyed on data file paths) can never serve stale rows.
"""

from __future__ import annotations

from pathlib import Path

from ..spec.defaults import SPLIT

MANIFEST_NAME = "manifest.json"
README_NAME = "README.md"
EVAL_YAML_NAME = "eval.yaml"
DATA_DIR = "data"
WORK_DIR = ".oneruler-build"
JOURNAL_NAME = "journal.jsonl"
MANIFEST_FORMAT = "oneruler-export/1"


def shard_relpath(config: str, sha256: str) -> str:
    """``data/<config>/test-<first 16 hex of sha256>.parquet`` (POSIX separators)."""
    return f"{DATA_DIR}/{config}/{SPLIT}-{sha256[:16]}.parquet"


def work_dir(out_dir: Path) -> Path:
    """The hidden folder where a build stages its shards until it commits them."""
    return Path(out_dir) / WORK_DIR
