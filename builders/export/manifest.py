"""``manifest.json`` of an export: what every shard was built from, in canonical JSON.

Canonical (sorted keys, configs in name order, no timestamps), so two builds of the same configs
from the same inputs are byte-identical whatever the build order or the number of worker processes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

from ..base.errors import OneRulerError
from ..base.files import TMP_PREFIX, sha256_file
from ..base.text import plural
from .layout import DATA_DIR, MANIFEST_FORMAT, MANIFEST_NAME
from .records import ConfigEntry, Manifest


def read_manifest(out_dir: str | os.PathLike) -> Manifest | None:
    """The manifest of an export folder, or None if it has none (errors name the file)."""
    path = Path(out_dir) / MANIFEST_NAME
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise OneRulerError(f"{path}: not valid JSON ({exc}); delete the folder and rebuild") from None
    if not isinstance(doc, dict) or doc.get("format") != MANIFEST_FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else None
        raise OneRulerError(f"{path}: not a oneruler export manifest (format {found!r}, expected {MANIFEST_FORMAT!r})")
    try:
        return Manifest.from_json(doc)
    except OneRulerError as exc:
        raise OneRulerError(f"{path}: {str(exc).removeprefix('manifest.json: ')}") from None


def dump_manifest(manifest: Manifest) -> bytes:
    """Canonical JSON bytes (sorted keys, configs in name order): no timestamps, reproducible."""
    return (json.dumps(manifest.to_json(), indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def shard_problem(out_dir: Path, entry: ConfigEntry) -> str | None:
    """None if the entry's shard exists with the recorded size and sha256, else what is wrong."""
    path = Path(out_dir) / entry.file
    if not path.is_file():
        return f"missing shard {entry.file}"
    if path.stat().st_size != entry.size:
        return f"{entry.file}: size {path.stat().st_size} != recorded {entry.size}"
    digest = sha256_file(path)
    if digest != entry.sha256:
        return f"{entry.file}: sha256 {digest[:16]}… != recorded {entry.sha256[:16]}…"
    return None


def check_shards(out_dir: str | os.PathLike, manifest: Manifest) -> dict[str, str | None]:
    """Config → None if its shard exists with the recorded size and sha256, else what is wrong."""
    return {name: shard_problem(Path(out_dir), entry) for name, entry in sorted(manifest.configs.items())}


def export_values(configs: dict[str, ConfigEntry]) -> dict[tuple[int, int], list[str]]:
    """(seed, samples) → the configs built with them."""
    out: dict[tuple[int, int], list[str]] = {}
    for name, entry in sorted(configs.items()):
        out.setdefault((entry.seed, entry.samples), []).append(name)
    return out


def describe_values(values: dict[tuple[int, int], list[str]], name_setting: Callable[[str], str] = str) -> str:
    """``seed 42 samples 50 (3 configs)``, joined with ``;`` when there are several; each setting named by
    ``name_setting`` (``--seed 42 --samples 50 (3 configs)`` on the command line)."""
    seed_name, samples_name = name_setting("seed"), name_setting("samples")
    return "; ".join(f"{seed_name} {seed} {samples_name} {n} ({plural(len(names), 'config')})"
                     for (seed, n), names in sorted(values.items()))


def collect_garbage(out_dir: str | os.PathLike, manifest: Manifest) -> list[str]:
    """Delete files under ``data/`` that the manifest does not reference (and leftover temp files)."""
    out_dir = Path(out_dir)
    keep = {entry.file for entry in manifest.configs.values()}
    removed = []
    data = out_dir / DATA_DIR
    if data.is_dir():
        for path in sorted(data.rglob("*")):
            if path.is_file() and path.relative_to(out_dir).as_posix() not in keep:
                path.unlink()
                removed.append(path.relative_to(out_dir).as_posix())
        for path in sorted(data.iterdir()):
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()
    for path in out_dir.glob(TMP_PREFIX + "*"):
        path.unlink(missing_ok=True)
    return removed
