"""Make a mirror folder laid out like nltk_data that holds the pinned punkt_tab.zip, from the package index only.

Usage (CI, and a developer on a machine whose only network is the package index)::

    python scripts/punkt_mirror.py DIR              # downloads the llama-index-core wheel with pip
    python scripts/punkt_mirror.py DIR --wheel W    # uses a wheel already downloaded
    export ONERULER_MIRROR="$ONERULER_MIRROR:DIR"

NLTK's ``punkt_tab.zip`` lives on GitHub (nltk/nltk_data, gh-pages), out of reach of a machine that
can only reach the package index. The same bytes ship inside the PyPI wheel of ``llama-index-core``
(``llama_index/core/_static/nltk_cache/tokenizers/punkt_tab.zip``). This script downloads that wheel
with ``pip download --no-deps`` (the version below, whose copy was checked), takes the zip out, checks
it against the pinned size and sha256 (``raw/ruler/nltk_punkt.json``) and writes it atomically to
``DIR/packages/tokenizers/punkt_tab.zip``. The fetcher verifies it again when it reads it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from builders.base.files import atomic_write_bytes, sha256_bytes  # noqa: E402
from builders.sources.ruler.pins import load_pinned  # noqa: E402

WHEEL_REQUIREMENT = "llama-index-core==0.14.25"
MEMBER = "llama_index/core/_static/nltk_cache/tokenizers/punkt_tab.zip"
TIMEOUT_S = 600


def download_wheel(folder: Path) -> Path:
    """``pip download --no-deps`` of the pinned llama-index-core wheel into ``folder``; its path."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--quiet",
           "--disable-pip-version-check", "--dest", str(folder), WHEEL_REQUIREMENT]
    subprocess.run(cmd, check=True, timeout=TIMEOUT_S)
    wheels = sorted(folder.glob("llama_index_core-*.whl"))
    if not wheels:
        sys.exit(f"error: pip download of {WHEEL_REQUIREMENT} left no wheel in {folder}")
    return wheels[0]


def punkt_from_wheel(wheel: Path) -> bytes:
    """The punkt_tab.zip inside the wheel, refused unless it is the pinned one."""
    pinned = load_pinned("nltk_punkt").files[0]
    try:
        data = zipfile.ZipFile(wheel).read(MEMBER)
    except (KeyError, zipfile.BadZipFile, OSError) as exc:
        sys.exit(f"error: {wheel}: no readable {MEMBER} ({exc})")
    if not pinned.accepts(sha256_bytes(data), len(data)):
        sys.exit(f"error: {wheel}: {MEMBER} is not the pinned punkt_tab.zip ({pinned.size} bytes, sha256 "
                 f"{pinned.sha256}); got {len(data)} bytes, sha256 {sha256_bytes(data)}")
    return data


def main(argv: list[str] | None = None) -> int:
    """Write DIR/packages/tokenizers/punkt_tab.zip (from --wheel, else a fresh pip download) and print DIR."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the mirror folder to make (created if needed)")
    parser.add_argument("--wheel", type=Path, default=None, help=f"a downloaded {WHEEL_REQUIREMENT} wheel")
    args = parser.parse_args(argv)
    pinned = load_pinned("nltk_punkt").files[0]
    with tempfile.TemporaryDirectory(prefix="punkt-wheel-") as tmp:
        data = punkt_from_wheel(args.wheel or download_wheel(Path(tmp)))
    target = args.folder / pinned.path
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(target, data)
    print(args.folder.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
