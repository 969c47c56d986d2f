"""Every Hub call of ``oneruler publish`` and ``oneruler leaderboard``: model repos, details datasets, leaderboards.

``huggingface_hub`` as is (the endpoint is ``HF_ENDPOINT`` or huggingface.co; the token is
``HF_TOKEN`` or the login, handed to the client only, never printed or written), each call bounded
and retried as every Hub call is (``export/hub_calls.py``). Reads of a dataset (the benchmark's
``eval.yaml`` and manifest, what a details dataset holds) go through ``dataset/``; what is read here
are model repos' ``.eval_results`` files, their pull requests and the Hub's leaderboard of a dataset.

Writes are idempotent: the results go to a pull request of our own that is already open when there
is one (updated, or left as it is when it holds the same file), a commit whose answer was lost is
looked for before it is sent again, and a details dataset that was created or changed for a
publication whose results then failed is deleted or put back as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..base.errors import OneRulerError
from ..base.locking import FolderLock
from ..dataset import hub as dataset_hub
from ..export.hub import hub_token
from ..export.hub_calls import ONCE, HubCallError, hub_call
from ..export.hub_repos import ensure_repo, holds, landed_commit, missing, repo_failure, undo_creation

RESULTS_TITLE = "Add ONERULER evaluation results"  # the commit's message: the pull request's title, how we find ours
PUBLISH_LOCK_WAIT_S = 600.0


def _api():
    from huggingface_hub import HfApi

    return HfApi(token=hub_token())


def no_pr_advice(create_pr: bool) -> str:
    """What to add to a no-write-access line for the model repo: the pull-request path, when it was not taken."""
    return "" if create_pr else ", or drop --no-pr to open a pull request instead"


def check_model_repo(model: str, write: bool) -> None:
    """The model repo exists (and, with ``write``, the token may commit to it); one error otherwise."""
    api = _api()
    try:
        hub_call(f"model repo {model}", lambda: api.model_info(model))
        if write:
            hub_call(f"write access to model repo {model}", lambda: api.auth_check(model, repo_type="model", write=True))
    except HubCallError as exc:
        raise repo_failure(exc, model, "model", no_pr_advice(not write)) from None


def publish_lock(model: str) -> FolderLock:
    """One publication per model repo at a time on this machine (two at once would both open a pull request)."""
    from huggingface_hub import constants

    folder = Path(constants.HF_HUB_CACHE) / ".locks" / "oneruler-publish" / ("models--" + model.replace("/", "--"))
    return FolderLock(folder, wait=PUBLISH_LOCK_WAIT_S, log=None, what="another `oneruler publish` to " + model)


@dataclass(frozen=True)
class Committed:
    """Where the results are: ``url`` (a pull request's or a commit's) and ``how`` (opened, updated, already there,
    committed)."""

    url: str
    how: str


def results_at(api, model: str, revision: str, path: str) -> bytes | None:
    """The bytes of the results file on a branch of the model repo (None: not there)."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, LocalEntryNotFoundError

    def fetch() -> bytes | None:
        try:
            return Path(hf_hub_download(model, path, revision=revision, token=api.token)).read_bytes()
        except EntryNotFoundError as exc:
            if isinstance(exc, LocalEntryNotFoundError):
                raise
            return None

    return hub_call(f"{path} of model repo {model} at {revision}", fetch, retry=ONCE)  # the client retries downloads


def own_pull_requests(api, model: str, path: str) -> list:
    """The open pull requests on the model repo that this account opened for ONERULER results, newest first, each with
    the bytes of its results file: [(discussion, bytes)]."""
    me = hub_call("the token's account (whoami)", lambda: api.whoami()["name"])
    found = hub_call(f"the open pull requests of model repo {model}", lambda: list(api.get_repo_discussions(
        model, author=me, discussion_type="pull_request", discussion_status="open")))
    out = []
    for discussion in sorted(found, key=lambda d: -d.num):
        if discussion.title == RESULTS_TITLE:
            data = results_at(api, model, f"refs/pr/{discussion.num}", path)
            if data is not None:
                out.append((discussion, data))
    return out


def own_pull_request(api, model: str, path: str):
    """The newest of ``own_pull_requests`` (None: there is none)."""
    found = own_pull_requests(api, model, path)
    return found[0] if found else None


def close_duplicates(api, model: str, path: str, data: bytes):
    """After opening a pull request: the oldest open one of ours holding ``data`` is kept, any newer one (a
    publication of the same results that ran at the same time, from another machine) closed; the one kept."""
    same = [d for d, held in own_pull_requests(api, model, path) if held == data]
    if not same:
        return None
    kept, *others = sorted(same, key=lambda d: d.num)
    for other in others:
        hub_call(f"closing pull request #{other.num} on model repo {model}", lambda n=other.num: api.change_discussion_status(
            model, n, "closed", comment=f"Duplicate of #{kept.num}: the same ONERULER results, published twice at once."))
    return kept


def _commit(api, model: str, path: str, data: bytes, description: str, **where):
    from huggingface_hub import CommitOperationAdd

    return api.create_commit(model, [CommitOperationAdd(path_in_repo=path, path_or_fileobj=data)],
                             commit_message=RESULTS_TITLE, commit_description=description, **where)


def commit_results(model: str, path: str, data: bytes, create_pr: bool, description: str) -> Committed:
    """Put the results file on the model repo: our open pull request updated (or left, when it holds the same
    bytes), else a new pull request; with ``create_pr`` off, a commit to main (none when main holds them)."""
    api = _api()
    try:
        if not create_pr:
            url = landed_commit(api, model, "model", None, {path: data}, [])
            if url is not None:
                return Committed(url, "already there")
            info = hub_call(f"the commit to model repo {model}", lambda: _commit(api, model, path, data, description),
                            landed=lambda: landed_commit(api, model, "model", None, {path: data}, []))
            return Committed(str(getattr(info, "commit_url", info)), "committed")
        mine = own_pull_request(api, model, path)
        if mine is not None and mine[1] == data:
            return Committed(mine[0].url, "already there")
        if mine is not None:
            branch = f"refs/pr/{mine[0].num}"
            hub_call(f"the update of pull request #{mine[0].num} on model repo {model}",
                     lambda: _commit(api, model, path, data, description, revision=branch),
                     landed=lambda: True if results_at(api, model, branch, path) == data else None)
            return Committed(mine[0].url, "updated")

        def opened():
            again = own_pull_request(api, model, path)
            return again[0].url if again is not None and again[1] == data else None

        info = hub_call(f"the pull request on model repo {model}",
                        lambda: _commit(api, model, path, data, description, create_pr=True), landed=opened)
        url = str(getattr(info, "pr_url", None) or getattr(info, "commit_url", info))
        kept = close_duplicates(api, model, path, data)
        if kept is not None and kept.url != url:  # another publication opened it first: ours was closed
            return Committed(kept.url, "already there")
        return Committed(url, "opened")
    except HubCallError as exc:
        if create_pr and exc.status in (401, 403) and not missing(exc):  # the path anyone may take, refused
            raise OneRulerError(f"model repo {model} refused the pull request ({exc}); ask its owner, or publish with "
                                f"a token that may write to it and --no-pr") from None
        raise repo_failure(exc, model, "model", no_pr_advice(create_pr)) from None


@dataclass(frozen=True)
class DetailsTarget:
    """The details dataset before this publication: its commit (None: it does not exist) and its files."""

    repo: str
    commit: str | None
    files: tuple[str, ...] = ()


def details_target(repo: str, card_problem: Callable[[list[str], str | None], str | None]) -> DetailsTarget:
    """What the details dataset holds now; an error, before anything is written, when ``card_problem`` (given its
    files and card) says it is not ours to write (the check fails closed: a Hub that cannot say is an error)."""
    commit = dataset_hub.existing_commit(repo)
    if commit is None:
        return DetailsTarget(repo, None)
    files = dataset_hub.repo_files(repo, commit)
    readme = dataset_hub.download(repo, "README.md", commit) if "README.md" in files else None
    problem = card_problem(files, readme.read_text(encoding="utf-8", errors="replace") if readme else None)
    if problem:
        raise OneRulerError(problem)
    return DetailsTarget(repo, commit, tuple(files))


def push_details(target: DetailsTarget, files: dict[str, bytes], private: bool = False) -> tuple[str, bool]:
    """Create the details dataset if needed and commit ``files`` (and the removal of ours it no longer has) at once;
    (the dataset's URL, whether anything was written)."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    api, repo = _api(), target.repo
    stale = [p for p in target.files if p.startswith("data/") and p not in files]
    url = f"{api.endpoint}/datasets/{repo}"
    try:
        if target.commit is not None and holds(api, repo, "dataset", None, files, stale):
            return url, False
        created = ensure_repo(api, repo, "dataset", private)
    except HubCallError as exc:
        raise repo_failure(exc, repo, "dataset") from None
    operations = [CommitOperationDelete(path_in_repo=p) for p in stale]
    operations += [CommitOperationAdd(path_in_repo=p, path_or_fileobj=d) for p, d in files.items()]
    try:
        hub_call(f"the commit to dataset {repo}", lambda: api.create_commit(
            repo, operations, repo_type="dataset", commit_message="ONERULER per-row details",
            commit_description="Uploaded with `oneruler publish --details`."),
            landed=lambda: landed_commit(api, repo, "dataset", None, files, stale))
    except HubCallError as exc:
        raise undo_creation(api, repo, "dataset", created, repo_failure(exc, repo, "dataset")) from None
    return url, True


def undo_details(target: DetailsTarget, error: OneRulerError) -> OneRulerError:
    """``error``, after the details dataset is deleted (this publication created it) or put back as it was."""
    api, repo = _api(), target.repo
    if target.commit is None:
        return undo_creation(api, repo, "dataset", True, error)
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    try:
        now = set(dataset_hub.repo_files(repo, dataset_hub.existing_commit(repo) or target.commit))
        old = {p: dataset_hub.download(repo, p, target.commit) for p in target.files if p != ".gitattributes"}
        operations = [CommitOperationDelete(path_in_repo=p) for p in sorted(now - set(target.files))]
        operations += [CommitOperationAdd(path_in_repo=p, path_or_fileobj=str(path)) for p, path in old.items() if path]
        hub_call(f"putting dataset {repo} back", lambda: api.create_commit(
            repo, operations, repo_type="dataset", commit_message="Put back the ONERULER details of the last publication",
            commit_description="`oneruler publish` could not publish the results these details went with."),
            landed=lambda: landed_commit(api, repo, "dataset", None, {p: v for p, v in old.items() if v}, []))
    except OneRulerError as exc:
        return OneRulerError(f"{error.marked}; the details dataset {repo} was updated for it and could not be put back "
                             f"({exc}): publish again once the cause is fixed")
    return OneRulerError(f"{error.marked}; the details dataset {repo} was put back as it was")


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


class HubUnreachable(OneRulerError):
    """The Hub could not be asked (no answer, or only transient failures): the leaderboard goes on without it."""


def published_results(dataset: str) -> list[PublishedResult]:
    """The models on ``dataset``'s Hub leaderboard (``HfApi.get_dataset_leaderboard``), in its order."""
    from huggingface_hub import HfApi

    try:
        entries = hub_call(f"the leaderboard of dataset {dataset}", lambda: HfApi().get_dataset_leaderboard(dataset))
    except HubCallError as exc:
        if exc.status is None or exc.status >= 500 or exc.status == 429:
            raise HubUnreachable(str(exc)) from None
        if exc.status == 404 and not missing(exc):
            raise OneRulerError(f"dataset {dataset} has no leaderboard on the Hub ({exc}): check the name; a benchmark "
                                f"needs an eval.yaml (`oneruler push` of an export that serves a leaderboard)") from None
        raise repo_failure(exc, dataset, "dataset") from None
    return [PublishedResult(e.model_id, e.filename, e.pull_request, bool(e.verified)) for e in entries]


def results_file(result: PublishedResult) -> str:
    """The text of a model repo's results file (at the pull request when it is one)."""
    from huggingface_hub import HfApi

    data = None
    try:
        data = results_at(HfApi(), result.model, result.revision or "main", result.filename)
    except HubCallError as exc:
        raise repo_failure(exc, result.model, "model") from None
    if data is None:
        raise OneRulerError(f"{result.filename} is not in model repo {result.model} at {result.revision or 'main'}")
    return data.decode("utf-8", errors="replace")
