"""Run build jobs (one config's shard each) in this process or in spawned worker processes.

The bytes written never depend on the number of processes. A config whose pinned source is missing (SQuAD,
HotpotQA, ``english_words.json``: files a mirror may lack) fails alone: the other jobs still run, then one
``MissingSource`` names the configs not built and the source each needs. Workers load sources and tokenizers
once, report per-example progress through a queue, and exit on their own when the parent dies
(even by SIGKILL), so a killed build leaves no process behind.
"""

from __future__ import annotations

import os
import queue as queue_mod
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator

from ..base.errors import OneRulerError
from ..base.files import named_os_error
from ..base.text import plural
from ..sources.mirror import MissingSource
from ..base.progress import ConfigProgress
from ..spec.configs import ConfigSpec
from ..spec.schema import features_of
from .inputs import BuildInputs, InputsRecipe
from .layout import DATA_DIR
from .ruler_deviations import deviation_counts
from .shard import ShardInfo, write_shard

PARENT_POLL_S = 0.5


@dataclass(frozen=True)
class Job:
    """One config to write: its spec, number of examples and seed."""

    spec: ConfigSpec
    samples: int
    seed: int


class _WorkerState:
    """What one worker process keeps between jobs."""

    inputs: BuildInputs | None = None
    progress_queue = None


def _exit_with_parent(parent: int) -> None:
    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)  # the parent died: nobody will ever read our results
            threading.Event().wait(PARENT_POLL_S)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _init_worker(recipe: InputsRecipe, progress_queue, parent: int) -> None:
    _exit_with_parent(parent)
    _WorkerState.inputs = recipe.load()
    _WorkerState.progress_queue = progress_queue


def _build_shard(inputs: BuildInputs, job: Job, out_dir: str | Path, report: Callable[[str, int], None]) -> ShardInfo:
    """Write one job's shard into ``out_dir`` and return what it holds (RULER's deviations counted in its stats);
    ``report(config, n)`` gets ``n`` = 0 when the config starts, then 1 after each example written (increments, as
    ``ConfigProgress.update`` counts)."""
    name = job.spec.name
    report(name, 0)
    seen: list[dict] = []

    def tapped() -> Iterator[dict]:
        for row in inputs.rows(job.spec, job.samples, job.seed):
            seen.append({"index": row["index"], "num_units": row["num_units"]})
            yield row

    info = write_shard(tapped(), out_dir, name, features_of(job.spec.task).arrow_schema,
                       progress=lambda n: report(name, n))
    info.stats = replace(info.stats, deviations=deviation_counts(inputs.generator, job.spec, job.seed, seen))
    return info


def _worker_build(job: Job, out_dir: str) -> ShardInfo:
    q = _WorkerState.progress_queue
    return _build_shard(_WorkerState.inputs, job, out_dir, lambda name, n: q.put((name, n)))


def _reraise(job: Job, exc: Exception, out: Path) -> None:
    """Raise the error to report for a failed job: ours and the OS's as they are (an OSError naming a file), others
    named after the config."""
    if isinstance(exc, (OneRulerError, MemoryError)):
        reported: BaseException = exc
    elif isinstance(exc, OSError):
        reported = named_os_error(exc, out / DATA_DIR / job.spec.name)
    else:
        reported = OneRulerError(f"config {job.spec.name}: build failed: {type(exc).__name__}: {exc}")
    if reported is exc:
        raise exc
    raise reported from exc


def missing_sources(failed: list[tuple[str, MissingSource]], built: int) -> MissingSource:
    """One error for the configs whose source is missing: the first's message, then the others' names."""
    (_, first), rest = failed[0], failed[1:]
    if not rest and not built:
        return first
    others = f"; also not built: {', '.join(name for name, _ in rest)}" if rest else ""
    return MissingSource(f"{plural(len(failed), 'config')} not built for a missing source ({plural(built, 'other')} "
                         f"built): {first}{others}")


def run_jobs(jobs: list[Job], out: Path, num_proc: int, inputs: BuildInputs, progress: ConfigProgress,
             finish: Callable[[ShardInfo], None]) -> None:
    """Write the shard of every job into ``out``; call ``finish`` as each completes.

    ``num_proc`` > 1 uses that many spawned worker processes. A missing source fails its config alone (every other
    job runs, then one ``MissingSource`` names them); any other failure names the config and stops the rest.
    """
    failed: list[tuple[str, MissingSource]] = []
    if num_proc == 1 or len(jobs) <= 1:
        for job in jobs:
            try:
                info = _build_shard(inputs, job, out, progress.update)
            except MissingSource as exc:
                failed.append((job.spec.name, exc))
                progress.abandon(job.spec.name)
                continue
            except Exception as exc:  # name the config at fault
                _reraise(job, exc, out)
            finish(info)
    else:
        _run_parallel(jobs, out, min(num_proc, len(jobs)), inputs.recipe(), progress, finish, failed)
    if failed:
        raise missing_sources(failed, len(jobs) - len(failed))


def _pump(q, progress: ConfigProgress, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            name, n = q.get(timeout=0.1)
        except queue_mod.Empty:
            continue
        except (EOFError, OSError, ValueError):
            return
        progress.update(name, n)


def _run_parallel(jobs: list[Job], out: Path, workers: int, recipe: InputsRecipe, progress: ConfigProgress,
                  finish: Callable[[ShardInfo], None], failed: list[tuple[str, MissingSource]]) -> None:
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    stop = threading.Event()
    thread = threading.Thread(target=_pump, args=(q, progress, stop), daemon=True)
    thread.start()
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                                 initargs=(recipe, q, os.getpid())) as executor:
            pending = {executor.submit(_worker_build, job, str(out)): job for job in jobs}
            try:
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in done:
                        job = pending.pop(fut)
                        try:
                            info = fut.result()
                        except MissingSource as exc:
                            failed.append((job.spec.name, exc))
                            progress.abandon(job.spec.name)
                            continue
                        except Exception as exc:  # name the config at fault
                            _reraise(job, exc, out)
                        finish(info)
            except BaseException:
                for fut in pending:
                    fut.cancel()
                raise
    finally:
        stop.set()
        thread.join(timeout=2)
        q.close()
        q.join_thread()
