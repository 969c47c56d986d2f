"""Every command of an installed oneruler, run from an empty folder: the checks of ``pip install oneruler``.

Given a virtual environment with oneruler installed from its wheel, :func:`smoke` runs that
environment's ``oneruler`` (and its Python, for ``evaluate.load``, lm-eval and the builder class)
in a new empty folder, with no ``PYTHONPATH``, and checks what each command did: ``--version``,
``fetch``, ``list``, ``build`` (two configs), ``verify``, ``show``, ``score``, ``compare``,
``metric-path`` (+ ``evaluate.load``), ``lm-eval-path`` (+ lm-eval's ``TaskManager`` when lm-eval
is installed, else the task files), ``from oneruler import OneRuler``, ``run`` (two shards, against
the loopback stand-in of tests/openai_server.py) and ``merge``, ``run --batch-requests`` and
``ingest``, ``push`` and ``push-metric`` (against the Hub stand-in of tests/hub_server.py). Before
all that it checks that the code and the shipped files come from the environment, not a checkout.

Two callers: tests/test_package.py (a wheel built from this checkout, installed into a temporary
environment that borrows the test run's dependencies) and .ci/run (``python tests/wheel_smoke.py
VENV``: a fresh environment whose dependencies came from the package index).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
if str(TESTS) not in sys.path:  # the stand-in servers (a script run by .ci/run, not by pytest)
    sys.path.insert(0, str(TESTS))

TIMEOUT_S = 600
CONFIGS = ("pl_s_niah_8k", "pl_cwe_easy_8k")
# Run in the environment's Python: where the package, every module and every shipped file resolve.
WHERE = r"""
import importlib, json, pathlib, pkgutil
import builders, oneruler
from builders.base import resources

root = pathlib.Path(builders.__file__).resolve().parent
outside = []
for info in pkgutil.walk_packages(builders.__path__, "builders."):
    if info.name.endswith(".__main__"):
        continue
    try:
        module = importlib.import_module(info.name)
    except ModuleNotFoundError as exc:  # an optional integration whose extra is not installed (inspect_eval/)
        if (exc.name or "").split(".")[0] in ("inspect_ai", "lm_eval", "transformers"):
            continue
        raise
    for name, value in vars(module).items():
        for path in (value if isinstance(value, tuple) else (value,)):
            if isinstance(path, pathlib.PurePath) and path.is_absolute() and not pathlib.Path(path).resolve().is_relative_to(root):
                outside.append(f"{info.name}.{name} = {path}")
print(json.dumps({"package": str(root), "builder": oneruler.__file__, "shipped_root": str(resources.shipped_root()),
                  "shipped": {r: [str(resources.shipped_path(r)), resources.shipped_path(r).exists()] for r in resources.SHIPPED},
                  "outside": outside}))
"""


@dataclass
class Installed:
    """An environment with oneruler installed, the empty folder the commands run in, and what they left."""

    venv: Path
    work: Path
    env: dict[str, str]
    checked: list[str] = field(default_factory=list)

    @property
    def bin(self) -> Path:
        """The environment's scripts folder."""
        return self.venv / ("Scripts" if os.name == "nt" else "bin")

    def oneruler(self, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """``oneruler ARGS`` from the environment, in the work folder; fails the smoke on a non-zero exit."""
        res = subprocess.run([str(self.bin / "oneruler"), *args], cwd=self.work, env=env or self.env,
                             capture_output=True, text=True, timeout=TIMEOUT_S)
        assert res.returncode == 0, f"oneruler {' '.join(args)} exited {res.returncode}:\n{res.stderr[-3000:]}"
        self.checked.append(args[0])
        return res

    def python(self, code: str, *args: str) -> str:
        """Run ``code`` in the environment's Python, in the work folder; its stdout."""
        res = subprocess.run([str(self.bin / "python"), "-c", code, *args], cwd=self.work, env=self.env,
                             capture_output=True, text=True, timeout=TIMEOUT_S)
        assert res.returncode == 0, f"python -c ... exited {res.returncode}:\n{res.stderr[-3000:]}"
        return res.stdout


def clean_env(work: Path) -> dict[str, str]:
    """This process's environment without PYTHONPATH (the checkout must not leak in), caches under ``work``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    for var, rel in (("ONERULER_CACHE", "cache/oneruler"), ("HF_HOME", "cache/hf"), ("XDG_CACHE_HOME", "cache/xdg"),
                     ("HF_DATASETS_CACHE", "cache/hf/datasets"), ("MPLCONFIGDIR", "cache/matplotlib")):
        env[var] = str(work.parent / rel)
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    for var in ("ONERULER_MIRROR", "TIKTOKEN_CACHE_DIR"):
        assert env.get(var), f"{var} must name the upstream mirror / tiktoken files (see README, Tests)"
        parts = env[var].split(os.pathsep) if var == "ONERULER_MIRROR" else [env[var]]  # several mirror folders
        env[var] = os.pathsep.join(str(Path(p).resolve()) for p in parts if p)
    return env


def pyproject_version() -> str:
    """The version pyproject.toml declares (its one source)."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'^version = "([^"]+)"', text, re.MULTILINE).group(1)


def check_installed(inst: Installed) -> None:
    """``--version`` is pyproject's, and the code, the builder and the shipped files all come from the environment."""
    line = inst.oneruler("--version").stdout.strip()
    where = json.loads(inst.python(WHERE))
    package = Path(where["package"])
    assert package.is_relative_to(inst.venv.resolve()), f"builders imported from {package}, not the environment"
    assert line.startswith(f"oneruler {pyproject_version()} (from {package},"), line
    assert Path(where["builder"]).resolve().parent == package.parent, where["builder"]
    assert Path(where["shipped_root"]) == package / "_data", where["shipped_root"]
    assert all(exists and Path(path).is_relative_to(package) for path, exists in where["shipped"].values()), where
    assert where["outside"] == [], where["outside"]


def check_build(inst: Installed) -> None:
    """fetch, list, build two configs, verify, show."""
    assert "verified 104 files" in inst.oneruler("fetch").stdout
    ruler = "from builders.sources.ruler.pins import ruler_manifest; print(len(ruler_manifest()))"
    assert inst.python(ruler).split() == ["71"]  # raw/ruler/*.json shipped: RULER's 7, 49 essays, 12 XQuAD, 3 more
    assert inst.oneruler("list", "pl_*_8k").stdout.split() == [f"pl_{t}_8k" for t in (
        "s_niah", "mk_niah", "mv_niah", "mq_niah", "none_niah", "cwe_easy", "cwe_hard", "s_niah_nonone")]
    inst.oneruler("build", *CONFIGS, "--samples", "2", "--out", "ds", "--quiet")
    assert sorted(p.name for p in (inst.work / "ds" / "data").iterdir()) == sorted(CONFIGS)
    assert "2/2 configs rebuilt identical" in inst.oneruler("verify", "ds", "--quiet").stdout
    shown = inst.oneruler("show", CONFIGS[0], "--index", "1").stdout
    assert shown.startswith(f"{CONFIGS[0]}/1 ") and gold(inst)[f"{CONFIGS[0]}/1"] in shown


def export_rows(inst: Installed, *columns: str) -> list[dict]:
    """The built export's rows (``id`` and ``columns``), read with pyarrow."""
    import pyarrow.parquet as pq

    return [r for f in sorted(glob.glob(str(inst.work / "ds" / "data" / "*" / "*.parquet")))
            for r in pq.read_table(f, columns=["id", *columns]).to_pylist()]


def gold(inst: Installed) -> dict[str, str]:
    """Row id → the gold answer as a model would write it."""
    return {r["id"]: ", ".join(r["answers"]) for r in export_rows(inst, "answers")}


def write_predictions(path: Path, answers: dict[str, str]) -> Path:
    """A predictions file (one ``{"id", "prediction"}`` line per row)."""
    path.write_text("".join(json.dumps({"id": i, "prediction": p}) + "\n" for i, p in sorted(answers.items())))
    return path


def overall(inst: Installed, report: str) -> float:
    """The overall accuracy a report folder holds."""
    return json.loads((inst.work / report / "scores.json").read_text(encoding="utf-8"))["overall"]["accuracy"]


def check_score(inst: Installed) -> None:
    """score a right and a half-right predictions file, compare the two reports."""
    answers = gold(inst)
    half = {i: (a if n % 2 else "nothing") for n, (i, a) in enumerate(sorted(answers.items()))}
    write_predictions(inst.work / "right.jsonl", answers)
    write_predictions(inst.work / "half.jsonl", half)
    inst.oneruler("score", "right.jsonl", "--dataset", "ds", "--out", "right")
    inst.oneruler("score", "half.jsonl", "--dataset", "ds", "--out", "half")
    accuracies = overall(inst, "right"), overall(inst, "half")
    assert accuracies == (1.0, 0.5), accuracies
    compared = inst.oneruler("compare", "right", "half", "--out", "cmp").stdout
    assert "overall: 100.0 vs 50.0" in compared and (inst.work / "cmp" / "compare.md").is_file(), compared


def check_metric_and_tasks(inst: Installed) -> None:
    """metric-path for evaluate.load, lm-eval-path for lm-eval, the builder class."""
    metric = Path(inst.oneruler("metric-path").stdout.strip())
    result = json.loads(inst.python(
        "import evaluate, json, sys; m = evaluate.load(sys.argv[1]); print(json.dumps(m.compute("
        "predictions=['1312735', 'brak'], references=[['1312735'], ['42']], tasks=['s_niah', 's_niah'], "
        "instruction_languages=['pl', 'pl'])))", str(metric)))
    assert result["accuracy"] == 0.5 and result["passes"] == [1, 0], result
    tasks = Path(inst.oneruler("lm-eval-path").stdout.strip())
    files = sorted(p.stem for p in (tasks / "oneruler").glob("oneruler_*.yaml"))
    assert len(files) > 2_000 and f"oneruler_{CONFIGS[0]}" in files
    listed = inst.python("import importlib.util, sys\n"
                         "if importlib.util.find_spec('lm_eval') is None: print('no lm-eval'); sys.exit()\n"
                         "from lm_eval.tasks import TaskManager\n"
                         "print(' '.join(TaskManager(include_path=sys.argv[1]).all_tasks))", str(tasks)).split()
    assert listed == ["no", "lm-eval"] or set(files) <= set(listed), listed[:5]
    rows = json.loads(inst.python(
        "import json; from oneruler import OneRuler\n"
        f"b = OneRuler(config_name={CONFIGS[0]!r}, samples=2, cache_dir='builder-cache')\n"
        "b.download_and_prepare(); print(json.dumps([[r['id'], r['answers']] for r in b.as_dataset('test')]))"))
    assert {i: ", ".join(a) for i, a in rows} == {i: a for i, a in gold(inst).items() if i.startswith(CONFIGS[0])}


def check_run(inst: Installed) -> None:
    """run in two shards against the stand-in server, merge; run --batch-requests, ingest; both score 100 %."""
    from batch_api import run_batch
    from openai_server import Reply, ServerState, running_server

    answers = gold(inst)
    state = ServerState(max_model_len=16_000)
    state.ids_by_prompt = {r["input"]: r["id"] for r in export_rows(inst, "input")}
    state.default_reply = lambda row: Reply(answers[row])
    with running_server(state) as server:
        for shard in ("0/2", "1/2"):
            inst.oneruler("run", "ds", "--base-url", server.base_url, "--model", state.model, "--shard", shard,
                          "--out", f"run-{shard[0]}.jsonl", "--quiet")
        inst.oneruler("merge", "run-0.jsonl", "run-1.jsonl", "--out", "run.jsonl")
        inst.oneruler("run", "ds", "--model", state.model, "--batch-requests", "requests.jsonl", "--quiet")
        (inst.work / "results.jsonl").write_text(run_batch(state, (inst.work / "requests.jsonl").read_text()))
    inst.oneruler("ingest", "results.jsonl", "--requests", "requests.jsonl", "--out", "batch.jsonl")
    for name in ("run", "batch"):
        inst.oneruler("score", f"{name}.jsonl", "--dataset", "ds", "--out", f"{name}-report")
        assert overall(inst, f"{name}-report") == 1.0, name


def check_push(inst: Installed) -> None:
    """push the export and push-metric the metric folder to the Hub stand-in: byte-identical files arrive."""
    from hub_server import running_hub

    token = "hf_" + secrets.token_hex(16)
    metric = Path(inst.oneruler("metric-path").stdout.strip())
    with running_hub(token) as (endpoint, state):
        env = {k: v for k, v in inst.env.items() if not k.startswith("HF_")}
        env.update(HF_ENDPOINT=endpoint, HF_TOKEN=token, HF_HUB_DISABLE_XET="1", HF_HUB_DISABLE_TELEMETRY="1",
                   HF_HOME=str(inst.work.parent / "cache" / "hf-push"))
        inst.oneruler("push", "ds", "--repo-id", "smoke/oneruler", env=env)
        inst.oneruler("push-metric", "--repo-id", "smoke/oneruler-metric", env=env)
        pushed = state.files("dataset", "smoke/oneruler")
        space = state.files("space", "smoke/oneruler-metric")
    local = {p.relative_to(inst.work / "ds").as_posix(): p.read_bytes()
             for p in (inst.work / "ds").rglob("*") if p.is_file() and not p.name.startswith(".")}
    assert {k: v for k, v in pushed.items() if k != ".gitattributes"} == local
    for module in ("example_score.py", "rule_registry.py", "oneruler_tasks.py"):  # the scoring package, copied whole
        assert space[module] == (metric / module).read_bytes(), module
    assert space["oneruler-metric.py"] == (metric / "oneruler.py").read_bytes()


STEPS = {"installed": check_installed, "build": check_build, "score": check_score,
         "metric": check_metric_and_tasks, "run": check_run, "push": check_push}


def smoke(venv: Path, root: Path, steps: tuple[str, ...] = tuple(STEPS)) -> list[str]:
    """The ``steps`` (in order) against the oneruler of ``venv``, in the empty folder ``root/empty``; the
    commands checked."""
    work = root / "empty"
    work.mkdir(parents=True)
    inst = Installed(venv.resolve(), work, clean_env(work))
    for name in steps:
        start = time.monotonic()
        STEPS[name](inst)
        print(f"ok  {name}: {STEPS[name].__doc__.splitlines()[0]} ({time.monotonic() - start:.1f} s)", flush=True)
    return sorted(set(inst.checked))


def main() -> None:
    """``python tests/wheel_smoke.py VENV --work DIR [--steps a,b]``: the smoke of an installed oneruler."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("venv", type=Path)
    parser.add_argument("--work", type=Path, required=True, help="a folder for the run (created; must not exist)")
    parser.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated, of {', '.join(STEPS)} (default: all)")
    args = parser.parse_args()
    steps = tuple(args.steps.split(","))
    if not set(steps) <= set(STEPS):
        parser.error(f"--steps: unknown {sorted(set(steps) - set(STEPS))}; known: {', '.join(STEPS)}")
    try:
        checked = smoke(args.venv, args.work, steps)
    except AssertionError as exc:
        sys.exit(f"wheel smoke FAILED: {exc}")
    print(f"wheel smoke passed: {len(checked)} commands of {args.venv} from an empty folder ({', '.join(checked)})")


if __name__ == "__main__":
    main()
