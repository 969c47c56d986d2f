"""A lean OpenAI-compatible server on 127.0.0.1 for load benchmarks (aiohttp; vLLM's endpoints and field names).

It answers what ``oneruler run`` asks of vLLM, as cheaply as possible, so the client is what is
measured: ``GET /v1/models`` (``max_model_len``), ``POST /tokenize`` (``count`` = UTF-8 bytes / 4) and
``POST /v1/chat/completions`` / ``/v1/completions`` (a fixed answer, usage with the same count),
each completion after ``--delay`` seconds plus ``--ms-per-ktoken`` per thousand prompt tokens, at
most ``--slots`` at a time (a GPU's batch: the rest wait in line). It logs one line per completion
(start, end, prompt tokens) to ``--log`` for the benchmark to read.

    python benchmarks/loopback_server.py --port 8765 --delay 0.5 --slots 1000 --log /tmp/served.log
"""

from __future__ import annotations

import asyncio
import json
import time

import click

MODEL = "bench-model"


def _count(body: dict) -> int:
    if "messages" in body:
        text = "".join(m.get("content") or "" for m in body["messages"])
    else:
        text = body.get("prompt") or ""
    return len(text.encode("utf-8", "surrogatepass")) // 4 + 8


def make_app(delay: float, ms_per_ktoken: float, slots: int, window: int, log_path: str | None, reasoning_bytes: int = 0):
    from aiohttp import web

    gate = asyncio.Semaphore(slots)
    log = open(log_path, "a", buffering=1) if log_path else None  # noqa: SIM115 - lives as long as the server

    async def models(request):
        return web.json_response({"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm",
                                                              "max_model_len": window}]})

    async def tokenize(request):
        body = json.loads(await request.read())
        n = _count(body)
        return web.json_response({"count": n, "max_model_len": window, "tokens": []})

    async def complete(request):
        body = json.loads(await request.read())
        chat = request.path.endswith("/chat/completions")
        n = _count(body)
        async with gate:
            started = time.monotonic()
            await asyncio.sleep(delay + ms_per_ktoken * n / 1_000_000)
            ended = time.monotonic()
        if log is not None:
            log.write(f"{started:.6f} {ended:.6f} {n}\n")
        usage = {"prompt_tokens": n, "completion_tokens": 3, "total_tokens": n + 3}
        if chat:
            message = {"role": "assistant", "content": "1234567"}
            if reasoning_bytes:
                message["reasoning_content"] = ("Let me think. " * (reasoning_bytes // 14 + 1))[:reasoning_bytes]
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            obj = {"id": "c", "object": "chat.completion", "created": 0, "model": MODEL, "choices": [choice], "usage": usage}
        else:
            choice = {"index": 0, "text": "1234567", "finish_reason": "stop"}
            obj = {"id": "c", "object": "text_completion", "created": 0, "model": MODEL, "choices": [choice], "usage": usage}
        return web.json_response(obj)

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.add_routes([web.get("/v1/models", models), web.post("/tokenize", tokenize),
                    web.post("/v1/chat/completions", complete), web.post("/v1/completions", complete)])
    return app


@click.command()
@click.option("--port", type=int, required=True)
@click.option("--delay", type=float, default=0.0, help="Seconds every completion takes.")
@click.option("--ms-per-ktoken", type=float, default=0.0, help="More milliseconds per 1,000 prompt tokens (prefill).")
@click.option("--slots", type=int, default=100_000, help="Completions served at once (the rest wait).")
@click.option("--window", type=int, default=140_000, help="max_model_len reported.")
@click.option("--log", "log_path", default=None, help="File of 'start end tokens' lines, one per completion.")
@click.option("--reasoning-bytes", type=int, default=0, help="Reasoning text of this size in every chat answer.")
def main(port: int, delay: float, ms_per_ktoken: float, slots: int, window: int, log_path: str | None,
         reasoning_bytes: int) -> None:
    """Serve until killed."""
    from aiohttp import web

    web.run_app(make_app(delay, ms_per_ktoken, slots, window, log_path, reasoning_bytes), host="127.0.0.1", port=port,
                print=None, backlog=1024, access_log=None)


if __name__ == "__main__":
    main()
