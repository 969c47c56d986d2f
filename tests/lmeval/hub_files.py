"""A loopback stand-in for the Hugging Face Hub's file downloads (the Hub cannot be reached from here).

It serves one dataset repo, the files of a local folder, at the two requests ``hf_hub_download``
makes: ``HEAD`` and ``GET {endpoint}/datasets/{repo}/resolve/{revision}/{path}`` (with the
``X-Repo-Commit``, ``ETag`` and ``Content-Length`` headers the real Hub sends for a plain file).
The client is pointed at it with ``HF_ENDPOINT``; everything else is the real ``huggingface_hub``.
Every request path is recorded.
"""

from __future__ import annotations

import hashlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class HubFiles:
    """``with HubFiles("org/name", folder) as hub: ... hub.endpoint ...``."""

    def __init__(self, repo_id: str, folder: Path):
        self.prefix = f"/datasets/{repo_id}/resolve/"
        self.folder = Path(folder)
        self.paths: list[str] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        """The value for ``HF_ENDPOINT``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "HubFiles":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    def file_for(self, url_path: str) -> Path | None:
        """The served file of a resolve URL, or None."""
        path = unquote(url_path.split("?")[0])
        if not path.startswith(self.prefix):
            return None
        revision, _, rel = path[len(self.prefix):].partition("/")
        target = (self.folder / rel).resolve()
        if revision not in ("main", COMMIT) or not target.is_relative_to(self.folder.resolve()) or not target.is_file():
            return None
        return target

    def _handler(self):
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self, body: bool) -> None:
                hub.paths.append(self.path)
                target = hub.file_for(self.path)
                if target is None:
                    self.send_response(404)
                    self.send_header("X-Error-Code", "EntryNotFound")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                data = target.read_bytes()
                self.send_response(200)
                self.send_header("X-Repo-Commit", COMMIT)
                self.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def do_HEAD(self):  # noqa: N802 - http.server's naming
                self._answer(body=False)

            def do_GET(self):  # noqa: N802
                self._answer(body=True)

            def log_message(self, *args):
                pass

        return Handler
