"""A loopback stand-in for the Hugging Face Hub: huggingface.co cannot be reached from these machines.

The real ``huggingface_hub`` client (2.x, uploads with ``HF_HUB_DISABLE_XET=1`` so they use the
git-LFS protocol) and the real ``datasets`` library are pointed at it with
``HF_ENDPOINT=http://127.0.0.1:PORT``; the code under test is the same code that talks to
huggingface.co when no endpoint override is set. It serves two origins, as the Hub does: the Hub
itself (API and ``resolve``), and a storage origin on another port standing in for the S3/CDN
hosts that LFS bytes go to and come from through pre-signed URLs (another origin, so the real
client drops the ``Authorization`` header there, as it does for cdn-lfs.hf.co; like S3, storage
refuses a request that carries one).

Write endpoints (``create_repo``, ``create_branch``, ``upload_folder``/``create_commit``):
  ``POST /api/repos/create``, ``POST /api/validate-yaml``, ``POST /api/{type}s/{repo}/branch/{rev}``,
  ``POST /api/{type}s/{repo}/preupload/{rev}``, ``POST /{prefix}{repo}.git/info/lfs/objects/batch``,
  ``PUT {storage}/lfs-upload/{sha256}?sig=...``, ``POST /api/{type}s/{repo}/commit/{rev}`` (NDJSON).
Read endpoints (``HfApi.dataset_info``/``repo_info``/``list_repo_files``, ``hf_hub_download``,
``HfFileSystem``, ``datasets.load_dataset``), with the real Hub's field names:
  ``GET /api/{type}s/{repo}`` and ``/api/{type}s/{repo}/revision/{rev}``: ``id``, ``sha``,
  ``private``, ``siblings`` (``?blobs=true`` adds ``size``, ``blobId``, ``lfs``), ``cardData``...;
  ``HEAD``/``GET /{prefix}{repo}/resolve/{rev}/{path}``: a regular file answers 200 with
  ``X-Repo-Commit``, ``ETag`` (its git blob sha1), ``Content-Length``, ``Range`` honoured; an LFS
  file answers 302 to storage with ``X-Linked-Etag`` (its sha256) and ``X-Linked-Size``; a missing
  file 404 ``X-Error-Code: EntryNotFound`` (with ``X-Repo-Commit``), a missing revision 404
  ``RevisionNotFound``; ``GET {storage}/lfs-download/{sha256}?sig=...`` (``Range`` honoured);
  ``GET /api/{type}s/{repo}/tree/{rev}[/{path}]?recursive=&expand=`` and
  ``POST /api/{type}s/{repo}/paths-info/{rev}`` (form fields ``paths``, ``expand``): entries
  ``{"type": "file", "path", "size", "oid", "lfs": {"oid", "size", "pointerSize"}}`` and
  ``{"type": "directory", "path", "oid"}``, with ``lastCommit`` ``{"id", "title", "date"}`` when
  expanded; ``GET /api/agent-harnesses`` (the client's agent registry, served empty).
Results endpoints (``oneruler publish``, ``oneruler leaderboard``), as the client sends them:
  ``POST /api/{type}s/{repo}/commit/{rev}?create_pr=1`` (``_commit_api.py:_send_commit``; the
  preupload before it carries the same ``create_pr`` parameter, ``_commit_api.py:_fetch_upload_modes``)
  commits on a new branch ``refs/pr/{N}`` made from ``rev``'s head and answers ``pullRequestUrl``
  ``{hub}/{prefix}{repo}/discussions/{N}`` (``hf_api.py:CommitInfo`` reads the PR's number and
  revision ``refs/pr/{N}`` from it, ``_parse_revision_from_pr_url``), which ``resolve`` then serves;
  ``GET /api/{type}s/{repo}/auth-check`` and ``/auth-check/write`` (``hf_api.py:auth_check``): 200,
  or 403 where the token may not write; ``GET /api/datasets/{repo}/leaderboard``
  (``hf_api.py:get_dataset_leaderboard``, fields of ``DatasetLeaderboardEntry``: ``rank``,
  ``modelId``, ``value``, ``filename``, ``verified``, ``source``, ``author`` ``{type, name}``,
  ``pullRequest``, ``notes``): every ``.eval_results/*.yaml`` entry for this dataset in a model repo's
  main branch or open pull request, for the first task of the dataset's ``eval.yaml`` (the task the
  Hub's leaderboard shows first; the client sends no task), best first; 404 for a dataset without
  ``eval.yaml``. Only the first task: per-task values are read from the results files themselves.
Pull requests and accounts (``publish`` finds its own open pull request, ``push`` removes a repo it made):
  ``GET /api/whoami-v2`` (``hf_api.py:whoami``: ``name``, ``type``, ``orgs``; the token's account is
  ``HubState.user``); ``GET /api/{type}s/{repo}/discussions?author=&type=&status=&p=``
  (``hf_api.py:get_repo_discussions``: ``count``, ``start``, ``discussions`` of ``num``, ``title`` (the
  commit's summary), ``status``, ``isPullRequest``, ``createdAt``, ``author.name``, ``repo``), one page;
  ``DELETE /api/repos/delete`` (``hf_api.py:delete_repo``, body ``name``, ``organization``, ``type``);
  ``POST /api/{type}s/{repo}/discussions/{N}/status`` (``hf_api.py:change_discussion_status``). A pull
  request's author may commit to its branch (``commit/refs%2Fpr%2FN``); ``HubState.open_pull_request`` seeds
  one by another account; only open pull requests count on a leaderboard.
Faults (tests/hub_faults.py): ``HubState.fault(action, path_regex, ...)`` makes the stand-in answer a
status (with ``Retry-After``, ``X-Error-Code``), cut the connection before or after serving the request
(a commit applied, the answer lost), hang, hang after serving, or delay, on the first N matching
requests of either origin; ``HubState.faults`` says how many each took.
A revision is a branch name (``refs/pr/{N}`` included) or any commit sha the repository has had. A
request with a token must carry the right one (else 401); without one, public repositories can be
read, nothing else. The token may write everywhere except in ``HubState.readonly`` namespaces (repos
another account owns, seeded by ``HubState.add_repo``): there it may only open pull requests (a direct
commit, a branch or a new repo answers 403, as the Hub does).

Every request is recorded (origin, method, URL, headers, body) so tests can check where the token
went and what the clients asked for; every committed file is stored so tests compare it byte for
byte with what was pushed. Threaded, bounded (request size cap, socket timeouts), started and
stopped by :func:`running_hub` (a context manager a pytest fixture wraps). Anything else is a 404
naming the request, so a client asking for something new makes a test fail visibly.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator
from urllib.parse import parse_qs, quote, unquote, urlsplit

import yaml
from hub_faults import AFTER, HANG_S, Fault

MAX_BODY = 512 * 1024 * 1024  # refuse anything bigger: the tests push small folders
SOCKET_TIMEOUT_S = 30
GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"
LFS_POINTER_SIZE = 134
DATE = "2025-01-01T00:00:00.000Z"  # every commit's date: the repos' state is deterministic
_TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
_URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}
_COMMIT_SHA = re.compile(r"[0-9a-f]{40}")


@dataclass
class Recorded:
    """One HTTP request as the server received it (``origin`` is ``hub`` or ``storage``)."""

    method: str
    url: str
    headers: dict
    body: bytes
    origin: str = "hub"


@dataclass(frozen=True)
class Blob:
    """A committed file: its bytes, and whether it went through LFS."""

    data: bytes
    lfs: bool


@dataclass
class Commit:
    """One commit: its id, messages, the NDJSON operations, and the files of the tree it made."""

    oid: str
    summary: str
    description: str
    operations: list
    files: dict  # path -> Blob


@dataclass
class Branch:
    """A branch: its commits, oldest first (the last is the head)."""

    commits: list = field(default_factory=list)

    @property
    def files(self) -> dict:
        """The head's files (path -> Blob)."""
        return self.commits[-1].files


@dataclass
class Repo:
    """A repository: type, id, visibility, Space SDK, branches and every commit by sha."""

    repo_type: str
    repo_id: str
    private: bool
    sdk: str | None
    branches: dict = field(default_factory=dict)
    commits: dict = field(default_factory=dict)  # sha -> Commit
    pull_requests: int = 0  # the last PR number given
    discussions: dict = field(default_factory=dict)  # PR number -> {"author", "title", "status"}

    def resolve(self, revision: str) -> tuple[Commit, list]:
        """(commit, history up to it, oldest first) of a branch name or a commit sha; 404 if unknown."""
        if revision in self.branches:
            history = self.branches[revision].commits
            return history[-1], history
        if _COMMIT_SHA.fullmatch(revision) and revision in self.commits:
            for branch in self.branches.values():
                ids = [c.oid for c in branch.commits]
                if revision in ids:
                    return self.commits[revision], branch.commits[: ids.index(revision) + 1]
        raise _Error(404, f"Revision Not Found: {revision}", "RevisionNotFound")


def git_blob_sha1(data: bytes) -> str:
    """The git object id of a blob (what the Hub reports as a regular file's oid and ETag)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class HubState:
    """Repos, LFS objects and the request log, shared by the handler threads of both origins."""

    def __init__(self, token: str):
        self.token = token
        self.lock = threading.Lock()
        self.requests: list[Recorded] = []
        self.repos: dict[tuple[str, str], Repo] = {}
        self.lfs: dict[str, bytes] = {}
        self.signature = hashlib.sha256(f"sig-{id(self)}".encode()).hexdigest()[:24]
        self.hub_url = ""
        self.storage_url = ""
        self.readonly: set[str] = set()  # namespaces the token cannot write to (pull requests only)
        self.user = "tester"  # the token's account (``whoami``), author of the pull requests it opens
        self.faults: list[Fault] = []
        self.stopping = threading.Event()  # set when the stand-in stops: hung requests are let go

    def fault(self, action: str, path: str, **how) -> Fault:
        """Play a fault on the requests ``path`` (a regular expression) matches (hub_faults.py); the Fault."""
        fault = Fault(action, path, **how)
        with self.lock:
            self.faults.append(fault)
        return fault

    def take_fault(self, origin: str, method: str, path: str) -> Fault | None:
        """The first fault that takes this request (counted), or None."""
        with self.lock:
            for fault in self.faults:
                if fault.matches(origin, method, path):
                    fault.hits += 1
                    return fault
        return None

    def open_pull_request(self, repo_type: str, repo_id: str, files: dict[str, bytes], author: str,
                          title: str = "Add evaluation results") -> int:
        """A pull request someone opened (``author``), with ``files`` committed on its branch; its number."""
        with self.lock:
            repo = self.repos[(repo_type, repo_id)]
            repo.pull_requests += 1
            number = repo.pull_requests
            head = repo.branches["main"].commits[-1]
            tree = {**head.files, **{p: Blob(d, p.endswith(".parquet")) for p, d in files.items()}}
            commit = Commit(hashlib.sha1(f"pr {repo_id} {number} {sorted(files)}".encode()).hexdigest(), title, "", [],
                            tree)
            repo.branches[f"refs/pr/{number}"] = Branch([*repo.branches["main"].commits, commit])
            repo.commits[commit.oid] = commit
            repo.discussions[number] = {"author": author, "title": title, "status": "open"}
        return number

    def add_repo(self, repo_type: str, repo_id: str, files: dict[str, bytes] | None = None, writable: bool = True,
                 private: bool = False) -> Repo:
        """A repository made by another hand than the client's (e.g. someone else's model), with ``files`` on main."""
        with self.lock:
            repo = _new_repo(repo_type, repo_id, private, None)
            if files:
                head = repo.branches["main"].commits[-1]
                tree = {**head.files, **{p: Blob(d, p.endswith(".parquet")) for p, d in files.items()}}
                seeded = Commit(hashlib.sha1(f"seed {repo_id} {sorted(files)}".encode()).hexdigest(), "seeded", "", [],
                                tree)
                for data in (d for p, d in files.items() if p.endswith(".parquet")):
                    self.lfs[hashlib.sha256(data).hexdigest()] = data
                repo.branches["main"].commits.append(seeded)
                repo.commits[seeded.oid] = seeded
            self.repos[(repo_type, repo_id)] = repo
            if not writable:
                self.readonly.add(repo_id.split("/")[0])
        return repo

    def pull_requests(self, repo_type: str, repo_id: str) -> dict[int, dict[str, bytes]]:
        """PR number -> the files of its branch."""
        repo = self.repos[(repo_type, repo_id)]
        return {int(name.rsplit("/", 1)[1]): {p: b.data for p, b in branch.files.items()}
                for name, branch in repo.branches.items() if name.startswith("refs/pr/")}

    def repo(self, repo_type: str, repo_id: str) -> Repo | None:
        """A repository, or None."""
        return self.repos.get((repo_type, repo_id))

    def files(self, repo_type: str, repo_id: str, revision: str = "main") -> dict[str, bytes]:
        """The files of a branch (or commit) after its last commit (path -> bytes)."""
        commit, _ = self.repos[(repo_type, repo_id)].resolve(revision)
        return {path: blob.data for path, blob in commit.files.items()}

    def commits(self, repo_type: str, repo_id: str, revision: str = "main") -> list[Commit]:
        """The commits of a branch, oldest first."""
        return list(self.repos[(repo_type, repo_id)].branches[revision].commits)

    def head(self, repo_type: str, repo_id: str, revision: str = "main") -> str:
        """The commit sha a branch points at."""
        return self.repos[(repo_type, repo_id)].branches[revision].commits[-1].oid


class _Error(Exception):
    def __init__(self, status: int, message: str, code: str | None = None, extra: dict | None = None,
                 headers: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.code, self.extra = status, message, code, extra or {}
        self.headers = headers or {}


@dataclass
class _Reply:
    status: int
    body: bytes = b""
    headers: dict = field(default_factory=dict)


def _json(payload, status: int = 200, headers: dict | None = None) -> _Reply:
    return _Reply(status, json.dumps(payload).encode(), {"Content-Type": "application/json", **(headers or {})})


def _flag(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, format, *args) -> None:  # keep test output clean
        pass

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(SOCKET_TIMEOUT_S)

    # ------------------------------------------------------------------ plumbing

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks, total = [], 0
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                total += size
                if total > MAX_BODY:
                    raise _Error(413, "request body too large")
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise _Error(413, "request body too large")
        return self.rfile.read(length) if length else b""

    def _send(self, method: str, reply: _Reply) -> None:
        self.send_response(reply.status)
        headers = {"Content-Length": str(len(reply.body)), **reply.headers}
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(reply.body)

    def _handle(self, method: str) -> None:
        state, origin = self.server.state, self.server.origin
        try:
            body = self._read_body()
        except _Error as exc:
            self._send(method, _json({"error": exc.message}, exc.status))
            self.close_connection = True
            return
        with state.lock:
            state.requests.append(Recorded(method, self.path, dict(self.headers.items()), body, origin))
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        fault = state.take_fault(origin, method, self.path)
        if fault is not None and fault.action not in AFTER:
            if self._before(method, fault):
                return
        try:
            if origin == "storage":
                reply = self._storage(method, url.path, query, body)
            else:
                reply = self._route(method, url.path, query, body)
        except _Error as exc:
            headers = {"X-Error-Message": exc.message, **exc.headers}
            if exc.code:
                headers["X-Error-Code"] = exc.code
            reply = _json({"error": exc.message, **exc.extra}, exc.status, headers)
        except Exception as exc:  # a bug in the stand-in: make it visible to the test
            reply = _json({"error": f"hub_server: {type(exc).__name__}: {exc}"}, 500)
        if fault is not None and fault.action in AFTER:  # done, but the client never hears of it
            if fault.action == "hang-after":
                state.stopping.wait(HANG_S)
            self._cut()
            return
        self._send(method, reply)

    def _before(self, method: str, fault: Fault) -> bool:
        """Play a fault that acts before the request is served; True when it answered (or cut) in its place."""
        if fault.action == "delay":
            self.server.state.stopping.wait(fault.seconds)
            return False
        if fault.action == "status":
            self._send(method, _json({"error": fault.message}, fault.status, fault.headers()))
        elif fault.action == "hang":
            self.server.state.stopping.wait(HANG_S)
            self._cut()
        else:  # cut-before
            self._cut()
        return True

    def _cut(self) -> None:
        """Close the connection without an answer."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._handle("GET")

    def do_HEAD(self) -> None:  # noqa: N802
        self._handle("HEAD")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._handle("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._handle("DELETE")

    # ------------------------------------------------------------------ storage (S3/CDN stand-in)

    def _storage(self, method: str, path: str, query: dict, body: bytes) -> _Reply:
        state = self.server.state
        if "Authorization" in self.headers:  # S3 refuses a second auth mechanism beside the signature
            raise _Error(400, "Only one auth mechanism allowed; the pre-signed URL already authenticates")
        if query.get("sig") != state.signature:
            raise _Error(403, "bad signature")
        m = re.fullmatch(r"/lfs-(upload|download)/([0-9a-f]{64})", path)
        if m and m.group(1) == "upload" and method == "PUT":
            if hashlib.sha256(body).hexdigest() != m.group(2):
                raise _Error(400, f"uploaded bytes do not match oid {m.group(2)}")
            with state.lock:
                state.lfs[m.group(2)] = body
            return _Reply(200)
        if m and m.group(1) == "download" and method in ("GET", "HEAD"):
            data = state.lfs.get(m.group(2))
            if data is None:
                raise _Error(404, "NoSuchKey")
            return self._bytes(data, {"ETag": f'"{m.group(2)}"'})
        raise _Error(404, f"hub_server storage: no endpoint {method} {path}")

    def _bytes(self, data: bytes, headers: dict) -> _Reply:
        """A file's bytes, or the part a ``Range: bytes=a-b`` header asks for (206)."""
        headers = {"Content-Type": "application/octet-stream", "Accept-Ranges": "bytes", **headers}
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", "").strip())
        if not m or not (m.group(1) or m.group(2)):
            return _Reply(200, data, headers)
        if m.group(1):
            start, end = int(m.group(1)), min(int(m.group(2) or len(data) - 1), len(data) - 1)
        else:
            start, end = max(0, len(data) - int(m.group(2))), len(data) - 1
        if start >= len(data) or start > end:
            return _Reply(416, b"", {**headers, "Content-Range": f"bytes */{len(data)}"})
        return _Reply(206, data[start:end + 1], {**headers, "Content-Range": f"bytes {start}-{end}/{len(data)}"})

    # ------------------------------------------------------------------ the Hub origin

    def _authorize(self, method: str, path: str, repo: Repo | None) -> None:
        state = self.server.state
        sent = self.headers.get("Authorization")
        if sent is not None and sent != f"Bearer {state.token}":
            raise _Error(401, "Invalid credentials in Authorization header")
        if sent is None:
            reading = method in ("GET", "HEAD") or "/paths-info/" in path
            if not reading or (repo is not None and repo.private):
                raise _Error(401, "Repository not found", "RepoNotFound")

    def _route(self, method: str, path: str, query: dict, body: bytes) -> _Reply:
        if method == "GET" and path == "/api/agent-harnesses":  # the client's registry of coding agents
            return _json({"standardEnvVars": [], "harnesses": {}})
        m = re.fullmatch(r"/(?:(datasets|spaces)/)?([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
        if m and method in ("GET", "HEAD"):
            repo = self._repo(_TYPES.get(m.group(1) or "models", "model"), m.group(2), method, path)
            return self._resolve(repo, unquote(m.group(3)), unquote(m.group(4)))
        m = re.fullmatch(r"/(?:(datasets|spaces)/)?([^/]+/[^/]+)\.git/info/lfs/objects/batch", path)
        if method == "POST" and m:
            repo = self._repo(_TYPES.get(m.group(1) or "models", "model"), m.group(2), method, path)
            return _json(self._lfs_batch(json.loads(body)))
        self._authorize(method, path, None)
        if method == "POST" and path == "/api/repos/create":
            return self._create_repo(json.loads(body))
        if method == "DELETE" and path == "/api/repos/delete":
            return self._delete_repo(json.loads(body))
        if method == "GET" and path == "/api/whoami-v2":
            return self._whoami()
        if method == "POST" and path == "/api/validate-yaml":
            return _json({"errors": [], "warnings": []})
        m = re.fullmatch(r"/api/(models|datasets|spaces)/([^/]+/[^/]+)/auth-check(/write)?", path)
        if m and method == "GET":
            repo = self._repo(_TYPES[m.group(1)], m.group(2), method, path)
            if m.group(3):
                self._writable(repo)
            return _json({})
        m = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/leaderboard", path)
        if m and method == "GET":
            return _json(self._leaderboard(self._repo("dataset", m.group(1), method, path)))
        m = re.fullmatch(r"/api/(models|datasets|spaces)/([^/]+/[^/]+)/discussions", path)
        if m and method == "GET":
            return _json(self._discussions(self._repo(_TYPES[m.group(1)], m.group(2), method, path), query))
        m = re.fullmatch(r"/api/(models|datasets|spaces)/([^/]+/[^/]+)/discussions/(\d+)/status", path)
        if m and method == "POST":
            return _json(self._status(self._repo(_TYPES[m.group(1)], m.group(2), method, path), int(m.group(3)),
                                      json.loads(body)))
        m = re.fullmatch(r"/api/(models|datasets|spaces)/([^/]+/[^/]+)"
                         r"(?:/(preupload|commit|branch|tree|revision|paths-info)/([^/]+)(/.*)?)?", path)
        if not m:
            raise _Error(404, f"hub_server: no endpoint {method} {path}")
        repo = self._repo(_TYPES[m.group(1)], m.group(2), method, path)
        action, rev = m.group(3) or "revision", unquote(m.group(4) or "main")
        if action == "branch" and method == "POST":
            self._writable(repo)
            return self._create_branch(repo, rev, json.loads(body or b"{}"))
        if action in ("preupload", "commit") and rev not in repo.branches:
            raise _Error(404, f"Revision Not Found: {rev}", "RevisionNotFound")
        if action == "preupload" and method == "POST":
            return _json(self._preupload(json.loads(body), repo.branches[rev]))
        if action == "commit" and method == "POST":
            pull_request = _flag(query.get("create_pr"))
            if not pull_request and not self._own_pull_request(repo, rev):
                self._writable(repo)
            return _json(self._commit(body, repo, rev, pull_request))
        commit, history = repo.resolve(rev)
        if action == "revision" and method == "GET":
            return _json(self._info(repo, commit, _flag(query.get("blobs"))))
        if action == "tree" and method == "GET":
            where = unquote((m.group(5) or "").strip("/"))
            return _json(self._tree(commit, history, where, _flag(query.get("recursive")), _flag(query.get("expand"))))
        if action == "paths-info" and method == "POST":
            form = parse_qs(body.decode(), keep_blank_values=True)
            expand = _flag((form.get("expand") or [""])[-1])
            return _json([e for p in form.get("paths", []) if (e := self._entry(commit, history, p.strip("/"), expand))])
        raise _Error(404, f"hub_server: no endpoint {method} {path}")

    def _repo(self, repo_type: str, repo_id: str, method: str, path: str) -> Repo:
        repo = self.server.state.repo(repo_type, repo_id)
        self._authorize(method, path, repo)
        if repo is None:
            raise _Error(404, f"Repository Not Found for url: {repo_type} {repo_id}", "RepoNotFound")
        return repo

    def _info(self, repo: Repo, commit: Commit, blobs: bool) -> dict:
        """What ``GET /api/{type}s/{repo}[/revision/{rev}]`` answers (the Hub's field names)."""
        siblings = []
        for path, blob in sorted(commit.files.items()):
            sibling = {"rfilename": path}
            if blobs:
                sibling.update(size=len(blob.data), blobId=git_blob_sha1(self._stored(blob)))
                if blob.lfs:
                    sibling["lfs"] = {"sha256": hashlib.sha256(blob.data).hexdigest(), "size": len(blob.data),
                                      "pointerSize": LFS_POINTER_SIZE}
            siblings.append(sibling)
        info = {"_id": hashlib.sha1(repo.repo_id.encode()).hexdigest()[:24], "id": repo.repo_id,
                "author": repo.repo_id.split("/")[0], "sha": commit.oid, "lastModified": DATE, "createdAt": DATE,
                "private": repo.private, "gated": False, "disabled": False, "downloads": 0, "likes": 0, "tags": [],
                "siblings": siblings}
        card = commit.files.get("README.md")
        front = re.match(rb"---\r?\n(.*?)\r?\n---", card.data, re.S) if card else None
        if front:
            info["cardData"] = yaml.safe_load(front.group(1).decode("utf-8"))
        if repo.repo_type == "space":
            info["sdk"] = repo.sdk
        return info

    @staticmethod
    def _stored(blob: Blob) -> bytes:
        """What git stores for a file: its bytes, or for an LFS file its pointer."""
        if not blob.lfs:
            return blob.data
        return (f"version https://git-lfs.github.com/spec/v1\noid sha256:{hashlib.sha256(blob.data).hexdigest()}\n"
                f"size {len(blob.data)}\n").encode()

    def _resolve(self, repo: Repo, rev: str, path: str) -> _Reply:
        state = self.server.state
        commit, _ = repo.resolve(rev)
        blob = commit.files.get(path)
        if blob is None:
            raise _Error(404, "Entry not found", "EntryNotFound", headers={"X-Repo-Commit": commit.oid})
        if blob.lfs:
            sha256 = hashlib.sha256(blob.data).hexdigest()
            location = f"{state.storage_url}/lfs-download/{sha256}?sig={state.signature}&name={quote(path, safe='')}"
            return _Reply(302, b"", {"Location": location, "X-Repo-Commit": commit.oid, "ETag": f'"{sha256}"',
                                     "X-Linked-Etag": f'"{sha256}"', "X-Linked-Size": str(len(blob.data))})
        return self._bytes(blob.data, {"X-Repo-Commit": commit.oid, "ETag": f'"{git_blob_sha1(blob.data)}"'})

    def _entry(self, commit: Commit, history: list, path: str, expand: bool) -> dict | None:
        """A tree entry (file or directory) as ``tree`` and ``paths-info`` list it; None if absent."""
        blob = commit.files.get(path)
        if blob is not None:
            entry = {"type": "file", "oid": git_blob_sha1(self._stored(blob)), "size": len(blob.data), "path": path}
            if blob.lfs:
                entry["lfs"] = {"oid": hashlib.sha256(blob.data).hexdigest(), "size": len(blob.data),
                                "pointerSize": LFS_POINTER_SIZE}
        else:
            inside = sorted(p for p in commit.files if p.startswith(path + "/")) if path else sorted(commit.files)
            if not inside:
                return None
            listing = "\n".join(f"{p} {git_blob_sha1(self._stored(commit.files[p]))}" for p in inside)
            entry = {"type": "directory", "oid": hashlib.sha1(listing.encode()).hexdigest(), "size": 0, "path": path}
        if expand:
            last = next(c for c in reversed(history) if self._touched(c, history, path))
            entry["lastCommit"] = {"id": last.oid, "title": last.summary, "date": DATE}
        return entry

    @staticmethod
    def _touched(commit: Commit, history: list, path: str) -> bool:
        """Whether ``commit`` changed ``path`` (a file, or anything under a folder) against its parent."""
        at = history.index(commit)
        before = history[at - 1].files if at else {}

        def under(files: dict) -> dict:
            return {p: b for p, b in files.items() if p == path or p.startswith(path + "/")}

        return at == 0 or under(before) != under(commit.files)

    def _tree(self, commit: Commit, history: list, where: str, recursive: bool, expand: bool) -> list:
        if where and self._entry(commit, history, where, False) is None:
            raise _Error(404, f"Entry not found: {where}", "EntryNotFound")
        prefix = where + "/" if where else ""
        paths: set[str] = set()
        for path in commit.files:
            if not path.startswith(prefix):
                continue
            parts = path[len(prefix):].split("/")
            depth = len(parts) if recursive else 1
            paths.update(prefix + "/".join(parts[:n]) for n in range(1, min(depth, len(parts)) + 1))
        return [self._entry(commit, history, p, expand) for p in sorted(paths)]

    def _create_repo(self, payload: dict) -> _Reply:
        state = self.server.state
        repo_type = payload.get("type") or "model"
        repo_id = f"{payload.get('organization') or state.user}/{payload['name']}"
        url = f"{state.hub_url}/{_URL_PREFIX[repo_type]}{repo_id}"
        with state.lock:
            if (repo_type, repo_id) in state.repos:
                raise _Error(409, "You already created this repo", extra={"url": url})  # as the Hub answers
            if repo_type == "space" and not payload.get("sdk"):
                raise _Error(400, "sdk is required for a Space")
            if repo_id.split("/")[0] in state.readonly:
                raise _Error(403, f"You don't have the rights to create a {repo_type} under the namespace "
                                  f"{repo_id.split('/')[0]}")
            repo = _new_repo(repo_type, repo_id, payload.get("visibility") == "private", payload.get("sdk"))
            state.repos[(repo_type, repo_id)] = repo
        return _json({"url": url, "name": repo_id})

    def _create_branch(self, repo: Repo, name: str, payload: dict) -> _Reply:
        with self.server.state.lock:
            if name in repo.branches:
                raise _Error(409, f"Branch {name} already exists")
            _, history = repo.resolve(payload.get("startingPoint") or "main")
            repo.branches[name] = Branch(list(history))
        return _json({})

    def _preupload(self, payload: dict, branch: Branch) -> dict:
        out = []
        for f in payload["files"]:
            lfs = f["path"].endswith(".parquet") or f["size"] > 10 * 1024 * 1024
            existing = branch.files.get(f["path"])
            oid = None
            if existing is not None:
                oid = hashlib.sha256(existing.data).hexdigest() if lfs else git_blob_sha1(existing.data)
            out.append({"path": f["path"], "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False, "oid": oid})
        return {"files": out}

    def _lfs_batch(self, payload: dict) -> dict:
        state = self.server.state
        objects = []
        for obj in payload["objects"]:
            item = {"oid": obj["oid"], "size": obj["size"]}
            if obj["oid"] not in state.lfs:
                item["actions"] = {"upload": {
                    "href": f"{state.storage_url}/lfs-upload/{obj['oid']}?sig={state.signature}", "header": {}}}
            objects.append(item)
        return {"transfer": "basic", "objects": objects}

    def _own_pull_request(self, repo: Repo, rev: str) -> bool:
        """Whether ``rev`` is the branch of an open pull request the token's account opened (its author may push)."""
        m = re.fullmatch(r"refs/pr/(\d+)", rev)
        found = repo.discussions.get(int(m.group(1))) if m else None
        return found is not None and found["author"] == self.server.state.user and found["status"] == "open"

    def _whoami(self) -> _Reply:
        state = self.server.state
        return _json({"type": "user", "name": state.user, "fullname": state.user,
                      "orgs": [{"name": n} for n in ("my-org",)], "auth": {"type": "access_token"}})

    def _delete_repo(self, payload: dict) -> _Reply:
        state = self.server.state
        repo_type = payload.get("type") or "model"
        repo_id = f"{payload.get('organization') or state.user}/{payload['name']}"
        with state.lock:
            if (repo_type, repo_id) not in state.repos:
                raise _Error(404, f"Repository Not Found for url: {repo_type} {repo_id}", "RepoNotFound")
            if repo_id.split("/")[0] in state.readonly:
                raise _Error(403, f"You don't have the rights to delete {repo_id}")
            del state.repos[(repo_type, repo_id)]
        return _json({})

    def _discussions(self, repo: Repo, query: dict) -> dict:
        """``GET .../discussions`` (``hf_api.py:get_repo_discussions``): one page holding every match."""
        found = []
        for number, d in sorted(repo.discussions.items(), reverse=True):
            if query.get("author") not in (None, d["author"]) or query.get("status") not in (None, "all", d["status"]):
                continue
            if query.get("type") not in (None, "all", "pull_request"):
                continue
            found.append({"num": number, "title": d["title"], "status": d["status"], "isPullRequest": True,
                          "createdAt": DATE, "author": {"name": d["author"]},
                          "repo": {"name": repo.repo_id, "type": repo.repo_type}})
        return {"count": len(found), "start": 0, "discussions": found if int(query.get("p", 0)) == 0 else []}

    def _status(self, repo: Repo, number: int, payload: dict) -> dict:
        """``POST .../discussions/{N}/status`` (``hf_api.py:change_discussion_status``): its author (or a writer)
        opens or closes it; answers ``newStatus`` as a status-change event (``community.py:deserialize_event``)."""
        state = self.server.state
        with state.lock:
            found = repo.discussions.get(number)
            if found is None:
                raise _Error(404, f"Discussion {number} not found")
            if found["author"] != state.user and repo.repo_id.split("/")[0] in state.readonly:
                raise _Error(403, "Only the author or a writer may change the status")
            found["status"] = payload["status"]
        return {"newStatus": {"id": f"status-{number}", "type": "status-change", "createdAt": DATE,
                              "author": {"name": state.user}, "data": {"status": payload["status"]}}}

    def _writable(self, repo: Repo) -> None:
        """403 unless the token may write to ``repo`` (anyone may open a pull request)."""
        if repo.repo_id.split("/")[0] in self.server.state.readonly:
            raise _Error(403, f"You don't have the rights to write to {repo.repo_id}; open a pull request instead")

    def _commit(self, body: bytes, repo: Repo, rev: str, pull_request: bool = False) -> dict:
        state = self.server.state
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            raise _Error(400, "commit payload must start with a header line")
        header = lines[0]["value"]
        pr_url = None
        with state.lock:
            if pull_request:  # a new branch refs/pr/N from rev's head, as the Hub makes for a pull request
                repo.pull_requests += 1
                repo.discussions[repo.pull_requests] = {"author": state.user, "title": header.get("summary", ""),
                                                        "status": "open"}
                repo.branches[f"refs/pr/{repo.pull_requests}"] = Branch(list(repo.branches[rev].commits))
                rev = f"refs/pr/{repo.pull_requests}"
                pr_url = f"{state.hub_url}/{_URL_PREFIX[repo.repo_type]}{repo.repo_id}/discussions/{repo.pull_requests}"
            branch = repo.branches[rev]
            files = dict(branch.files)
            for item in lines[1:]:
                _apply(state, files, item["key"], item["value"])
            parent = branch.commits[-1].oid
            oid = hashlib.sha1((parent + json.dumps(lines, sort_keys=True)).encode()).hexdigest()
            commit = Commit(oid, header.get("summary", ""), header.get("description", ""), lines[1:], files)
            branch.commits.append(commit)
            repo.commits[oid] = commit
        url = f"{state.hub_url}/{_URL_PREFIX[repo.repo_type]}{repo.repo_id}/commit/{oid}"
        return {"commitUrl": url, "commitOid": oid, "pullRequestUrl": pr_url}

    def _leaderboard(self, dataset: Repo) -> list:
        """The dataset's leaderboard for the first task of its eval.yaml: one entry per results entry, best first."""
        state = self.server.state
        benchmark = dataset.branches["main"].files.get("eval.yaml")
        if benchmark is None:
            raise _Error(404, f"{dataset.repo_id} has no leaderboard (no eval.yaml)")
        tasks = yaml.safe_load(benchmark.data).get("tasks") or [{}]
        task = tasks[0].get("id")
        found = []
        for (kind, model_id), repo in sorted(state.repos.items()):
            for name, branch in sorted(repo.branches.items()) if kind == "model" and not repo.private else ():
                pr = int(name.rsplit("/", 1)[1]) if name.startswith("refs/pr/") else None
                if (pr is None and name != "main") or (pr is not None and repo.discussions[pr]["status"] != "open"):
                    continue
                for path, blob in sorted(branch.files.items()):
                    if path.startswith(".eval_results/") and path.endswith((".yaml", ".yml")):
                        found += [_leaderboard_row(model_id, path, pr, e) for e in yaml.safe_load(blob.data) or []
                                  if e.get("dataset", {}).get("id") == dataset.repo_id
                                  and e["dataset"].get("task_id") == task]
        found.sort(key=lambda r: (-_number(r["value"]), r["modelId"], r["pullRequest"] or 0))
        return [{"rank": n, **row} for n, row in enumerate(found, 1)]


def _number(value) -> float:
    """A value to sort by (what is not a number sorts last; the Hub stores what a results file says)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return float("-inf")
    return number if number == number else float("-inf")


def _leaderboard_row(model_id: str, filename: str, pull_request: int | None, entry: dict) -> dict:
    """One ``DatasetLeaderboardEntry`` as the Hub sends it (camelCase keys; ``source`` always present)."""
    source = entry.get("source")
    return {"modelId": model_id, "value": entry["value"], "filename": filename, "verified": "verifyToken" in entry,
            "source": {"url": source["url"], "name": source.get("name"), "isExternal": True} if source else None,
            "author": {"type": "user", "name": model_id.split("/")[0]}, "pullRequest": pull_request,
            "notes": entry.get("notes")}


def _new_repo(repo_type: str, repo_id: str, private: bool, sdk: str | None) -> Repo:
    """A repository with its initial commit (``.gitattributes``) on main."""
    repo = Repo(repo_type, repo_id, private, sdk)
    first = Commit(hashlib.sha1(f"init {repo_type} {repo_id}".encode()).hexdigest(), "initial commit", "", [],
                   {".gitattributes": Blob(GITATTRIBUTES, False)})
    repo.branches["main"] = Branch([first])
    repo.commits[first.oid] = first
    return repo


def _apply(state: HubState, files: dict, key: str, value: dict) -> None:
    """One operation of a commit, applied to ``files`` (path -> Blob)."""
    if key == "file":
        files[value["path"]] = Blob(base64.b64decode(value["content"]), False)
    elif key == "lfsFile":
        data = state.lfs.get(value["oid"])
        if data is None or len(data) != value["size"]:
            raise _Error(400, f"LFS object {value['oid']} for {value['path']} was never uploaded")
        files[value["path"]] = Blob(data, True)
    elif key == "deletedFile":
        if value["path"] not in files:
            raise _Error(404, "A file with this name doesn't exist", "EntryNotFound")
        del files[value["path"]]
    elif key == "deletedFolder":
        prefix = value["path"].rstrip("/") + "/"
        for p in [p for p in files if p.startswith(prefix)]:
            del files[p]
    else:
        raise _Error(400, f"unsupported commit operation {key!r}")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 16

    def __init__(self, state: HubState, origin: str):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state, self.origin = state, origin

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@contextlib.contextmanager
def running_hub(token: str) -> Iterator[tuple[str, HubState]]:
    """Start the stand-in Hub and its storage origin on 127.0.0.1 (free ports); yield (endpoint, state); stop."""
    state = HubState(token)
    servers = [_Server(state, "hub"), _Server(state, "storage")]
    state.hub_url, state.storage_url = servers[0].url, servers[1].url
    threads = [threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True) for s in servers]
    for thread in threads:
        thread.start()
    try:
        yield state.hub_url, state
    finally:
        state.stopping.set()
        for server, thread in zip(servers, threads):
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)
