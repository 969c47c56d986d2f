"""Installed versions of the packages whose behaviour a build or a run depends on."""

from __future__ import annotations

from importlib import metadata
from typing import Iterable


def package_versions(names: Iterable[str], missing: str | None = "not installed") -> dict[str, str]:
    """Name → installed version; a package that is not installed maps to ``missing`` (or is left out if None)."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if missing is not None:
                out[name] = missing
    return out
