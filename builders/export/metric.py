"""The ``evaluate`` metric folder (``metrics/oneruler/``) and its byte-identical copy of the scoring core.

A Space cannot import this project, so the folder carries ``oneruler_scoring.py``: the very bytes
of ``builders/scoring/core.py`` (which is standard-library only and self-contained), checked by
sha256 before every publish and by the test suite. No text is rewritten. The folder ships with the
package (``base/resources.py``): ``oneruler metric-path`` prints it for ``evaluate.load``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..base.errors import OneRulerError
from ..base.files import sha256_file
from ..base.resources import METRIC_FOLDER, REINSTALL, shipped_path
from ..scoring import core as scoring_core

METRIC_DIR = shipped_path(METRIC_FOLDER)
METRIC_COPY = "oneruler_scoring.py"
SCORING_CORE = Path(scoring_core.__file__)
# Everything a Hugging Face Space needs for evaluate.load("ORG/oneruler"). The Space repo must be
# named like the script (evaluate fetches "<repo name>.py"), or oneruler.py is uploaded under that name.
METRIC_SPACE_FILES: tuple[str, ...] = ("README.md", "app.py", "oneruler.py", METRIC_COPY, "requirements.txt")


def sync_metric_copy(folder: Path = METRIC_DIR) -> Path:
    """Copy ``builders/scoring/core.py`` byte for byte to the metric folder."""
    target = Path(folder) / METRIC_COPY
    shutil.copyfile(SCORING_CORE, target)
    return target


def check_metric_copy(folder: Path = METRIC_DIR) -> None:
    """Raise OneRulerError unless every Space file exists and the scoring copy has the core's sha256."""
    folder = Path(folder)
    _require_space_files(folder)
    if sha256_file(folder / METRIC_COPY) != sha256_file(SCORING_CORE):
        raise OneRulerError(
            f"{folder / METRIC_COPY} differs from {SCORING_CORE}: run "
            "python -c 'from builders.export.metric import sync_metric_copy; sync_metric_copy()'"
        )


def metric_files(folder: Path = METRIC_DIR) -> list[str]:
    """The files a metric Space needs, checked to exist (and, for this project's folder, to be current)."""
    folder = Path(folder)
    if not folder.is_dir():
        hint = f": {REINSTALL}" if folder == METRIC_DIR else ""
        raise OneRulerError(f"metric folder {folder} does not exist{hint}")
    if folder.resolve() == METRIC_DIR.resolve():
        check_metric_copy(folder)
    else:
        _require_space_files(folder)
    return list(METRIC_SPACE_FILES)


def _require_space_files(folder: Path) -> None:
    absent = [name for name in METRIC_SPACE_FILES if not (folder / name).is_file()]
    if absent:
        raise OneRulerError(f"metric folder {folder} lacks {', '.join(absent)}")
