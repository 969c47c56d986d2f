"""Every read of a Hugging Face Hub dataset goes through here, always at an explicit revision.

``huggingface_hub`` bounds each request (``HF_HUB_ETAG_TIMEOUT``, ``HF_HUB_DOWNLOAD_TIMEOUT``; 10 s
by default) and caches downloads by commit, so a pinned file is fetched once per machine.
"""

from __future__ import annotations

from pathlib import Path

from ..base.errors import OneRulerError, one_line


class HubLookupFailed(OneRulerError):
    """A Hub dataset's commit could not be learnt; ``reason`` says why in words (no such repo, no network, ...)."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


def lookup_failure(repo_id: str, revision: str | None, exc: Exception) -> str:
    """Why asking the Hub about a dataset failed, in words."""
    from huggingface_hub.errors import HFValidationError, OfflineModeIsEnabled, RepositoryNotFoundError, \
        RevisionNotFoundError

    if isinstance(exc, RevisionNotFoundError):
        return f"the Hub dataset {repo_id!r} has no revision {revision!r}"
    if isinstance(exc, RepositoryNotFoundError):
        return f"the Hub has no dataset {repo_id!r} (or it is private: log in with `hf auth login`)"
    if isinstance(exc, OfflineModeIsEnabled):
        return "HF_HUB_OFFLINE is set, so the Hub was not asked for a dataset of that name"
    if isinstance(exc, HFValidationError):
        return "it is not a Hub repo id either (ORG/NAME)"
    return f"the Hub could not be reached to look for a dataset of that name ({one_line(exc)})"


def commit_of(repo_id: str, revision: str | None = None) -> str:
    """The commit sha a Hub dataset's revision (branch, tag or sha; None: main) points at now."""
    from huggingface_hub import HfApi

    try:
        return HfApi().dataset_info(repo_id, revision=revision).sha
    except Exception as exc:  # noqa: BLE001 - unknown repo, revision, no network: bad input
        reason = lookup_failure(repo_id, revision, exc)
        raise HubLookupFailed(f"cannot open dataset {repo_id!r} at revision {revision or 'main'}: {reason}",
                              reason) from None


def download(repo_id: str, filename: str, commit: str, cache_dir: str | None = None) -> Path | None:
    """A file of the dataset at ``commit``, downloaded once into the Hub cache (None: no such file)."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError

    try:
        return Path(hf_hub_download(repo_id, filename, repo_type="dataset", revision=commit, cache_dir=cache_dir))
    except EntryNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - any failure to reach the file is bad input
        raise OneRulerError(f"cannot read {filename} of dataset {repo_id!r}: {one_line(exc)}") from None


def repo_files(repo_id: str, commit: str) -> list[str]:
    """Every file path of the dataset at ``commit``."""
    from huggingface_hub import HfApi

    try:
        return HfApi().list_repo_files(repo_id, repo_type="dataset", revision=commit)
    except Exception as exc:  # noqa: BLE001
        raise OneRulerError(f"cannot list the files of dataset {repo_id!r}: {one_line(exc)}") from None
