"""``oneruler push`` against a failing Hub (issue 36, case 9): never a traceback, one line per failure, a commit whose
answer was cut found on the Hub instead of sent twice, no empty repository left by a failing first commit. The real
CLI against the Hub stand-in (tests/hub_server.py) with the faults of tests/hub_faults.py."""

from __future__ import annotations

import hashlib

import pytest
from hub_client import oneruler
from publish_world import error_line


@pytest.fixture
def hub(world, tmp_path):
    """The world, its export's LFS objects forgotten by the stand-in's storage (so a push uploads them again)."""
    export = world["root"] / "export"
    for shard in sorted((export / "data").glob("*/*.parquet"))[:3]:
        world["state"].lfs.pop(hashlib.sha256(shard.read_bytes()).hexdigest(), None)
    yield world
    world["state"].faults.clear()


def push(hub, repo: str, **extra):
    result = oneruler(["push", str(hub["root"] / "export"), "--repo-id", repo], {**hub["env"], **extra}, hub["root"])
    assert "Traceback" not in result.stderr and hub["token"] not in result.stdout + result.stderr, result.stderr
    return result


def test_a_commit_applied_before_the_cut_is_not_sent_again(hub):
    state = hub["state"]
    state.fault("cut-after", r"/api/datasets/my-org/cut-after/commit/main", method="POST")
    done = push(hub, "my-org/cut-after")
    assert done.returncode == 0, done.stderr
    assert "the commit to dataset my-org/cut-after: the connection was cut before the Hub answered; the Hub had " \
           "applied it" in done.stderr
    head = state.head("dataset", "my-org/cut-after")
    assert done.stdout.strip().endswith(f"/datasets/my-org/cut-after/commit/{head}")
    assert len(state.commits("dataset", "my-org/cut-after")) == 2  # the repo's first commit and ours, once
    state.fault("cut-before", r"/api/datasets/my-org/cut-before/commit/main", method="POST")
    again = push(hub, "my-org/cut-before")
    assert again.returncode == 0 and "waiting 1 s before try 2 of 4" in again.stderr
    assert len(state.commits("dataset", "my-org/cut-before")) == 2


def test_cut_uploads_are_retried_and_a_lost_upload_is_one_line(hub):
    state = hub["state"]
    state.fault("cut-before", r"lfs-upload", origin="storage", method="PUT", times=2)
    once = push(hub, "my-org/cut-upload")
    assert once.returncode == 0, once.stderr
    assert state.faults[0].hits == 2 and state.signature not in once.stderr
    for shard in sorted((hub["root"] / "export" / "data").glob("*/*.parquet"))[:1]:
        state.lfs.pop(hashlib.sha256(shard.read_bytes()).hexdigest(), None)
    state.fault("cut-before", r"lfs-upload", origin="storage", method="PUT", times=None)
    lost = error_line(push(hub, "my-org/lost-upload"))
    assert lost.startswith("error: the commit to dataset my-org/lost-upload: ") and "(gave up" not in lost
    assert lost.endswith("; the dataset repo my-org/lost-upload this command created was deleted again")
    assert state.repo("dataset", "my-org/lost-upload") is None


def test_a_conflict_on_create_and_a_failing_first_commit_leave_nothing(hub):
    state = hub["state"]
    state.fault("status", r"/api/repos/create", status=409, message="Cannot create repo: another conflicting "
                "operation is in progress", times=None)
    conflict = error_line(push(hub, "my-org/conflict"))
    assert conflict == ("error: creating dataset repo my-org/conflict: the Hub answered 409 Conflict 5 times in a row "
                        "to creating the repository")
    state.faults.clear()
    state.fault("status", r"/api/repos/create", status=409, message="conflict")
    assert error_line(push(hub, "my-org/conflict")) == (
        "error: creating dataset repo my-org/conflict: HTTP 409 Conflict: conflict")
    assert state.repo("dataset", "my-org/conflict") is None
    state.fault("status", r"/api/datasets/my-org/first-fails/commit/main", status=400, times=None,
                message="Invalid metadata in README.md.\n- configs: must be a list\n- license: unknown", in_header=False)
    refused = error_line(push(hub, "my-org/first-fails"))
    assert refused.startswith("error: the commit to dataset my-org/first-fails: HTTP 400 Bad Request: ")
    assert "Invalid metadata in README.md. - configs: must be a list - license: unknown" in refused
    assert refused.endswith("; the dataset repo my-org/first-fails this command created was deleted again")
    assert state.repo("dataset", "my-org/first-fails") is None
    state.add_repo("dataset", "my-org/existing")
    state.fault("status", r"/api/datasets/my-org/existing/commit/main", status=503, retry_after="0", times=None)
    kept = error_line(push(hub, "my-org/existing"))
    assert "HTTP 503" in kept and "(gave up after 4 tries)" in kept and "deleted" not in kept
    assert state.repo("dataset", "my-org/existing") is not None  # not ours: never deleted
