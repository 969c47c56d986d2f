"""Where pinned files are read from: ``--mirror``/``ONERULER_MIRROR`` parsed into a ``Mirror``.

A value that parses as a URL (``http://``, ``https://``, ``file://``) is one base: a file's URL is the
base + its upstream path, as before. Anything else is a list of local folders separated by
``os.pathsep`` (``:`` on Linux and macOS, ``;`` on Windows), each laid out as its upstream repository
(``../shared/oneruler-upstream:../shared/ruler-upstream``): a pinned file is read from the first
folder that holds its path, so several upstreams (ONERULER's release, RULER, the essays, XQuAD,
nltk_data) can each keep their own layout. A file in none of them is a ``MissingSource`` error naming
the file, the folders looked in and how to get it. No mirror at all: each file's own upstream URLs
(``SourceFile.upstream_urls``), then its alternates'.
"""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from ..base.errors import SourceError
from .manifest import Alternate, SourceFile

MIRROR_ENV = "ONERULER_MIRROR"
URL_SCHEMES = ("http", "https", "file")


class MissingSource(SourceError):
    """A pinned file is in no mirror folder, or its server answers that it has no such file (HTTP 404)."""


@dataclass(frozen=True)
class Candidate:
    """One place to get a file from: its URL, and the pin it must match (``None``: any pin the entry accepts)."""

    url: str
    pin: SourceFile | Alternate | None = None


@dataclass(frozen=True)
class Mirror:
    """Local folders (each with an upstream's layout), one base URL, or neither (each file's upstream)."""

    folders: tuple[Path, ...] = ()
    base_url: str | None = None

    def describe(self) -> str:
        """Where files come from, for a summary line: the folders, the base URL, or "upstream"."""
        if self.folders:
            return os.pathsep.join(str(f) for f in self.folders)
        return self.base_url or "upstream (each file's pinned URL)"

    def candidates(self, entry: SourceFile) -> list[Candidate]:
        """The places to try for ``entry``, in order (raises ``MissingSource`` when no folder holds it)."""
        if self.folders:
            for folder in self.folders:
                path = folder / entry.path
                if path.is_file():
                    return [Candidate(path.as_uri())]
            raise MissingSource(missing_message(entry, self.folders))
        if self.base_url is not None:
            return [Candidate(self.base_url + urllib.parse.quote(entry.path))]
        out = [Candidate(url, entry) for url in entry.upstream_urls()]
        return out + [Candidate(url, alt) for alt in entry.alternates for url in alt.urls]


def missing_message(entry: SourceFile, folders: tuple[Path, ...]) -> str:
    """One line: the file, the folders looked in, and two ways to get it."""
    looked = ", ".join(str(f) for f in folders)
    return (f"{entry.path}: not found in the mirror (looked in {looked}); save {entry.upstream_urls()[0]} as "
            f"{entry.path} inside one of them, or run `oneruler fetch --sources all` on a machine with internet "
            f"(without {MIRROR_ENV}) and copy its source cache (ONERULER_CACHE)")


def split_mirror(text: str) -> list[str]:
    """A mirror value as its parts: one URL base, or the non-empty folder paths between ``os.pathsep``."""
    scheme = urllib.parse.urlparse(text).scheme
    if scheme in URL_SCHEMES:
        return [text]
    return [part for part in text.split(os.pathsep) if part.strip()]


def resolve_mirror(mirror: str | os.PathLike | None = None) -> Mirror:
    """The mirror to read from: the argument, else ``$ONERULER_MIRROR``, else none (upstream)."""
    mirror = mirror if mirror not in (None, "") else os.environ.get(MIRROR_ENV) or None
    if mirror is None:
        return Mirror()
    text = os.fspath(mirror)
    scheme = urllib.parse.urlparse(text).scheme
    if scheme in URL_SCHEMES:
        return Mirror(base_url=text.rstrip("/") + "/")
    if scheme and len(scheme) > 1 and "://" in text:  # a URL of another kind (a Windows drive letter is one letter)
        raise SourceError(f"mirror {text!r}: unsupported scheme {scheme!r}; use a folder, file://, http:// or https://")
    folders = []
    for part in split_mirror(text):
        folder = Path(part).expanduser().resolve()
        if not folder.is_dir():
            raise SourceError(f"mirror folder {part!r} does not exist (expected the upstream layout, e.g. "
                              f"../shared/oneruler-upstream; several folders are separated by {os.pathsep!r})")
        folders.append(folder)
    if not folders:
        raise SourceError(f"mirror {text!r} names no folder; give a folder, file://, http:// or https://")
    return Mirror(folders=tuple(folders))
