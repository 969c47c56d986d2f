"""The files the package reads besides its code: the pinned manifests, the card template, the metric folder.

The repository keeps them at its top level (``raw/manifest.json``, ``translations/manifest.json``,
``raw/ruler/`` (the manifests of RULER's inputs), ``translations/ruler/`` (translations of RULER's instructions), ``dataset_card.md``, ``metrics/oneruler/``). A wheel carries them inside the package, at the same
relative paths under ``builders/_data/`` (``setup.py``'s build step copies them there; the sdist
holds the top-level originals). Every reader asks :func:`shipped_path`, which finds the package
through ``importlib.resources``: an installed wheel answers from ``builders/_data/``; a checkout
(an editable install, or ``PYTHONPATH`` pointing at a clone) has no ``_data`` folder, and answers
from the clone's top level, the folder beside the package that holds ``pyproject.toml``. This is
the one module that names a path outside the package (``tests/test_package.py`` checks it, and
that an installed wheel never takes this branch).
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

PACKAGE = "builders"
PACKAGED_FOLDER = "_data"  # inside the installed package: builders/_data/<relative path>

SOURCE_MANIFEST = "raw/manifest.json"
TRANSLATIONS_MANIFEST = "translations/manifest.json"
RULER_MANIFESTS = "raw/ruler"  # one manifest per upstream of RULER's inputs (sources/ruler/pins.py)
RULER_TRANSLATIONS = "translations/ruler"  # native-speaker translations of RULER's instructions (spec/translated.py)
CARD_TEMPLATE = "dataset_card.md"
METRIC_FOLDER = "metrics/oneruler"
# Everything a wheel must carry (setup.py copies exactly these; a test compares the two lists).
SHIPPED: tuple[str, ...] = (SOURCE_MANIFEST, TRANSLATIONS_MANIFEST, RULER_MANIFESTS, RULER_TRANSLATIONS, CARD_TEMPLATE,
                             METRIC_FOLDER)
# What a reader's "missing" error says to do.
REINSTALL = "reinstall oneruler (pip install --force-reinstall oneruler) or run it from a clone of its repository"


def package_folder() -> Path:
    """The folder of the ``builders`` package this process imported (a checkout's, or site-packages')."""
    return Path(str(importlib.resources.files(PACKAGE)))


def shipped_root() -> Path:
    """Where the shipped files are: ``builders/_data`` of an installed wheel, else the checkout's top level.

    When neither holds them (a damaged install), the answer is the packaged folder, so that a reader's
    "missing" error names the place a wheel puts the file.
    """
    packaged = package_folder() / PACKAGED_FOLDER
    if packaged.is_dir():
        return packaged
    checkout = package_folder().parent  # the one path outside the package: a clone's top level
    if (checkout / "pyproject.toml").is_file() and (checkout / SOURCE_MANIFEST).is_file():
        return checkout
    return packaged


def shipped_path(relative: str) -> Path:
    """The shipped file or folder ``relative`` (one of :data:`SHIPPED`, e.g. ``raw/manifest.json``)."""
    if relative not in SHIPPED:
        raise ValueError(f"{relative!r} is not a shipped file; shipped: {', '.join(SHIPPED)}")
    return shipped_root() / relative
