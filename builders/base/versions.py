"""Installed versions of the packages whose behaviour a build or a run depends on."""

from __future__ import annotations

from importlib import metadata
from typing import Iterable


def package_versions(names: Iterable[str], absent: str | None = "not installed") -> dict[str, str]:
    """Name → installed version; a package that is not installed maps to ``absent`` (or is left out if None)."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if absent is not None:
                out[name] = absent
    return out
