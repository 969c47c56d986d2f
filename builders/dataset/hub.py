"""Every read of a Hugging Face Hub dataset goes through here, always at an explicit revision.

Each call is bounded and retried as every Hub call is (``export/hub_calls.py``: a deadline per request,
408/429/5xx and cut connections retried with capped waits); a file download keeps the client's own
bounds (``HF_HUB_ETAG_TIMEOUT``, ``HF_HUB_DOWNLOAD_TIMEOUT``) and caches by commit, so a pinned file is
fetched once per machine. A file the dataset does not have (the Hub's 404 for that path) is None; a
file the Hub could not serve is an error that says so, never taken for an absent one.
"""

from __future__ import annotations

from pathlib import Path

from ..base.errors import OneRulerError
from ..export.hub_calls import ONCE, HubCallError, failure, hub_call


class HubLookupFailed(OneRulerError):
    """A Hub dataset's commit could not be learnt; ``reason`` says why in words (no such repo, no network, ...)."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


def lookup_failure(repo_id: str, revision: str | None, failed: HubCallError) -> str:
    """Why asking the Hub about a dataset failed, in words (what the Hub did, after the retries, when it is none of
    the answers about the name)."""
    from huggingface_hub.errors import HFValidationError, OfflineModeIsEnabled, RepositoryNotFoundError, \
        RevisionNotFoundError

    exc = failed.cause
    if isinstance(exc, RevisionNotFoundError):
        return f"the Hub dataset {repo_id!r} has no revision {revision!r}"
    if isinstance(exc, RepositoryNotFoundError):
        return f"the Hub has no dataset {repo_id!r} (or it is private: log in with `hf auth login`)"
    if isinstance(exc, OfflineModeIsEnabled):
        return "HF_HUB_OFFLINE is set, so the Hub was not asked for a dataset of that name"
    if isinstance(exc, HFValidationError):
        return "it is not a Hub repo id either (ORG/NAME)"
    gave_up = f", gave up after {failed.tries} tries" if failed.tries > 1 else ""
    return f"the Hub could not be asked about a dataset of that name ({failure(exc)}{gave_up})"


def commit_of(repo_id: str, revision: str | None = None) -> str:
    """The commit sha a Hub dataset's revision (branch, tag or sha; None: main) points at now."""
    from huggingface_hub import HfApi

    try:
        return hub_call(f"dataset {repo_id}", lambda: HfApi().dataset_info(repo_id, revision=revision).sha)
    except HubCallError as exc:  # unknown repo, revision, no network: bad input
        reason = lookup_failure(repo_id, revision, exc)
        raise HubLookupFailed(f"cannot open dataset {repo_id!r} at revision {revision or 'main'}: {reason}",
                              reason) from None


def existing_commit(repo_id: str) -> str | None:
    """The commit a Hub dataset's main branch points at, or None when the Hub says there is no such dataset."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import RepositoryNotFoundError

    try:
        return hub_call(f"dataset {repo_id}", lambda: HfApi().dataset_info(repo_id).sha)
    except HubCallError as exc:
        if isinstance(exc.cause, RepositoryNotFoundError):
            return None
        raise OneRulerError(f"cannot tell whether dataset {repo_id!r} exists: {failure(exc.cause)}") from None


def download(repo_id: str, filename: str, commit: str, cache_dir: str | None = None) -> Path | None:
    """A file of the dataset at ``commit``, downloaded once into the Hub cache (None: the dataset has no such file)."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, LocalEntryNotFoundError

    def fetch() -> Path | None:
        try:
            return Path(hf_hub_download(repo_id, filename, repo_type="dataset", revision=commit, cache_dir=cache_dir))
        except EntryNotFoundError as exc:
            if isinstance(exc, LocalEntryNotFoundError):  # the Hub could not be asked: not an answer about the file
                raise
            return None

    try:
        return hub_call(f"{filename} of dataset {repo_id}", fetch, retry=ONCE)  # the client retries downloads itself
    except HubCallError as exc:
        raise OneRulerError(f"cannot read {filename} of dataset {repo_id!r} at {commit}: {failure(exc.cause)}"
                            + (f" (gave up after {exc.tries} tries)" if exc.tries > 1 else "")) from None


def repo_files(repo_id: str, commit: str) -> list[str]:
    """Every file path of the dataset at ``commit``."""
    from huggingface_hub import HfApi

    try:
        return hub_call(f"the files of dataset {repo_id}",
                        lambda: HfApi().list_repo_files(repo_id, repo_type="dataset", revision=commit))
    except HubCallError as exc:
        raise OneRulerError(f"cannot list the files of dataset {repo_id!r}: {failure(exc.cause)}") from None
