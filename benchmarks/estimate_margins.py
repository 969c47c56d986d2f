"""How far a model's tokenizer is from the dataset's: the per-task margins of ``run/server/estimate.py``.

For every row of an export folder: its input counted by each tokenizer given (tiktoken names,
``tokenizer.json`` files or folders, and ``llama.cpp=URL`` for a running ``llama-server``'s own
``/tokenize``), divided by the row's ``num_tokens``. Prints, per task, the worst ratio and where
it was seen. The chat template is not included (the estimate adds its own allowance).

    python benchmarks/estimate_margins.py EXPORT_DIR o200k_base ../shared/tokenizers/hf/llama3 \\
        ../shared/tokenizers/hf/qwen llama.cpp=http://127.0.0.1:8080
"""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path
from typing import Callable

import pyarrow.parquet as pq


def counter(spec: str) -> tuple[str, Callable[[str], int]]:
    """(name, text → tokens) for a tokenizer spec."""
    if spec.startswith("llama.cpp="):
        url = spec.split("=", 1)[1].rstrip("/") + "/tokenize"

        def remote(text: str) -> int:
            body = json.dumps({"content": text, "add_special": False}).encode()
            request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=600) as reply:
                return len(json.load(reply)["tokens"])

        return "llama.cpp server", remote
    path = Path(spec)
    if path.exists():
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(path / "tokenizer.json" if path.is_dir() else path))
        return path.name, lambda text: len(tok.encode(text, add_special_tokens=False).ids)
    import tiktoken

    enc = tiktoken.get_encoding(spec)
    return spec, lambda text: len(enc.encode(text, disallowed_special=()))


def main(export: str, specs: list[str]) -> None:
    """Print the worst ratio per task (and the tokenizer and row) over the export's rows."""
    counters = [counter(s) for s in specs]
    worst: dict[str, tuple[float, str, str]] = {}
    for shard in sorted(Path(export).glob("data/*/*.parquet")):
        for row in pq.read_table(shard, columns=["id", "task", "input", "num_tokens"]).to_pylist():
            for name, count in counters:
                ratio = count(row["input"]) / row["num_tokens"]
                if ratio > worst.get(row["task"], (0.0, "", ""))[0]:
                    worst[row["task"]] = (ratio, name, row["id"])
    for task, (ratio, name, ident) in sorted(worst.items()):
        print(f"{task:10s} worst ratio {ratio:.3f} (margin {ratio - 1:+.1%}) with {name} on {ident}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
