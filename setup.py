"""The one build step pyproject.toml cannot declare: the wheel carries the repository files the code reads.

``raw/manifest.json``, ``translations/manifest.json``, ``raw/ruler/``, ``translations/ruler/``, ``dataset_card.md`` and ``metrics/oneruler/``
stay at the top of the repository; the wheel holds copies at the same relative paths under
``builders/_data/``, where ``builders/base/resources.py`` reads them through ``importlib.resources``.
(A ``package-dir`` mapping can place the folders, but the single top-level file only by mapping the
repository root as a package, which would copy ``oneruler.py`` into it too.) An editable install
skips the copy: there the code reads the checkout's own files. Everything else is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

# The same list as builders/base/resources.py:SHIPPED (tests/test_package.py compares them).
SHIPPED = ("raw/manifest.json", "translations/manifest.json", "raw/ruler", "translations/ruler", "dataset_card.md",
           "metrics/oneruler")
TARGET = Path("builders", "_data")
JUNK = shutil.ignore_patterns("__pycache__", "*.py[cod]", ".*")


class BuildPyWithData(build_py):
    """``build_py``, then the shipped files copied into the built package (not for an editable install)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        for relative in SHIPPED:
            source, target = Path(relative), Path(self.build_lib, TARGET, relative)
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(source, target, ignore=JUNK)
            else:
                shutil.copyfile(source, target)


setup(cmdclass={"build_py": BuildPyWithData})
