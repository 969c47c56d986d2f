"""Every Hub call of ``oneruler publish`` and ``oneruler leaderboard``: model repos, details datasets, leaderboards.

``huggingface_hub`` as is (the endpoint is ``HF_ENDPOINT`` or huggingface.co; the token is
``HF_TOKEN`` or the login, handed to the client only, never printed or written). Reads of the
benchmark dataset itself (its ``eval.yaml`` and manifest) go through ``dataset/``; what is read
here are model repos' ``.eval_results`` files and the Hub's leaderboard of a dataset. Each failure
becomes one ``OneRulerError`` line naming the repository and what would fix it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..base.errors import OneRulerError, one_line
from ..export.hub import hub_token


def _status(exc: Exception) -> int | None:
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None)


def hub_error(exc: Exception, repo: str, repo_type: str, writing: bool = False) -> OneRulerError:
    """One line for a failed Hub call on ``repo`` (its ``repo_type``: model, dataset)."""
    from huggingface_hub.errors import RepositoryNotFoundError

    if isinstance(exc, RepositoryNotFoundError):
        return OneRulerError(f"{repo_type} repo {repo} does not exist on the Hub (or the token cannot see it): "
                             f"check the name{', or create it first' if repo_type == 'model' else ''}")
    if writing and _status(exc) in (401, 403):
        return OneRulerError(f"no write access to {repo_type} repo {repo} with this token: use a token with write access "
                             f"to it" + (", or drop --no-pr to open a pull request instead" if repo_type == "model" else ""))
    return OneRulerError(f"{repo_type} repo {repo}: {one_line(exc)}")


def check_model_repo(model: str, write: bool) -> None:
    """The model repo exists (and, with ``write``, the token may commit to it); one error otherwise."""
    from huggingface_hub import HfApi

    api = HfApi(token=hub_token())
    try:
        api.model_info(model)
        if write:
            api.auth_check(model, repo_type="model", write=True)
    except Exception as exc:  # noqa: BLE001 - every failure is one line naming the repo
        raise hub_error(exc, model, "model", writing=write) from None


def upload_results(model: str, path_in_repo: str, data: bytes, create_pr: bool, description: str) -> str:
    """Commit one file to the model repo, as a pull request by default; the PR's (or commit's) URL."""
    from huggingface_hub import CommitOperationAdd, HfApi

    api = HfApi(token=hub_token())
    try:
        info = api.create_commit(model, [CommitOperationAdd(path_in_repo=path_in_repo, path_or_fileobj=data)],
                                 commit_message="Add ONERULER evaluation results", commit_description=description,
                                 create_pr=create_pr)
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, model, "model", writing=True) from None
    return info.pr_url if create_pr and info.pr_url else info.commit_url


def push_details(repo: str, files: dict[str, bytes], private: bool = False) -> str:
    """Create (if needed) the dataset repo ``repo`` and commit ``files`` to it at once; the repo's URL."""
    from huggingface_hub import CommitOperationAdd, HfApi

    api = HfApi(token=hub_token())
    try:
        url = api.create_repo(repo, repo_type="dataset", private=private, exist_ok=True)
        api.create_commit(repo, [CommitOperationAdd(path_in_repo=p, path_or_fileobj=d) for p, d in files.items()],
                          repo_type="dataset", commit_message="ONERULER per-row details",
                          commit_description="Uploaded with `oneruler publish --details`.")
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, repo, "dataset", writing=True) from None
    return str(url)


@dataclass(frozen=True)
class PublishedResult:
    """One model's line of a dataset's Hub leaderboard: where its results file is, and whether it is verified."""

    model: str
    filename: str
    pull_request: int | None
    verified: bool

    @property
    def revision(self) -> str | None:
        """Where the file is: the pull request's ref, or main."""
        return f"refs/pr/{self.pull_request}" if self.pull_request else None


def offline_reason() -> str | None:
    """Why the Hub cannot be asked (None: it can)."""
    from huggingface_hub import constants

    return "HF_HUB_OFFLINE is set" if constants.HF_HUB_OFFLINE else None


def published_results(dataset: str) -> list[PublishedResult]:
    """The models on ``dataset``'s Hub leaderboard (``HfApi.get_dataset_leaderboard``), in its order."""
    from huggingface_hub import HfApi

    try:
        entries = HfApi().get_dataset_leaderboard(dataset)
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, dataset, "dataset") from None
    return [PublishedResult(e.model_id, e.filename, e.pull_request, bool(e.verified)) for e in entries]


def results_file(result: PublishedResult) -> str:
    """The text of a model repo's results file (at the pull request when it is one)."""
    from huggingface_hub import hf_hub_download

    try:
        return Path(hf_hub_download(result.model, result.filename, revision=result.revision)).read_text(encoding="utf-8")
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, result.model, "model") from None
