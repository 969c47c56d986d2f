"""`oneruler score`: join model outputs to dataset rows, score them (builders.scoring), write a report.

Also owns the metric folder's copy of the scoring core (sync_metric_copy / check_metric_copy),
which `push-metric` must upload together with the files in METRIC_SPACE_FILES.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from builders import scoring
from builders.configs import render_length
from builders.errors import OneRulerError, cli_errors

METRIC_DIR = Path(__file__).resolve().parent.parent / "metrics" / "oneruler"
METRIC_COPY = "oneruler_scoring.py"
# Everything a Hugging Face Space needs for evaluate.load("ORG/oneruler"). The Space repo must be
# named like the script (evaluate fetches "<repo name>.py"), or oneruler.py renamed to match.
METRIC_SPACE_FILES: tuple[str, ...] = ("README.md", "app.py", "oneruler.py", METRIC_COPY, "requirements.txt")
_IMPORT_LINE = "from builders.languages import NONE_WORDS\n"

ROW_COLUMNS = ("id", "config", "task", "context_language", "instruction_language", "length", "tokenizer",
               "answers", "needles")
MAX_LISTED = 20


# --------------------------------------------------------------------------- metric copy


def metric_scoring_source() -> str:
    """builders/scoring.py with its one project import rendered as a literal: the metric folder's copy."""
    from builders.languages import NONE_WORDS

    source = Path(scoring.__file__).read_text(encoding="utf-8")
    if source.count(_IMPORT_LINE) != 1:
        raise OneRulerError(f"builders/scoring.py must contain exactly one line {_IMPORT_LINE.strip()!r}")
    table = "".join(f"    {lang!r}: {words!r},\n" for lang, words in NONE_WORDS.items())
    literal = f"NONE_WORDS: dict[str, tuple[str, ...]] = {{\n{table}}}\n"
    header = "# GENERATED from builders/scoring.py by builders.report.sync_metric_copy(); do not edit.\n"
    return header + source.replace(_IMPORT_LINE, literal)


def sync_metric_copy(folder: Path = METRIC_DIR) -> Path:
    """(Re)write the metric folder's oneruler_scoring.py from builders/scoring.py."""
    path = Path(folder) / METRIC_COPY
    write_atomic(path, metric_scoring_source().encode("utf-8"))
    return path


def check_metric_copy(folder: Path = METRIC_DIR) -> None:
    """Raise OneRulerError unless the metric folder's copy is current and all Space files exist."""
    folder = Path(folder)
    missing = [name for name in METRIC_SPACE_FILES if not (folder / name).is_file()]
    if missing:
        raise OneRulerError(f"metric folder {folder} lacks {', '.join(missing)}")
    if (folder / METRIC_COPY).read_text(encoding="utf-8") != metric_scoring_source():
        raise OneRulerError(
            f"{folder / METRIC_COPY} is stale: run python -c 'from builders.report import sync_metric_copy; "
            "sync_metric_copy()'"
        )


# --------------------------------------------------------------------------- input


@dataclass
class Prediction:
    """One line of the predictions file."""

    id: str
    prediction: str | None
    finish_reason: str | None
    line: int


def write_atomic(path: Path, data: bytes) -> None:
    """Write bytes to path through a temporary file in the same folder and os.replace."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual permissions
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _raise_all(problems: list[str], what: str) -> None:
    if problems:
        shown = "\n  ".join(problems[:MAX_LISTED])
        more = f"\n  ... and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        raise OneRulerError(f"{len(problems)} {what}:\n  {shown}{more}")


def _parse_line(raw: bytes, number: int) -> Prediction:
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"line {number}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {number}: not valid JSON ({exc.msg}, column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise ValueError(f"line {number}: expected a JSON object, got {type(obj).__name__}")
    ident = obj.get("id")
    if not isinstance(ident, str):
        raise ValueError(f"line {number}: field 'id' must be a string like 'en_s_niah_8k/0', got {ident!r}")
    config, _, index = ident.rpartition("/")
    if not config or not index.isdigit():
        raise ValueError(f"line {number}: id {ident!r} is not '{{config}}/{{index}}'")
    if "prediction" not in obj:
        raise ValueError(f"line {number} (id {ident!r}): missing field 'prediction' (null means no response)")
    text = obj["prediction"]
    if text is not None and not isinstance(text, str):
        raise ValueError(f"line {number} (id {ident!r}): 'prediction' must be a string or null, "
                         f"got {type(text).__name__}")
    reason = obj.get("finish_reason")
    if reason is not None and not isinstance(reason, str):
        raise ValueError(f"line {number} (id {ident!r}): 'finish_reason' must be a string or null")
    return Prediction(ident, text, reason, number)


def read_predictions(path: Path) -> dict[str, Prediction]:
    """Parse a predictions JSONL file; every malformed line or duplicate id is reported at once."""
    path = Path(path)
    if not path.is_file():
        raise OneRulerError(f"predictions file not found: {path}")
    predictions: dict[str, Prediction] = {}
    problems: list[str] = []
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                pred = _parse_line(raw, number)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            first = predictions.get(pred.id)
            if first is not None:
                problems.append(f"line {number}: duplicate id {pred.id!r} (first on line {first.line})")
                continue
            predictions[pred.id] = pred
    _raise_all(problems, f"problem(s) in {path}")
    if not predictions:
        raise OneRulerError(f"no predictions in {path}")
    return predictions


def _config_of(ident: str) -> str:
    return ident.rpartition("/")[0]


def card_configs(dataset: str) -> dict[str, list[str]] | None:
    """Config name -> test-split data files, from the dataset card's YAML `configs` (None: no such list)."""
    import yaml

    path = Path(dataset).expanduser()
    if path.is_dir():
        readme = path / "README.md"
        if not readme.is_file():
            return None
        text = readme.read_text(encoding="utf-8")
    else:
        from huggingface_hub import hf_hub_download

        try:
            text = Path(hf_hub_download(dataset, "README.md", repo_type="dataset")).read_text(encoding="utf-8")
        except Exception as exc:  # noqa: BLE001 - any failure to reach the card is bad input
            raise OneRulerError(f"cannot open dataset {dataset!r}: {exc}") from None
    if not text.startswith("---"):
        return None
    try:
        meta = yaml.safe_load(text.split("---", 2)[1]) or {}
    except (yaml.YAMLError, IndexError) as exc:
        raise OneRulerError(f"dataset card of {dataset!r} has invalid YAML: {exc}") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("configs"), list):
        return None
    mapping: dict[str, list[str]] = {}
    for entry in meta["configs"]:
        files = entry.get("data_files", []) if isinstance(entry, dict) else []
        if isinstance(files, str):
            files = [{"split": "test", "path": files}]
        paths: list[str] = []
        for item in files if isinstance(files, list) else []:
            if isinstance(item, dict) and item.get("split", "test") == "test":
                value = item.get("path", [])
                paths += [value] if isinstance(value, str) else list(value)
        if isinstance(entry, dict) and "config_name" in entry:
            mapping[str(entry["config_name"])] = paths
    return mapping


def load_rows(dataset: str, configs: dict[str, Prediction], cache_dir: str | None = None) -> dict[str, dict]:
    """Rows (only the columns scoring needs) of the given configs, keyed by id.

    `configs` maps each config name to the first prediction that refers to it (for messages).
    The card's `configs` list gives each config's Parquet files, and all of them are read with a
    single `load_dataset(dataset, data_files=...)`: one call per config costs seconds each on a
    card that declares hundreds of configs. Without such a card, each config is loaded by name.
    """
    import datasets

    path = Path(dataset).expanduser()
    looks_local = path.is_absolute() or dataset.startswith((".", "~")) or dataset.count("/") > 1
    if looks_local and not path.is_dir():
        raise OneRulerError(f"dataset folder not found: {dataset}")
    mapping = card_configs(dataset)
    if mapping is None:
        try:
            mapping = {name: [] for name in datasets.get_dataset_config_names(dataset)}
        except Exception as exc:  # noqa: BLE001 - any failure to open the dataset is bad input
            raise OneRulerError(f"cannot open dataset {dataset!r}: {exc}") from None
    unknown = [f"config {c!r} (line {p.line}, id {p.id!r})" for c, p in configs.items() if c not in mapping]
    _raise_all(unknown, f"unknown config(s) in dataset {dataset!r}")
    wanted = sorted(configs)
    if all(mapping[c] for c in wanted):
        files = sorted({f for c in wanted for f in mapping[c]})
        parts = [_load(dataset, dict(data_files={"test": files}), cache_dir, f"{len(wanted)} config(s)")]
    else:
        parts = [_load(dataset, dict(name=c), cache_dir, f"config {c!r}") for c in wanted]
    rows: dict[str, dict] = {}
    for ds in parts:
        missing = [c for c in ROW_COLUMNS if c not in ds.column_names]
        if missing:
            raise OneRulerError(f"dataset {dataset!r} lacks column(s) {', '.join(missing)}")
        for row in ds.select_columns(list(ROW_COLUMNS)).to_list():
            if row["config"] in configs:
                rows[row["id"]] = row
    return rows


def _load(dataset: str, how: dict, cache_dir: str | None, what: str):
    import datasets

    try:
        return datasets.load_dataset(dataset, split="test", cache_dir=cache_dir, columns=list(ROW_COLUMNS), **how)
    except Exception:  # noqa: BLE001 - e.g. a loader without column selection: read every column
        try:
            return datasets.load_dataset(dataset, split="test", cache_dir=cache_dir, **how)
        except Exception as exc:  # noqa: BLE001
            raise OneRulerError(f"cannot load {what} of {dataset!r}: {exc}") from None


# --------------------------------------------------------------------------- scoring


def language_label(row: dict) -> str:
    """The context language, or "ctx-inst" for cross-lingual rows."""
    ctx, inst = row["context_language"], row["instruction_language"]
    return ctx if ctx == inst else f"{ctx}-{inst}"


length_label = render_length  # 8000 -> "8k", 1000000 -> "1m", others as digits


@dataclass
class Report:
    """Everything `oneruler score` computes, ready to print and write."""

    strict: bool
    truncation: str
    records: list[dict] = field(default_factory=list)

    def _summary(self, keep=lambda r: True, key: str = "score") -> dict[str, Any]:
        return scoring.summarize(r[key] for r in self.records if keep(r))

    def groups(self) -> list[dict[str, Any]]:
        """One summary per config (task x language x length x tokenizer)."""
        by_config: dict[str, list[dict]] = {}
        for r in self.records:
            by_config.setdefault(r["config"], []).append(r)
        out = []
        for records in sorted(by_config.values(), key=lambda rs: self._order(rs[0])):
            entry = {k: records[0][k] for k in ("config", "task", "language", "length", "tokenizer")}
            entry.update(_flat(scoring.summarize(r["score"] for r in records)))
            if self.strict:
                entry["paper_accuracy"] = scoring.summarize(r["paper"] for r in records)["accuracy"]
            out.append(entry)
        return out

    def _order(self, r: dict):
        return self._rank("task", r["task"]), r["language"], r["length"], r["tokenizer"]

    def by(self, key: str) -> dict[str, dict]:
        """Micro-averaged summaries per value of a record field (task, language, length_label)."""
        values = sorted({r[key] for r in self.records}, key=lambda v: (self._rank(key, v), str(v)))
        return {str(v): self._summary(lambda r, v=v: r[key] == v) for v in values}

    def _rank(self, key: str, value: Any):
        if key == "task":
            return scoring.TASK_IDS.index(value) if value in scoring.TASK_IDS else 99
        if key == "length_label":
            return next(r["length"] for r in self.records if r["length_label"] == value)
        return 0

    def errors(self) -> dict[str, dict[str, int]]:
        """Error categories per task over counted examples, plus the dropped count."""
        out = {}
        for task, summary in self.by("task").items():
            out[task] = dict(summary["categories"], counted=summary["counted"], dropped=summary["dropped"])
        return out

    def disagreements(self) -> list[dict[str, Any]]:
        """Examples whose pass/fail differs between strict and paper mode (strict reports only)."""
        if not self.strict:
            return []
        return [
            {"id": r["id"], "task": r["task"], "paper": int(r["paper"].passed), "strict": int(r["score"].passed),
             "prediction": (r["prediction"] or "")[:300]}
            for r in self.records
            if r["paper"].counted and r["paper"].passed != r["score"].passed
        ]

    def heatmap_matrix(self) -> tuple[list[str], list[str], list[list[float | None]], str]:
        """(languages, lengths, accuracy[language][length], scope): NIAH tasks pooled, like paper Fig. 3."""
        niah = [r for r in self.records if r["task"] in scoring.NIAH_TASKS]
        records, scope = (niah, "NIAH tasks") if niah else (self.records, "all tasks")
        lengths = sorted({r["length"] for r in records})
        cells: dict[tuple[str, int], list] = {}
        for r in records:
            cells.setdefault((r["language"], r["length"]), []).append(r["score"])
        overall = {lang: scoring.summarize(r["score"] for r in records if r["language"] == lang)["accuracy"]
                   for lang in {r["language"] for r in records}}
        languages = sorted(overall, key=lambda lang: (-(overall[lang] or 0.0), lang))
        matrix = [[scoring.summarize(cells.get((lang, n), []))["accuracy"] for n in lengths] for lang in languages]
        return languages, [length_label(n) for n in lengths], matrix, scope

    @functools.cached_property
    def data(self) -> dict[str, Any]:
        """The content of scores.json (computed once: build the records first)."""
        missing = [r for r in self.records if r["score"].status == "no_response"]
        truncated = [r for r in self.records if r["finish_reason"] == "length"]
        data = {
            "mode": "strict" if self.strict else "paper",
            "truncation": self.truncation,
            "overall": self._summary(),
            "missing": {"niah_dropped": sum(r["task"] in scoring.NIAH_TASKS for r in missing),
                        "cwe_counted_wrong": sum(r["task"] in scoring.CWE_TASKS for r in missing)},
            "finish_reason_length": {"count": len(truncated),
                                     "niah": sum(r["task"] in scoring.NIAH_TASKS for r in truncated),
                                     "cwe": sum(r["task"] in scoring.CWE_TASKS for r in truncated)},
            "by_task": self.by("task"),
            "by_language": self.by("language"),
            "by_length": self.by("length_label"),
            "groups": self.groups(),
            "errors": self.errors(),
        }
        if self.strict:
            data["paper_overall"] = self._summary(key="paper")
            data["disagreements"] = {"count": len(self.disagreements()), "examples": self.disagreements()[:50]}
        return data


def _flat(summary: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in summary.items() if k != "categories"}


def _id_order(ident: str):
    index = ident.rpartition("/")[2]
    return _config_of(ident), int(index) if index.isdigit() else -1, ident


def score_predictions(predictions: dict[str, Prediction], rows: dict[str, dict], *, strict: bool = False,
                      truncation: str = "paper") -> Report:
    """Score every row of the referenced configs; rows without a prediction count as no response."""
    unknown = [f"line {p.line}: unknown id {p.id!r}" for p in predictions.values() if p.id not in rows]
    _raise_all(unknown, "prediction id(s) not in the dataset")
    report = Report(strict=strict, truncation=truncation)
    for ident in sorted(rows, key=_id_order):
        row = rows[ident]
        pred = predictions.get(ident)
        text, reason = (pred.prediction, pred.finish_reason) if pred else (None, None)
        kwargs = dict(needles=row["needles"], finish_reason=reason, truncation=truncation)
        args = (text, row["answers"], row["task"], row["instruction_language"])
        try:
            score = scoring.score_example(*args, strict=strict, **kwargs)
            paper = scoring.score_example(*args, strict=False, **kwargs) if strict else score
        except ValueError as exc:
            raise OneRulerError(f"row {ident!r}: {exc}") from None
        report.records.append({
            "id": ident, "config": row["config"], "task": row["task"], "language": language_label(row),
            "length": row["length"], "length_label": length_label(row["length"]), "tokenizer": row["tokenizer"],
            "prediction": text, "finish_reason": reason, "score": score, "paper": paper,
        })
    return report


# --------------------------------------------------------------------------- output


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def render_table(report: Report) -> str:
    """Accuracy (%) by task x language (rows) and length (columns, plus "all"), then the overall line."""
    lengths = sorted({(r["length"], r["length_label"]) for r in report.records})
    multi_tok = len({r["tokenizer"] for r in report.records}) > 1
    rows: dict[tuple, dict[int, list]] = {}
    for r in report.records:
        key = (r["task"], r["language"]) + ((r["tokenizer"],) if multi_tok else ())
        rows.setdefault(key, {}).setdefault(r["length"], []).append(r["score"])
    head = ["task", "language"] + (["tokenizer"] if multi_tok else []) + [lab for _, lab in lengths] + ["all"]
    lines = [head]
    order = sorted(rows, key=lambda k: (report._rank("task", k[0]),) + k[1:])
    for key in order:
        cells = [_pct(scoring.summarize(rows[key].get(n, []))["accuracy"]) for n, _ in lengths]
        everything = [s for scores in rows[key].values() for s in scores]
        lines.append(list(key) + cells + [_pct(scoring.summarize(everything)["accuracy"])])
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    text = "\n".join("  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)
    overall = report.data["overall"]
    return f"{text}\n\noverall accuracy: {_pct(overall['accuracy'])}% ({overall['passed']}/{overall['counted']})"


def render_errors(report: Report) -> str:
    """Error-type breakdown per task (counts over the examples in the accuracy)."""
    head = ["task", *scoring.CATEGORIES, "counted", "dropped"]
    lines = [head] + [[task] + [str(c[k]) for k in head[1:]] for task, c in report.errors().items()]
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def render_notes(report: Report) -> str:
    """Missing predictions, truncated outputs and strict-vs-paper disagreements, in words."""
    data = report.data
    m, t = data["missing"], data["finish_reason_length"]
    policy = {"paper": "paper policy: treated as no response (NIAH dropped, CWE counted wrong)",
              "score": "scored as written", "wrong": "counted wrong for every task"}[report.truncation]
    lines = [f"missing predictions: {m['niah_dropped']} NIAH (dropped from the accuracy), "
             f"{m['cwe_counted_wrong']} CWE (counted wrong)",
             f"finish_reason=length: {t['count']} ({t['niah']} NIAH, {t['cwe']} CWE); {policy}"]
    if report.strict:
        dis = report.disagreements()
        lost = sum(d["paper"] for d in dis)
        lines.append(f"strict vs paper: {len(dis)} example(s) differ ({lost} pass only in paper mode, "
                     f"{len(dis) - lost} only in strict mode); paper accuracy "
                     f"{_pct(data['paper_overall']['accuracy'])}%")
    return "\n".join(lines)


def _csv_bytes(header: list[str], rows: list[list[Any]]) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def _json_bytes(obj: Any) -> bytes:
    # backslashreplace turns lone surrogates from model output into valid \udxxx JSON escapes
    return (json.dumps(obj, ensure_ascii=False, indent=2) + "\n").encode("utf-8", "backslashreplace")


def heatmap_png(report: Report) -> bytes:
    """A paper-Figure-3-style heatmap (accuracy % by language x length) as PNG bytes."""
    import matplotlib
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    languages, lengths, matrix, scope = report.heatmap_matrix()
    values = np.array([[np.nan if v is None else 100 * v for v in row] for row in matrix], dtype=float)
    fig = Figure(figsize=(1.1 * len(lengths) + 2.8, 0.32 * len(languages) + 1.6))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#dddddd")  # grey: no examples in this cell
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(lengths)), lengths)
    ax.set_yticks(range(len(languages)), languages)
    ax.set_xlabel("context length")
    ax.set_title(f"Accuracy (%) on {scope}" + (" — strict" if report.strict else ""), fontsize=10)
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            if not np.isnan(v):
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, fraction=0.05)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    return buf.getvalue()


def write_report(report: Report, out_dir: Path) -> list[Path]:
    """Write scores.json, scores.csv, errors.csv, examples.jsonl, heatmap.png (+ disagreements.jsonl)."""
    out_dir = Path(out_dir)
    groups = report.groups()
    columns = list(groups[0]) if groups else []
    errors = report.errors()
    err_head = ["task", *scoring.CATEGORIES, "counted", "dropped"]
    examples = "".join(
        json.dumps({"id": r["id"], "task": r["task"], "language": r["language"], "length": r["length"],
                    "finish_reason": r["finish_reason"], **r["score"].to_dict(),
                    **({"paper_passed": r["paper"].passed} if report.strict else {})}) + "\n"
        for r in report.records
    )
    files = {
        "scores.json": _json_bytes(report.data),
        "scores.csv": _csv_bytes(columns, [[g[c] for c in columns] for g in groups]),
        "errors.csv": _csv_bytes(err_head, [[t] + [c[k] for k in err_head[1:]] for t, c in errors.items()]),
        "examples.jsonl": examples.encode("utf-8"),
        "heatmap.png": heatmap_png(report),
    }
    if report.strict:
        files["disagreements.jsonl"] = "".join(
            json.dumps(d, ensure_ascii=False) + "\n" for d in report.disagreements()
        ).encode("utf-8", "backslashreplace")
    written = []
    for name, data in files.items():
        write_atomic(out_dir / name, data)
        written.append(out_dir / name)
    return written


@click.command("score")
@click.argument("predictions", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dataset", required=True, help="Exported dataset folder or Hub repo id.")
@click.option("--strict", is_flag=True, help="Whole-token matching of none words and CWE words (see docs/scoring.md).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Report folder [default: <PREDICTIONS without suffix>-report beside the file].")
@click.option("--truncated", "truncation", type=click.Choice(scoring.TRUNCATION_POLICIES), default="paper",
              show_default=True,
              help="Outputs with finish_reason 'length': paper = no response (NIAH dropped, CWE wrong); "
                   "score = score the text; wrong = wrong for every task.")
@click.option("--cache-dir", default=None, help="datasets cache folder for loading the rows.")
@cli_errors
def score_command(predictions: Path, dataset: str, strict: bool, out_dir: Path | None, truncation: str,
                  cache_dir: str | None) -> None:
    """Score PREDICTIONS.jsonl ({"id": "<config>/<index>", "prediction": ...} per line) against the dataset."""
    import datasets

    # one progress bar per config and card warnings would bury the report and the error line
    datasets.logging.set_verbosity_error()
    datasets.disable_progress_bars()
    preds = read_predictions(predictions)
    configs: dict[str, Prediction] = {}
    for pred in preds.values():
        configs.setdefault(_config_of(pred.id), pred)
    rows = load_rows(dataset, configs, cache_dir=cache_dir)
    report = score_predictions(preds, rows, strict=strict, truncation=truncation)
    out_dir = out_dir or predictions.with_name(predictions.stem + "-report")
    click.echo(f"ONERULER accuracy (%), {'strict' if strict else 'paper'} mode")
    click.echo(render_table(report))
    click.echo("\nerror types (examples in the accuracy):")
    click.echo(render_errors(report))
    click.echo("\n" + render_notes(report))
    written = write_report(report, out_dir)
    click.echo(f"\nwrote {', '.join(p.name for p in written)} to {out_dir}")
