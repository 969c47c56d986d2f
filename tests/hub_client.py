"""The client side of the Hub tests: ``oneruler`` subprocesses pointed at the stand-in of hub_server.py.

huggingface_hub and datasets read ``HF_ENDPOINT`` and the offline switches when imported, so the
real clients run in a subprocess whose environment :func:`client_env` builds: none of this test
process's ``HF_*`` variables (the suite's ``HF_HUB_OFFLINE=1`` included), the stand-in's endpoint,
every cache under a test folder, uploads over git-LFS (``HF_HUB_DISABLE_XET=1``). :func:`oneruler`
runs a command in it; :func:`token_leaks` lists every place a token went that it must not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_S = 300


def client_env(endpoint: str, home: Path, token: str | None = None, **extra: str) -> dict[str, str]:
    """The environment of a subprocess that reads and writes the stand-in Hub (caches under ``home``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(HF_ENDPOINT=endpoint, HF_HUB_DISABLE_XET="1", HF_HUB_DISABLE_TELEMETRY="1",
               HF_HOME=str(home / "hf-home"), HF_DATASETS_CACHE=str(home / "hf-datasets"),
               PYTHONPATH=str(REPO), **extra)
    if token is not None:
        env["HF_TOKEN"] = token
    return env


def oneruler(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """``oneruler ARGS`` (the real CLI) in a subprocess; its output captured as text."""
    return subprocess.run([sys.executable, "-m", "builders.cli", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=TIMEOUT_S)


def token_leaks(token: str, requests, results, roots: list[Path]) -> list[str]:
    """Where ``token`` went besides the Hub's ``Authorization`` header: request URLs, bodies and other
    headers, anything sent to storage, the processes' output, any file under ``roots``. Also lists Hub
    requests that did not carry it (a control: the clients did send the token where it belongs)."""
    leaks = []
    for req in requests:
        headers = {k.lower(): v for k, v in req.headers.items()}
        where = f"{req.origin} {req.method} {req.url}"
        if req.origin == "storage" and "authorization" in headers:
            leaks.append(f"{where}: Authorization sent to storage")
        if req.origin == "hub" and req.url != "/api/agent-harnesses" and headers.get("authorization") != f"Bearer {token}":
            leaks.append(f"{where}: no token (control)")
        if token in req.url or token.encode() in req.body:
            leaks.append(f"{where}: token in URL or body")
        leaks += [f"{where}: token in header {k}" for k, v in headers.items() if k != "authorization" and token in v]
    for res in results:
        if token in res.stdout or token in res.stderr:
            leaks.append(f"token in the output of {res.args[3:5]}")
    for root in roots:
        leaks += [f"token written to {p}" for p in root.rglob("*") if p.is_file() and token.encode() in p.read_bytes()]
    return leaks
