"""The staging area of a build in progress: shards written but not yet committed, and their journal.

A build writes each finished shard under ``DIR/.oneruler-build/data/…`` and appends its manifest
entry to ``journal.jsonl`` (one flushed line per config). At the end of the build — or when it is
interrupted — the staged shards move into ``DIR/data/``, and ``manifest.json`` and ``README.md``
are written once. A build killed outright leaves the journal behind; the next build recovers every
staged shard whose checksum and inputs still match, so no finished config is built twice.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from .layout import JOURNAL_NAME, work_dir
from ..base.errors import OneRulerError
from .manifest import shard_problem
from .records import ConfigEntry


class Journal:
    """Append-only record of the configs a build has staged in ``DIR/.oneruler-build``."""

    def __init__(self, out_dir: Path):
        self.out_dir = Path(out_dir)
        self.root = work_dir(self.out_dir)
        self.path = self.root / JOURNAL_NAME
        self.committed = False  # set by a commit: the folder now holds this build's work

    def read(self) -> dict[str, ConfigEntry]:
        """Config → staged entry, for every complete line whose staged shard is intact."""
        entries: dict[str, ConfigEntry] = {}
        if not self.path.is_file():
            return entries
        with self.path.open("rb") as fh:
            for raw in fh:
                try:
                    line = json.loads(raw)
                    name = line["config"]
                    entries[name] = ConfigEntry.from_json(line["entry"], f"configs.{name}")
                except (ValueError, KeyError, TypeError, OneRulerError):
                    continue  # a line torn by a kill
        # A shard is intact in the staging area, or already moved by a commit that was cut short.
        return {name: e for name, e in entries.items()
                if shard_problem(self.root, e) is None or shard_problem(self.out_dir, e) is None}

    def append(self, config: str, entry: ConfigEntry) -> None:
        """Record one staged config (flushed and synced before returning)."""
        self.root.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"config": config, "entry": entry.to_json()}, sort_keys=True, ensure_ascii=False) + "\n"
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def move_into_place(self, entry: ConfigEntry) -> None:
        """Move one staged shard to its final path in the export folder."""
        staged, target = self.root / entry.file, self.out_dir / entry.file
        if staged.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged, target)

    def discard(self) -> None:
        """Remove the staging area: after a commit (its shards moved into place), or after a failure that committed
        nothing (its shards are of no use); what a killed build leaves stays for the next one to recover."""
        shutil.rmtree(self.root, ignore_errors=True)
