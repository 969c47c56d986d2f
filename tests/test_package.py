"""The package as users get it: ``python -m build``'s wheel and sdist, and the wheel installed and run.

The installed-wheel test runs without the network. It builds the sdist and the wheel from a copy of
this checkout's files with ``python -m build --no-isolation`` (the setuptools and ``build`` of the
test extra, so no build environment is downloaded), then makes a virtual environment of the running
interpreter that *borrows* this test run's dependencies: a ``.pth`` file lists the test run's
site-packages folders as plain path entries. Python does not run the ``.pth`` files inside folders
added that way, so the checkout's editable install (a ``.pth`` hook there) is masked, and
``pip install --no-deps --no-index`` puts the wheel into the environment's own site-packages, which
comes first on its path. ``tests/wheel_smoke.py`` then checks, before anything else, that the
package, the builder module and every shipped file are the environment's (not the checkout's),
and runs every command from an empty folder. (.ci/run does the same with a fresh environment whose
dependencies come from the package index, the one thing this test cannot do offline.)
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from builders.base import resources
from wheel_smoke import STEPS, pyproject_version, smoke

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "builders"
TIMEOUT_S = 600
MAX_WHEEL_BYTES = 2_000_000  # 1.45 MB at 0.2.0, most of it the 2,497 lm-eval YAMLs; junk would show here


def tracked_files(root: Path) -> list[str]:
    """The files a clean clone has (git's view when this is a clone; every file of an unpacked sdist otherwise)."""
    if (root / ".git").exists():
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout.decode()
        return [f for f in out.split("\0") if f and (root / f).is_file()]
    return [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


def quiet_env() -> dict[str, str]:
    """The environment of a build or install subprocess: no PYTHONPATH, pip quiet and offline."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PYTHONDONTWRITEBYTECODE="1")
    return env


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    """``python -m build`` (sdist, then the wheel from the sdist) of a clean copy of this checkout."""
    root = tmp_path_factory.mktemp("package")
    source = root / "source"
    for rel in tracked_files(REPO):
        (source / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, source / rel)
    res = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(root / "dist"), str(source)],
                         capture_output=True, text=True, timeout=TIMEOUT_S, env=quiet_env())
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    version = pyproject_version()
    return {"wheel": root / "dist" / f"oneruler-{version}-py3-none-any.whl",
            "sdist": root / "dist" / f"oneruler-{version}.tar.gz"}


def checkout_package_files() -> set[str]:
    """What the wheel must hold of builders/: every module and every lm-eval task file of the checkout."""
    return {f for f in tracked_files(REPO) if f.startswith("builders/") and not f.startswith("builders/_data/")}


def test_the_wheel_holds_the_package_the_builder_and_the_shipped_files_only(dists):
    wheel = dists["wheel"]
    names = set(zipfile.ZipFile(wheel).namelist())
    info = f"oneruler-{pyproject_version()}.dist-info/"
    metadata = {n[len(info):] for n in names if n.startswith(info) and not n.startswith(info + "licenses/")}
    assert metadata == {"METADATA", "WHEEL", "entry_points.txt", "top_level.txt", "RECORD"}
    shipped = {f"builders/_data/{f}" for rel in resources.SHIPPED for f in (
        [rel] if (REPO / rel).is_file() else
        [f"{rel}/{p.name}" for p in (REPO / rel).iterdir() if p.is_file() and not p.name.endswith(".pyc")])}
    code = {n for n in names if not n.startswith(info)}
    assert code == {"oneruler.py"} | checkout_package_files() | shipped
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".pyo")) or n.startswith(("tests/",
                "benchmarks/", "docs/", "scripts/", "raw/", "translations/", "metrics/"))]
    tasks = [n for n in names if n.startswith("builders/lmeval/tasks/oneruler/") and n.endswith(".yaml")]
    assert len(tasks) > 2_400  # the generated lm-eval tasks and groups are meant to be there
    assert wheel.stat().st_size < MAX_WHEEL_BYTES, f"the wheel grew to {wheel.stat().st_size:,} bytes"
    entry = zipfile.ZipFile(wheel).read(info + "entry_points.txt").decode()
    assert "oneruler = builders.cli:main" in entry


def test_the_sdist_holds_what_a_rebuild_and_the_tests_need(dists):
    with tarfile.open(dists["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    needed = {f for f in tracked_files(REPO) if not f.startswith((".git", "oneruler.egg-info/"))}
    assert needed - names == set()
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".pyo"))]


def test_setup_copies_exactly_the_files_the_code_reads():
    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    listed = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "SHIPPED" for t in node.targets))
    assert listed == resources.SHIPPED
    assert all((REPO / rel).exists() for rel in listed)


def overlay_venv(root: Path) -> Path:
    """A venv of the running interpreter that sees this test run's site-packages as plain path entries (see the
    module docstring: their ``.pth`` hooks, the checkout's editable install among them, do not run)."""
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(root)
    python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True, env=quiet_env()).stdout.strip()
    borrowed = [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and Path(p).is_dir()]
    (Path(purelib) / "_borrowed_site_packages.pth").write_text("".join(p + "\n" for p in borrowed), encoding="utf-8")
    return python


def test_the_installed_wheel_runs_every_command_from_an_empty_folder(dists, tmp_path):
    python = overlay_venv(tmp_path / "venv")
    res = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", str(dists["wheel"])],
                         capture_output=True, text=True, timeout=TIMEOUT_S, env=quiet_env(), cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    checked = smoke(tmp_path / "venv", tmp_path / "smoke", tuple(STEPS))
    assert set(checked) >= {"--version", "fetch", "build", "verify", "show", "list", "push", "push-metric", "run",
                            "score", "compare", "merge", "ingest", "lm-eval-path", "metric-path"}
    # a damaged install names the file a wheel should have had, and how to repair it
    site = next((tmp_path / "venv").rglob("site-packages/builders/_data"))
    (site / resources.SOURCE_MANIFEST).unlink()
    broken = subprocess.run([str(tmp_path / "venv" / "bin" / "oneruler"), "fetch"], capture_output=True, text=True,
                            timeout=TIMEOUT_S, env=quiet_env(), cwd=tmp_path)
    assert broken.returncode == 2 and broken.stderr.startswith("error: manifest "), broken.stderr
    assert f"_data/{resources.SOURCE_MANIFEST} is missing: reinstall oneruler" in broken.stderr
    assert "Traceback" not in broken.stderr


def test_a_checkout_reads_its_own_top_level_files():
    assert resources.package_folder() == PACKAGE
    assert resources.shipped_root() == REPO
    assert [resources.shipped_path(rel) for rel in resources.SHIPPED] == [REPO / rel for rel in resources.SHIPPED]
    with pytest.raises(ValueError, match="not a shipped file"):
        resources.shipped_path("tests/conftest.py")
    res = subprocess.run([sys.executable, "-m", "builders.cli", "metric-path"], capture_output=True, text=True,
                         timeout=TIMEOUT_S, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert res.returncode == 0 and res.stdout.strip() == str(REPO / "metrics" / "oneruler"), res.stderr


def test_version_names_the_installed_distribution_and_where_the_code_runs_from(monkeypatch):
    from importlib import metadata

    from click.testing import CliRunner

    from builders.cli import cli, package

    res = CliRunner().invoke(cli, ["--version"])
    assert res.exit_code == 0
    assert res.output == f"oneruler {metadata.version('oneruler')} (from {PACKAGE}, Python {sys.version.split()[0]})\n"
    monkeypatch.setattr(package, "DISTRIBUTION", "oneruler-not-installed")  # as a clone run without any install
    res = CliRunner().invoke(cli, ["--version"])
    assert res.exit_code == 2 and res.stderr.startswith("error: oneruler-not-installed is not installed, so it has no")
    assert "pip install -e ." in res.stderr and "Traceback" not in res.stderr


# --- no module reaches out of the package -----------------------------------------------------------------------

def climb(node: ast.AST) -> tuple[str | None, int]:
    """(what an expression starts from, how many folders it climbs): ``Path(__file__).resolve().parents[2]`` is
    ("__file__", 3) (the file, then three folders up), ``os.path.dirname(__file__)`` ("__file__", 1),
    ``importlib.resources.files("builders").parent`` ("files", 1)."""
    levels = 0
    while True:
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents":
            index = node.slice.value if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int) else 99
            levels, node = levels + 1 + index, node.value.value
        elif isinstance(node, ast.Attribute) and node.attr == "parent":
            levels, node = levels + 1, node.value
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("files", "package_folder"):  # importlib.resources.files, base/resources.package_folder
                return "files", levels
            if name in ("resolve", "absolute", "expanduser") and isinstance(node.func, ast.Attribute):
                node = node.func.value
            elif name in ("Path", "PurePath", "abspath", "realpath", "normpath", "dirname", "str") and node.args:
                levels, node = levels + (name == "dirname"), node.args[0]
            else:
                return None, levels
        elif isinstance(node, ast.Name):
            return node.id, levels
        else:
            return None, levels


def escapes(source: str, module: str) -> list[str]:
    """The expressions of ``source`` (the module at ``module``, relative to builders/) that name a path outside
    builders/: a climb from ``__file__`` above the package, a climb from ``importlib.resources.files(...)``, a
    ``".."`` component."""
    depth = len(Path(module).parts) - 1  # builders/ is the module's parents[depth]
    found = []
    for node in ast.walk(ast.parse(source)):
        start, levels = climb(node)
        if (start == "__file__" and levels - 1 > depth) or (start == "files" and levels > 0):
            found.append(f"{module}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and ".." in Path(node.value).parts:
            found.append(f"{module}:{node.lineno}: {node.value!r}")
    return found


# base/resources.py names the checkout's top level, for a checkout only (an installed wheel never gets there:
# tests/wheel_smoke.py checks that every shipped path of an installed wheel is inside its package).
CHECKOUT_BRANCH = {"base/resources.py": 1}


def test_the_escape_finder_finds_what_it_should():
    assert escapes('ROOT = Path(__file__).resolve().parents[2] / "raw"', "sources/manifest.py")
    assert escapes("D = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))", "export/card.py")
    assert not escapes("D = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))", "export/card.py")
    assert escapes("T = Path(__file__).parent.parent.parent", "export/card.py")
    assert escapes('T = files("builders").parent / "dataset_card.md"', "export/card.py")
    assert escapes("T = package_folder().parent", "export/card.py")
    assert escapes('T = files("builders") / ".." / "raw"', "export/card.py")
    assert not escapes("PACKAGE_ROOT = Path(__file__).resolve().parents[1]", "export/inputs.py")
    assert not escapes('TASKS = Path(__file__).resolve().parent / "tasks"', "lmeval/__init__.py")
    assert not escapes('DATA = files("builders") / "_data"', "base/resources.py")


@pytest.mark.parametrize("path", sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts),
                         ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_module_names_a_path_outside_the_package(path):
    module = path.relative_to(PACKAGE).as_posix()
    found = escapes(path.read_text(encoding="utf-8"), module)
    assert len(found) == CHECKOUT_BRANCH.get(module, 0), found
