"""The layering rules of docs/architecture.md, checked on the source tree."""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import pytest

from builders.export.inputs import CARD_FACT_MODULES, GENERATOR_MODULES, NOT_ROW_SHAPING

PACKAGE = Path(__file__).resolve().parents[1] / "builders"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
MAX_PARAMETERS = 12  # below the CLI: more travel as one typed object (a request, a settings record)
# Parameters that are a framework's options one for one: Inspect's -T options of the task
MANY_PARAMETERS = {"inspect_eval/task.py:oneruler_task", "inspect_eval/options.py:task_options"}

# Layer -> the layers it may import from (itself is always allowed).
ALLOWED: dict[str, set[str]] = {
    "scoring": set(),
    "base": set(),
    "spec": {"base", "scoring"},
    "sources": {"base", "spec"},
    "generate": {"base", "spec", "sources"},
    "export": {"base", "spec", "sources", "generate", "scoring"},
    "dataset": {"base", "spec", "export"},
    "report": {"base", "spec", "scoring", "export", "dataset"},
    "run": {"base", "spec", "scoring", "export", "dataset"},
    "taskrows": {"base", "spec", "sources", "generate", "export", "dataset"},
    "lmeval": {"base", "spec", "scoring", "sources", "generate", "export", "dataset", "report", "taskrows"},
    "publish": {"base", "spec", "scoring", "export", "dataset", "report"},
    "inspect_eval": {"base", "spec", "scoring", "sources", "generate", "export", "dataset", "report", "lmeval",
                     "taskrows"},
    "cli": {"base", "spec", "sources", "generate", "export", "dataset", "report", "scoring", "run", "lmeval", "publish",
            "taskrows"},
}
LAYERS = sorted(ALLOWED)


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def layer_of(path: Path) -> str | None:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else None


def imported_modules(path: Path) -> list[tuple[str, list[str], int]]:
    """(absolute dotted module, imported names, line) of every import in a file, lazy ones included."""
    package = ".".join(("builders",) + path.relative_to(PACKAGE).with_suffix("").parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.append((module, [a.name for a in node.names], node.lineno))
    return out


def test_every_layer_is_a_subpackage_named_in_the_docs():
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    found = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert found == set(LAYERS)
    for layer in LAYERS:
        assert f"`{layer}/`" in doc, layer
    assert not [p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"], "every module belongs to a layer"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_one_way(path):
    layer = layer_of(path)
    for module, names, line in imported_modules(path):
        parts = module.split(".")
        if parts[0] == "click":
            assert layer == "cli", f"{path.name}:{line} imports click outside builders/cli"
        if parts[0] != "builders" or layer is None:
            continue
        target = parts[1] if len(parts) > 1 else None
        if target is None:  # `from builders import x`
            target = names[0]
        assert target == layer or target in ALLOWED[layer], f"{path.relative_to(PACKAGE)}:{line} imports {module}"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_names_of_other_modules(path):
    for module, names, line in imported_modules(path):
        if module.split(".")[0] == "builders":
            private = [n for n in names if n.startswith("_")]
            assert not private, f"{path.relative_to(PACKAGE)}:{line} imports {private} from {module}"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_small_modules_and_functions(path):
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_MODULE_LINES, f"{path.relative_to(PACKAGE)} has over {MAX_MODULE_LINES} lines"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            size = node.end_lineno - node.lineno + 1
            assert size <= MAX_FUNCTION_LINES, f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} has {size} lines"


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_public_functions_have_docstrings(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert ast.get_docstring(tree), f"{path.relative_to(PACKAGE)} has no module docstring"
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            assert ast.get_docstring(node), f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} has no docstring"


def test_the_scoring_layer_is_standard_library_only():
    for path in (PACKAGE / "scoring").glob("*.py"):
        for module, _, line in imported_modules(path):
            top = module.split(".")[0]
            assert top in sys.stdlib_module_names or top in ("__future__", "builders"), f"{path.name}:{line} {module}"
            if top == "builders":
                assert module.startswith("builders.scoring"), f"{path.name}:{line} {module}"


def test_generator_fingerprint_covers_every_module_that_shapes_rows():
    listed = set(GENERATOR_MODULES)
    # what a run writes, which configs a glob or a grid picks: not what a row holds (a change there must not
    # invalidate every built export)
    assert set(NOT_ROW_SHAPING) == {"spec/prediction_line.py", "spec/run_meta.py", "spec/presets.py",
                                    "spec/selection.py", "spec/leaderboards.py", "spec/grids.py",
                                    "spec/ruler_published.py"}
    assert not set(NOT_ROW_SHAPING) & listed
    for layer in ("spec", "generate", "sources/ruler"):  # RULER's parsers shape its rows
        for path in (PACKAGE / layer).rglob("*.py"):  # a family's modules in spec/families/ too
            name = path.relative_to(PACKAGE).as_posix()
            if path.name != "__init__.py" and name not in NOT_ROW_SHAPING:
                assert name in listed, f"{name} missing from GENERATOR_MODULES"
    assert all((PACKAGE / m).is_file() for m in listed | set(CARD_FACT_MODULES))
    # and nothing that cannot change a row: the CLI, reports and the Hub client are left out
    assert not any(m.startswith(("cli/", "report/", "scoring/")) or m in ("export/hub.py", "export/card.py") for m in listed)


# Reading a dataset (an export or the Hub) is the dataset layer's job: nobody else loads one, downloads a
# dataset file or asks the Hub about a dataset. (`export/hub.py` writes to the Hub; the builder in
# `oneruler.py`, `generate/tokenizer.py`'s tokenizer downloads and `publish/hub.py`'s reads of model repos'
# results files are not dataset reads.)
DATASET_READS = ("load_dataset", "get_dataset_config_names", "hf_hub_download", "dataset_info", "list_repo_files",
                 "snapshot_download", "HfFileSystem", "resolve/")


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_dataset_layer_reads_datasets(path):
    if layer_of(path) == "dataset" or path.relative_to(PACKAGE).as_posix() in ("export/hub.py", "generate/tokenizer.py",
                                                                             "publish/hub.py"):
        return
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
        {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)} | \
        {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    texts = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    found = [r for r in DATASET_READS if r in names or (r.endswith("/") and any(r in t for t in texts))]
    assert not found, f"{path.relative_to(PACKAGE)} reads datasets itself ({found}); go through builders/dataset"


# Who talks to the Hub, and for what: dataset reads (dataset/hub.py), the push (export/hub.py), a tokenizer.json
# download (generate/tokenizer.py), results in model repos and leaderboards (publish/hub.py); export/hub_calls.py
# bounds the client they share (its timeout, retries, one line per failure), export/hub_repos.py makes, checks and
# removes the repositories they write. Anything else importing
# the client would be a fifth way in; report/hub_results/eval_results.py uses only its `.eval_results` format (no
# I/O). `datasets` only for its types: the row schema (spec/schema.py) and the tasks' in-memory Dataset
# (taskrows/loaded.py, for lm-eval and Inspect).
HUB_CLIENTS = {"huggingface_hub": {"dataset/hub.py", "export/hub.py", "export/hub_calls.py", "export/hub_repos.py",
                                   "generate/tokenizer.py", "publish/hub.py", "report/hub_results/eval_results.py"},
               "datasets": {"spec/schema.py", "taskrows/loaded.py"}}


@pytest.mark.parametrize("client", sorted(HUB_CLIENTS))
def test_hub_and_datasets_clients_are_imported_in_named_places_only(client):
    importers = set()
    for path in modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            found = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            if any(name == client or name.startswith(client + ".") for name in found):
                importers.add(path.relative_to(PACKAGE).as_posix())
    assert importers == HUB_CLIENTS[client], f"{client} imported by {sorted(importers)}"


def test_tests_use_a_private_cache_not_the_users(sandbox):
    from builders.sources.fetch import default_cache_dir

    assert default_cache_dir().is_relative_to(sandbox)
    for var in ("ONERULER_CACHE", "XDG_CACHE_HOME", "XDG_DATA_HOME", "HF_HOME", "HF_DATASETS_CACHE"):
        assert Path(os.environ[var]).is_relative_to(sandbox), var


def test_tests_share_fixtures_through_conftest_not_sys_path():
    # helpers shared by several folders live at the top of tests/ (on the path through its conftest.py), what a
    # test needs from the harness comes as a fixture: no test edits sys.path or imports a conftest module
    for path in sorted((PACKAGE.parent / "tests").rglob("test_*.py")):
        if path.name == Path(__file__).name:  # this test's own words
            continue
        text = path.read_text(encoding="utf-8")
        assert "sys.path.insert" not in text and "from conftest import" not in text, path.name


def test_test_modules_have_unique_names():
    # pytest imports test folders without packages: two files with one basename cannot both load
    names = [p.name for p in (PACKAGE.parent / "tests").rglob("*.py") if p.name != "conftest.py"]
    assert sorted({n for n in names if names.count(n) > 1}) == []


def module_name(path: Path) -> str:
    """``builders.run.server.balancer`` for ``builders/run/server/balancer.py`` (a package's ``__init__``: the package)."""
    parts = ("builders",) + path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(layer: str) -> dict[str, set[str]]:
    """Module → the modules of the same layer it imports, every import counted (function-level and lazy too)."""
    paths = {module_name(p): p for p in modules() if layer_of(p) == layer}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        for module, names, _ in imported_modules(path):
            for target in (module, *(f"{module}.{n}" for n in names)):
                if target in paths and target != name:
                    graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of the graph (its modules in order), or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return []


@pytest.mark.parametrize("layer", LAYERS)
def test_no_import_cycle_inside_a_layer(layer):
    cycle = find_cycle(import_graph(layer))
    assert not cycle, f"import cycle in {layer}/: " + " -> ".join(cycle)


def test_the_cycle_check_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Parameters a caller passes (``self``/``cls`` and ``*args``/``**kwargs`` not counted)."""
    args = node.args
    positional = args.posonlyargs + args.args
    return len(positional) + len(args.kwonlyargs) - (1 if positional and positional[0].arg in ("self", "cls") else 0)


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_functions_below_the_cli_take_few_parameters(path):
    if layer_of(path) == "cli":  # a command takes its options, one parameter each
        return
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            where = f"{path.relative_to(PACKAGE).as_posix()}:{node.name}"
            if where not in MANY_PARAMETERS:
                assert parameter_count(node) <= MAX_PARAMETERS, f"{where} takes {parameter_count(node)} parameters"


def test_the_parameter_count_counts_what_a_caller_passes():
    method, = ast.parse("class A:\n    def f(self, a, /, b, *args, c, **kw): pass").body[0].body
    assert parameter_count(method) == 3
