"""A loopback stand-in for the Hugging Face Hub, which cannot be reached from these machines.

It implements, on 127.0.0.1, exactly the HTTP endpoints that the real ``huggingface_hub`` client
(2.x, with ``HF_HUB_DISABLE_XET=1`` so uploads use the git-LFS protocol) calls for
``create_repo``, ``create_branch``, ``create_commit``/``upload_folder`` (validate-yaml, preupload,
LFS batch, LFS PUT to a pre-signed URL that carries no token, as on S3, commit), ``list_repo_files`` (tree) and ``repo_info``. Point the client at it
with ``HF_ENDPOINT=http://127.0.0.1:PORT``; the code under test is the same code that talks to
huggingface.co when no endpoint override is set.

Every request is recorded (method, URL, headers, body) so tests can check where the token went,
and every committed file is stored so tests can compare it byte for byte with what was pushed.
The server is threaded, bounded (request size cap, socket timeouts) and started/stopped by
:func:`running_hub` (a context manager a pytest fixture wraps).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator
from urllib.parse import unquote, urlsplit

MAX_BODY = 512 * 1024 * 1024  # refuse anything bigger: the tests push small folders
SOCKET_TIMEOUT_S = 30
GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"
_TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
_URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}


@dataclass
class Recorded:
    """One HTTP request as the server received it."""

    method: str
    url: str
    headers: dict
    body: bytes


@dataclass
class Branch:
    files: dict = field(default_factory=dict)  # path -> bytes
    commits: list = field(default_factory=list)  # dicts: oid, summary, description, operations


@dataclass
class Repo:
    repo_type: str
    repo_id: str
    private: bool
    sdk: str | None
    branches: dict = field(default_factory=dict)


def git_blob_sha1(data: bytes) -> str:
    """The git object id of a blob (what the Hub reports as a regular file's oid)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class HubState:
    """Repos, LFS objects and the request log, shared by the handler threads."""

    def __init__(self, token: str):
        self.token = token
        self.lock = threading.Lock()
        self.requests: list[Recorded] = []
        self.repos: dict[tuple[str, str], Repo] = {}
        self.lfs: dict[str, bytes] = {}
        self.upload_signature = hashlib.sha256(f"sig-{id(self)}".encode()).hexdigest()[:24]

    def repo(self, repo_type: str, repo_id: str) -> Repo | None:
        return self.repos.get((repo_type, repo_id))

    def files(self, repo_type: str, repo_id: str, revision: str = "main") -> dict[str, bytes]:
        """The files of a branch after the last commit (path -> bytes)."""
        return dict(self.repos[(repo_type, repo_id)].branches[revision].files)

    def commits(self, repo_type: str, repo_id: str, revision: str = "main") -> list[dict]:
        return list(self.repos[(repo_type, repo_id)].branches[revision].commits)


class _Error(Exception):
    def __init__(self, status: int, message: str, code: str | None = None, extra: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.code, self.extra = status, message, code, extra or {}


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

    def _send(self, status: int, payload=None, headers: dict | None = None) -> None:
        body = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _handle(self, method: str) -> None:
        state = self.server.state
        try:
            body = self._read_body()
        except _Error as exc:
            self._send(exc.status, {"error": exc.message})
            self.close_connection = True
            return
        with state.lock:
            state.requests.append(Recorded(method, self.path, dict(self.headers.items()), body))
        try:
            presigned = urlsplit(self.path).path.startswith("/lfs-upload/")  # like S3: signed URL, no token
            if presigned:
                if f"sig={state.upload_signature}" not in (urlsplit(self.path).query or ""):
                    raise _Error(403, "bad upload signature")
            elif self.headers.get("Authorization") != f"Bearer {state.token}":
                raise _Error(401, "Invalid credentials in Authorization header", "RepoNotFound")
            status, payload = self._route(method, urlsplit(self.path).path, body)
            self._send(status, payload)
        except _Error as exc:
            self._send(exc.status, {"error": exc.message, **exc.extra}, {"X-Error-Code": exc.code} if exc.code else None)
        except Exception as exc:  # a bug in the stand-in: make it visible to the test
            self._send(500, {"error": f"hub_server: {type(exc).__name__}: {exc}"})

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    # ------------------------------------------------------------------ endpoints

    def _route(self, method: str, path: str, body: bytes):
        state = self.server.state
        base = f"http://{self.server.server_address[0]}:{self.server.server_address[1]}"
        if method == "POST" and path == "/api/repos/create":
            return self._create_repo(json.loads(body), base)
        if method == "POST" and path == "/api/validate-yaml":
            return 200, {"errors": [], "warnings": []}
        if method == "PUT" and path.startswith("/lfs-upload/"):
            oid = path.rsplit("/", 1)[1]
            if hashlib.sha256(body).hexdigest() != oid:
                raise _Error(400, f"uploaded bytes do not match oid {oid}")
            with state.lock:
                state.lfs[oid] = body
            return 200, None
        m = re.fullmatch(r"/(?:(datasets|spaces)/)?([^/]+/[^/]+)\.git/info/lfs/objects/batch", path)
        if method == "POST" and m:
            repo = self._repo(_TYPES.get(m.group(1) or "models", "model"), m.group(2))
            return 200, self._lfs_batch(json.loads(body), base, repo)
        m = re.fullmatch(r"/api/(models|datasets|spaces)/([^/]+/[^/]+)(?:/(preupload|commit|branch|tree|revision)/([^/]+)(/.*)?)?", path)
        if not m:
            raise _Error(404, f"hub_server: no endpoint {method} {path}")
        repo = self._repo(_TYPES[m.group(1)], m.group(2))
        action, rev = m.group(3), unquote(m.group(4) or "main")
        if action is None and method == "GET":
            rev, action = "main", "revision"
        if action == "branch" and method == "POST":
            return self._create_branch(repo, rev, json.loads(body or b"{}"))
        branch = repo.branches.get(rev)
        if branch is None:
            raise _Error(404, f"Revision Not Found: {rev}", "RevisionNotFound")
        if action == "preupload" and method == "POST":
            return 200, self._preupload(json.loads(body), branch)
        if action == "commit" and method == "POST":
            return 200, self._commit(body, repo, rev, branch, base)
        if action == "tree" and method == "GET":
            return 200, self._tree(branch, unquote((m.group(5) or "").lstrip("/")))
        if action == "revision" and method == "GET":
            sha = branch.commits[-1]["oid"] if branch.commits else "0" * 40
            return 200, {"id": repo.repo_id, "sha": sha, "private": repo.private,
                         "siblings": [{"rfilename": p} for p in sorted(branch.files)]}
        raise _Error(404, f"hub_server: no endpoint {method} {path}")

    def _repo(self, repo_type: str, repo_id: str) -> Repo:
        repo = self.server.state.repo(repo_type, repo_id)
        if repo is None:
            raise _Error(404, f"Repository Not Found for url: {repo_type} {repo_id}", "RepoNotFound")
        return repo

    def _create_repo(self, payload: dict, base: str):
        state = self.server.state
        repo_type = payload.get("type") or "model"
        repo_id = f"{payload.get('organization') or 'user'}/{payload['name']}"
        url = f"{base}/{_URL_PREFIX[repo_type]}{repo_id}"
        with state.lock:
            if (repo_type, repo_id) in state.repos:
                raise _Error(409, "You already created this repo", extra={"url": url})  # as the Hub answers
            if repo_type == "space" and not payload.get("sdk"):
                raise _Error(400, "sdk is required for a Space")
            repo = Repo(repo_type, repo_id, payload.get("visibility") == "private", payload.get("sdk"))
            main = Branch(files={".gitattributes": GITATTRIBUTES})
            main.commits.append({"oid": hashlib.sha1(f"init {repo_type} {repo_id}".encode()).hexdigest(),
                                 "summary": "initial commit", "description": "", "operations": []})
            repo.branches["main"] = main
            state.repos[(repo_type, repo_id)] = repo
        return 200, {"url": url, "name": repo_id}

    def _create_branch(self, repo: Repo, name: str, payload: dict):
        with self.server.state.lock:
            if name in repo.branches:
                raise _Error(409, f"Branch {name} already exists")
            start = repo.branches[payload.get("startingPoint") or "main"]
            repo.branches[name] = Branch(files=dict(start.files), commits=list(start.commits))
        return 200, {}

    def _preupload(self, payload: dict, branch: Branch):
        out = []
        for f in payload["files"]:
            lfs = f["path"].endswith(".parquet") or f["size"] > 10 * 1024 * 1024
            existing = branch.files.get(f["path"])
            oid = None
            if existing is not None:
                oid = hashlib.sha256(existing).hexdigest() if lfs else git_blob_sha1(existing)
            out.append({"path": f["path"], "uploadMode": "lfs" if lfs else "regular", "shouldIgnore": False, "oid": oid})
        return {"files": out}

    def _lfs_batch(self, payload: dict, base: str, repo: Repo):
        objects = []
        for obj in payload["objects"]:
            item = {"oid": obj["oid"], "size": obj["size"]}
            if obj["oid"] not in self.server.state.lfs:
                item["actions"] = {"upload": {
                    "href": f"{base}/lfs-upload/{obj['oid']}?sig={self.server.state.upload_signature}", "header": {}}}
            objects.append(item)
        return {"transfer": "basic", "objects": objects}

    def _commit(self, body: bytes, repo: Repo, rev: str, branch: Branch, base: str):
        state = self.server.state
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            raise _Error(400, "commit payload must start with a header line")
        header = lines[0]["value"]
        with state.lock:
            files = dict(branch.files)
            for item in lines[1:]:
                key, value = item["key"], item["value"]
                if key == "file":
                    files[value["path"]] = base64.b64decode(value["content"])
                elif key == "lfsFile":
                    data = state.lfs.get(value["oid"])
                    if data is None or len(data) != value["size"]:
                        raise _Error(400, f"LFS object {value['oid']} for {value['path']} was never uploaded")
                    files[value["path"]] = data
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
            parent = branch.commits[-1]["oid"] if branch.commits else ""
            oid = hashlib.sha1((parent + json.dumps(lines, sort_keys=True)).encode()).hexdigest()
            branch.files = files
            branch.commits.append({"oid": oid, "summary": header.get("summary", ""),
                                   "description": header.get("description", ""), "operations": lines[1:]})
        url = f"{base}/{_URL_PREFIX[repo.repo_type]}{repo.repo_id}/commit/{oid}"
        return {"commitUrl": url, "commitOid": oid, "pullRequestUrl": None}

    def _tree(self, branch: Branch, prefix: str):
        out = []
        for path in sorted(branch.files):
            if prefix and not path.startswith(prefix.rstrip("/") + "/"):
                continue
            data = branch.files[path]
            entry = {"type": "file", "path": path, "size": len(data), "oid": git_blob_sha1(data)}
            if path.endswith(".parquet"):
                entry["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 134}
            out.append(entry)
        return out


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 16
    state: HubState


@contextlib.contextmanager
def running_hub(token: str) -> Iterator[tuple[str, HubState]]:
    """Start the stand-in Hub on 127.0.0.1 (a free port); yield (endpoint URL, state); stop it."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.state = HubState(token)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server.state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
