"""Repositories made and commits checked for ``push``, ``push-metric`` and ``publish``: nothing left half-made.

``ensure_repo`` makes a repository unless it exists and says whether this call made it (a 409 on the
creation is someone else's repository that appeared meanwhile, or a conflict said in one line, never
the client's ``KeyError``). ``landed_commit`` answers, after a commit whose answer was lost (a connection
cut once the Hub had applied it, a timeout), whether the branch now holds exactly the files sent: then
the commit was applied and must not be sent again. ``undo_creation`` deletes a repository this command
made when its first commit failed, so that a failed push leaves no empty repository behind.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Mapping

from ..base.errors import OneRulerError
from .hub_calls import HubCallError, hub_call

_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}
CHUNK = 1 << 20


def missing(exc: HubCallError) -> bool:
    """The Hub said the repository does not exist (or the token cannot see it)."""
    from huggingface_hub.errors import RepositoryNotFoundError

    return isinstance(exc.cause, RepositoryNotFoundError)


def repo_failure(exc: HubCallError, repo: str, repo_type: str, advice: str = "") -> OneRulerError:
    """One line for a failed call on ``repo`` (its ``repo_type``: model, dataset, space): absent, not writable, or
    what the Hub did; ``advice`` is added to the no-write-access line."""
    if missing(exc):
        return OneRulerError(f"{repo_type} repo {repo} does not exist on the Hub (or the token cannot see it): check "
                             "the name" + (", or create it first" if repo_type == "model" else ""))
    if exc.status in (401, 403):
        return OneRulerError(f"no write access to {repo_type} repo {repo} with this token ({exc}): use a token with "
                             f"write access to it{advice}")
    return OneRulerError(str(exc) if repo in str(exc) else f"{repo_type} repo {repo}: {exc}")


def exists(api, repo_id: str, repo_type: str) -> bool:
    """Whether the repository exists (a failure to ask is an error)."""
    try:
        hub_call(f"{repo_type} repo {repo_id}", lambda: api.repo_info(repo_id, repo_type=repo_type))
        return True
    except HubCallError as exc:
        if missing(exc):
            return False
        raise repo_failure(exc, repo_id, repo_type) from None


def ensure_repo(api, repo_id: str, repo_type: str, private: bool = False) -> bool:
    """Create the repository unless it exists; whether this call created it."""
    if exists(api, repo_id, repo_type):
        return False
    extra = {"space_sdk": "gradio"} if repo_type == "space" else {}
    try:
        hub_call(f"creating {repo_type} repo {repo_id}",
                 lambda: api.create_repo(repo_id, repo_type=repo_type, private=private, **extra),
                 landed=lambda: True if exists(api, repo_id, repo_type) else None)
        return True
    except HubCallError as exc:
        if exc.status == 409 and exists(api, repo_id, repo_type):
            return False  # made meanwhile by another hand: not ours to delete
        raise repo_failure(exc, repo_id, repo_type) from None


def git_blob_sha1(path_or_bytes: Path | bytes) -> str:
    """The git object id of a file's bytes (the Hub's oid of a regular file)."""
    data = path_or_bytes if isinstance(path_or_bytes, bytes) else None
    size = len(data) if data is not None else Path(path_or_bytes).stat().st_size
    digest = hashlib.sha1(b"blob %d\0" % size)
    _feed(digest, path_or_bytes)
    return digest.hexdigest()


def sha256_of(path_or_bytes: Path | bytes) -> str:
    """The sha256 of a file's bytes (the Hub's oid of an LFS file)."""
    digest = hashlib.sha256()
    _feed(digest, path_or_bytes)
    return digest.hexdigest()


def _feed(digest, path_or_bytes: Path | bytes) -> None:
    if isinstance(path_or_bytes, bytes):
        digest.update(path_or_bytes)
        return
    with open(path_or_bytes, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)


def holds(api, repo_id: str, repo_type: str, revision: str | None, files: Mapping[str, Path | bytes],
          absent: list[str]) -> str | None:
    """The head commit of ``revision`` when it holds exactly these files (and none of ``absent``), else None."""
    def tree():
        info = api.repo_info(repo_id, repo_type=repo_type, revision=revision, files_metadata=True)
        return info.sha, {s.rfilename: s for s in info.siblings or []}

    head, remote = hub_call(f"the files of {repo_type} repo {repo_id}", tree)
    if any(p in remote for p in absent):
        return None
    for path, data in files.items():
        found = remote.get(path)
        lfs = getattr(found, "lfs", None) if found is not None else None
        if found is None or (lfs.sha256 != sha256_of(data) if lfs else found.blob_id != git_blob_sha1(data)):
            return None
    return head


def landed_commit(api, repo_id: str, repo_type: str, revision: str | None, files: Mapping[str, Path | bytes],
                  absent: list[str]) -> str | None:
    """After a commit whose answer was lost: its URL when the branch holds what it sent, else None (send it again)."""
    head = holds(api, repo_id, repo_type, revision, files, absent)
    return None if head is None else f"{api.endpoint}/{_PREFIX[repo_type]}{repo_id}/commit/{head}"


def undo_creation(api, repo_id: str, repo_type: str, created: bool, error: OneRulerError) -> OneRulerError:
    """``error``, after deleting the repository when this command created it (its first commit failed)."""
    if not created:
        return error
    try:
        hub_call(f"deleting {repo_type} repo {repo_id}", lambda: api.delete_repo(repo_id, repo_type=repo_type))
        return OneRulerError(f"{error.marked}; the {repo_type} repo {repo_id} this command created was deleted again")
    except HubCallError as exc:
        return OneRulerError(f"{error.marked}; the {repo_type} repo {repo_id} this command created is still there, "
                             f"empty, and could not be deleted ({exc}): delete it on the Hub")
