"""Exports written side by side: ``export.write(..., jobs=N)`` forks worker processes that each write
some of the kinds into the same staging folder while this process writes the rest (the CLI's
``dclayout design``; the TUI, which runs threads, writes them one after another).

The exports of one design share nothing but the design, the summary and the scene, which a forked
worker inherits as they are (no copy, no pickling); each writes its own files, so the bytes are the
ones a single process writes. On a 2-core machine the 100k campus's exports (DXF, PDF, tables, plans)
take about half the wall time (bench/bench_exports.py ``all``).

A worker sends back the names it wrote, or the exception it met (re-raised here as it was); a worker
that dies without an answer (a signal, os._exit) is an OSError naming its kinds. ``fork`` is the only
start method that inherits the design, so elsewhere (no ``fork``) everything is written here.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

# the kinds a worker takes, first forked first, and what each must have before it forks ("scene": the
# drawings' scene, built here first). The tables (CSV, XLSX, Parquet) need no scene: their worker starts
# while the scene is built; the DXF, the slowest single export, gets a worker of its own.
LANES: tuple[tuple[frozenset[str], bool], ...] = (
    (frozenset({"csv", "xlsx", "parquet"}), False),
    (frozenset({"dxf"}), True),
)


def can_fork() -> bool:
    import multiprocessing as mp

    return "fork" in mp.get_all_start_methods()


def default_jobs() -> int:
    """Worker processes worth forking here: a worker per lane on a machine of 2 cores or more (on 2,
    the three processes' work is ~1.4, ~1.3 and ~1.3 s CPU on the campus: they share the cores evenly),
    none on one core."""
    return len(LANES) if (os.cpu_count() or 1) >= 2 else 0


@dataclass
class Worker:
    kinds: frozenset[str]
    proc: Any  # multiprocessing.Process
    read: Any  # the result pipe's read end


def fork(kinds: frozenset[str], write: Callable[[frozenset[str]], Any]) -> Worker:
    """A forked process running ``write(kinds)`` (what it returns goes back through a pipe)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    read, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, kinds, write), daemon=True)
    proc.start()
    send.close()  # so the read end sees EOF when the worker dies
    return Worker(kinds, proc, read)


def _child(send: Any, kinds: frozenset[str], write: Callable[[frozenset[str]], Any]) -> None:
    try:
        answer: tuple[str, Any] = ("ok", write(kinds))
    except BaseException as e:  # noqa: BLE001 - any failure goes back to the parent, which raises it
        try:
            pickle.dumps(e)
            answer = ("error", e)
        except Exception:  # noqa: BLE001 - an exception that does not pickle goes back as its text
            answer = ("error", RuntimeError(f"{type(e).__name__}: {e}"))
    send.send(answer)
    send.close()


def join(workers: Sequence[Worker]) -> list[Any]:
    """Wait for every worker's answer; what each one's call returned, in the workers' order. The first
    failure is raised (after every worker has ended, so none writes into a folder that is being cleaned
    up). On success the workers are not waited for: a worker has closed its files before it answers, and
    its exit (the kernel freeing its copy of a large design's memory, ~0.1 s on the 100k campus) goes on
    while the caller finishes the set; :func:`reap` them at the end."""
    answers: list[Any] = []
    failure: BaseException | None = None
    for w in workers:
        try:
            status, value = w.read.recv()
        except (EOFError, OSError):
            status, value = (
                "error",
                OSError(f"the worker writing {', '.join(sorted(w.kinds))} died without an answer"),
            )
        if status == "ok":
            answers.append(value)
        elif failure is None:
            failure = value
    if failure is not None:
        reap(workers)
        raise failure
    return answers


def reap(workers: Sequence[Worker]) -> None:
    """Wait for the workers to end (after :func:`join`)."""
    for w in workers:
        w.read.close()
        w.proc.join()


def stop(workers: Sequence[Worker]) -> None:
    """End the workers still running (this process failed: their files are thrown away with the set)."""
    for w in workers:
        if w.proc.is_alive():
            w.proc.kill()
        w.proc.join()
        w.read.close()
