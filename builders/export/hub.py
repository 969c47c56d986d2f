"""Publish an export folder as a Hub dataset, and the metric folder as a Hub Space.

Both use ``huggingface_hub`` as is: the token comes from the standard login (``hf auth login``) or
``HF_TOKEN`` and is handed to the client only — never printed, logged or written. The endpoint is
the client's default (huggingface.co) unless ``HF_ENDPOINT`` overrides it, which is how the tests
run the very same code against a loopback stand-in.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..base.errors import CheckFailed, OneRulerError, named_setting
from ..base.text import plural
from .eval_yaml import eval_yaml_problem
from .hub_calls import hub_call
from .hub_repos import ensure_repo, landed_commit, undo_creation
from .frontmatter import configs_data_files, parse_front_matter
from .layout import EVAL_YAML_NAME, MANIFEST_NAME, README_NAME
from .manifest import check_shards, read_manifest
from .metric import METRIC_DIR, metric_files
from .records import Manifest

MAX_CONFIGS = 3_000  # the Hub dataset viewer's limit per repository
_REPO_PART = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?")
_DOUBLED = re.compile(r"--|\.\.")  # the Hub forbids both inside a name


def hub_token() -> str:
    """The Hugging Face token of ``HF_TOKEN`` or the login (``hf auth login``); an error when there is none."""
    from huggingface_hub import get_token

    token = get_token()
    if not token:
        raise OneRulerError(
            "no Hugging Face token: log in with `hf auth login` or set HF_TOKEN (a token with write access)"
        )
    return token


def valid_repo_id(repo_id: str) -> bool:
    """Whether ``repo_id`` is ``ORG/NAME`` as the Hub names repositories: letters, digits, ``-``, ``_``, ``.``, each
    part starting and ending with a letter or digit, no doubled ``-`` or ``.`` (so never a path's parent), 96 at most."""
    parts = repo_id.split("/")
    return len(parts) == 2 and all(_REPO_PART.fullmatch(p) and not _DOUBLED.search(p) for p in parts)


def check_repo_id(repo_id: str, setting: str = "repo_id") -> None:
    """An error naming ``setting`` unless ``repo_id`` is ``ORG/NAME`` (``valid_repo_id``)."""
    if not isinstance(repo_id, str) or not valid_repo_id(repo_id):
        raise OneRulerError(f"{named_setting(setting)} {repo_id!r}: expected ORG/NAME, e.g. my-org/oneruler")


def check_publishable(out_dir: str | os.PathLike) -> tuple[Manifest, list[str]]:
    """Refuse an export that is not safe to publish; return (manifest, repo paths to upload).

    Checks: manifest present, at most 3,000 configs, every shard matches its sha256, the README's
    YAML declares exactly the manifest's configs and shard paths, and ``eval.yaml`` is there exactly
    when the export serves a leaderboard, as its configs give it.
    """
    out = Path(out_dir)
    if not out.is_dir():
        raise OneRulerError(f"{out}: no such folder")
    manifest = read_manifest(out)
    if manifest is None:
        raise OneRulerError(f"{out}: no {MANIFEST_NAME}; build it with `oneruler build ... --out {out}`")
    configs = manifest.configs
    if not configs:
        raise OneRulerError(f"{out}: holds no configs")
    if len(configs) > MAX_CONFIGS:
        aliases = sorted({e.tokenizer.alias for e in configs.values()})
        raise OneRulerError(
            f"{out}: holds {len(configs):,} configs, more than the {MAX_CONFIGS:,} the Hub viewer shows per repository "
            f"(tokenizers: {', '.join(aliases)}); put each token-control tokenizer's configs in its own repository "
            f"(build them into separate {named_setting('out')} folders and push each to its own "
            f"{named_setting('repo_id')})"
        )
    bad = {name: why for name, why in check_shards(out, manifest).items() if why}
    if bad:
        lines = "\n".join(f"  {name}: {why}" for name, why in sorted(bad.items())[:20])
        more = f"\n  … and {len(bad) - 20} more" if len(bad) > 20 else ""
        raise CheckFailed(f"{out}: {len(bad)} shard(s) fail the manifest checksums, refusing to push:\n{lines}{more}")
    readme = out / README_NAME
    if not readme.is_file():
        raise OneRulerError(f"{out}: no {README_NAME}; rebuild with `oneruler build`")
    try:
        meta = parse_front_matter(readme.read_text(encoding="utf-8"))
    except Exception as exc:
        raise CheckFailed(f"{readme}: front matter does not parse ({exc})") from None
    declared = configs_data_files(meta) or {}
    expected = {name: [e.file] for name, e in configs.items()}
    if declared != expected:
        diff = sorted(set(declared) ^ set(expected)) or sorted(n for n in expected if declared.get(n) != expected[n])
        raise CheckFailed(f"{readme}: its configs do not match {MANIFEST_NAME} (e.g. {', '.join(map(str, diff[:5]))}); "
                          f"rebuild with `oneruler build` to regenerate it")
    problem = eval_yaml_problem(out, configs)
    if problem:
        raise CheckFailed(f"{out}: {problem}; rebuild with `oneruler build` to regenerate it")
    benchmark = [EVAL_YAML_NAME] if (out / EVAL_YAML_NAME).is_file() else []
    paths = [README_NAME, MANIFEST_NAME] + benchmark + sorted(e.file for e in configs.values())
    return manifest, paths


def push_dataset(out_dir: str | os.PathLike, repo_id: str, revision: str | None = None, private: bool = False) -> str:
    """Upload an export folder to a Hub dataset repo in one commit; return the commit URL.

    Shards under ``data/`` on the target branch that the export no longer references (and an
    ``eval.yaml`` it no longer has) are deleted in the same commit, so the repository mirrors the folder.
    Every call is bounded and retried (``hub_calls.py``); a commit whose answer was lost is looked for
    before it is sent again; a repository this push created is deleted again when its first commit fails.
    """
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi

    check_repo_id(repo_id)
    out = Path(out_dir)
    manifest, paths = check_publishable(out)
    api = HfApi(token=hub_token())
    created = ensure_repo(api, repo_id, "dataset", private)
    try:
        if revision and revision != "main":
            hub_call(f"creating branch {revision} of dataset {repo_id}",
                     lambda: api.create_branch(repo_id, repo_type="dataset", branch=revision, exist_ok=True))
        remote = set(hub_call(f"the files of dataset {repo_id}",
                              lambda: api.list_repo_files(repo_id, repo_type="dataset", revision=revision)))
        stale = [p for p in sorted(remote - set(paths)) if p.startswith("data/") or p == EVAL_YAML_NAME]
        operations: list = [CommitOperationDelete(path_in_repo=p) for p in stale]
        operations += [CommitOperationAdd(path_in_repo=p, path_or_fileobj=str(out / p)) for p in paths]
        n = len(manifest.configs)
        wanted = {p: out / p for p in paths}
        info = hub_call(f"the commit to dataset {repo_id}", lambda: api.create_commit(
            repo_id, operations, repo_type="dataset", revision=revision,
            commit_message=f"ONERULER export: {plural(n, 'config')}",
            commit_description=f"Uploaded with `oneruler push` ({n} shards, {', '.join(p for p in paths if '/' not in p)})."),
            landed=lambda: landed_commit(api, repo_id, "dataset", revision, wanted, stale))
    except OneRulerError as exc:
        raise undo_creation(api, repo_id, "dataset", created, exc) from None
    return str(getattr(info, "commit_url", info))


def push_metric(repo_id: str, private: bool = False, folder: Path = METRIC_DIR) -> str:
    """Publish the metric as a Gradio Space in one commit so ``evaluate.load(repo_id)`` works.

    ``evaluate`` fetches ``<NAME>.py`` from the Space, so the module is also uploaded under that name.
    """
    from huggingface_hub import CommitOperationAdd, HfApi

    check_repo_id(repo_id)
    files = metric_files(folder)
    api = HfApi(token=hub_token())
    created = ensure_repo(api, repo_id, "space", private)
    wanted = {rel: (folder / rel).read_bytes() for rel in files}
    script = repo_id.split("/")[-1] + ".py"
    if script not in files:
        wanted[script] = (folder / "oneruler.py").read_bytes()
    operations = [CommitOperationAdd(path_in_repo=rel, path_or_fileobj=data) for rel, data in wanted.items()]
    try:
        info = hub_call(f"the commit to Space {repo_id}", lambda: api.create_commit(
            repo_id, operations, repo_type="space", commit_message="ONERULER metric",
            commit_description="Uploaded with `oneruler push-metric`."),
            landed=lambda: landed_commit(api, repo_id, "space", None, wanted, []))
    except OneRulerError as exc:
        raise undo_creation(api, repo_id, "space", created, exc) from None
    return str(getattr(info, "commit_url", info))
