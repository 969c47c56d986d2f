"""Writing an export's manifest and README by hand, as someone tampering with a folder would (the
build writes both only at its commit, together with the shards)."""

from __future__ import annotations

from pathlib import Path

from builders.export.card import render_readme
from builders.export.layout import MANIFEST_NAME, README_NAME
from builders.export.manifest import dump_manifest
from builders.export.records import Manifest


def write_manifest(out_dir: Path, manifest: Manifest) -> None:
    """Overwrite ``manifest.json`` with ``manifest``."""
    (Path(out_dir) / MANIFEST_NAME).write_bytes(dump_manifest(manifest))


def write_readme(out_dir: Path, manifest: Manifest) -> None:
    """Overwrite ``README.md`` with the card of ``manifest``."""
    (Path(out_dir) / README_NAME).write_text(render_readme(manifest), encoding="utf-8")
