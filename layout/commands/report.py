"""`dclayout report SITE... --out DIR [-j N] [--scheduler ADDR]`: one PDF design report per site, sites in
parallel processes (or, with ``--scheduler``, as tasks on that Dask cluster: the same PDF bytes).

Each site runs in its own worker process (load, design, PDF), forked for that site alone: a bad site is
reported with its problems, and a worker that dies (killed, out of memory, a crash in a native library)
is reported for its site, while the others finish. Exit code: 0 when every report was written, 2 when a site had bad input, 3 when a design
or its export failed (3 wins when both happen), or, with ``--scheduler``, the Dask cluster was lost
(its scheduler, or every worker): the reports finished by then are written and one line names what was
lost (a ``--scheduler`` that is no address, does not answer or has no worker is one line and 2). Reports
are written atomically: a failed site leaves no file behind, and an older report of that site is left
untouched.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from layout.commands import add_scheduler_option, add_templates_option, load_inputs
from layout.errors import EXIT_BAD_INPUT, EXIT_EXPORT_FAILED, EXIT_OK, InputError


def add_parser(sub: Any) -> None:
    p = sub.add_parser("report", help="write a PDF design report for each site (parallel with -j)")
    p.add_argument("sites", nargs="+", metavar="SITE", help="site TOML file(s)")
    p.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="folder for the PDFs, named after each site file's stem (default: outputs/<stem>/)",
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="sites built at once, one process each (default: the number of CPUs)",
    )
    add_scheduler_option(p)
    add_templates_option(p)
    p.set_defaults(run=run)


@dataclass(frozen=True)
class Outcome:
    """What happened to one site: exit code (0, 2 or 3), the PDF written, and the lines to show."""

    site: str
    code: int
    pdf: str = ""
    seconds: float = 0.0
    lines: tuple[str, ...] = field(default_factory=tuple)


def pdf_path(site: str, out: str | None) -> Path:
    from layout.files import safe_name

    stem = safe_name(Path(site).stem)  # a stem of ".." must not leave outputs/
    folder = Path(out) if out else Path("outputs") / stem
    return folder / f"{stem}.pdf"


def build_one(site: str, out: str | None, templates: str | None) -> Outcome:
    """Load, design and write the PDF of one site. Never raises: failures come back as an Outcome."""
    import time

    t0 = time.perf_counter()
    try:
        inputs = load_inputs(site, templates)
        from layout.design import run as run_design

        design = run_design(inputs)
    except InputError as e:
        return Outcome(
            site, EXIT_BAD_INPUT, seconds=time.perf_counter() - t0, lines=tuple(str(p) for p in e.problems)
        )
    except Exception as e:  # a bug in the pipeline must not stop the other sites
        return Outcome(
            site,
            EXIT_EXPORT_FAILED,
            seconds=time.perf_counter() - t0,
            lines=(f"{site}: design failed: {type(e).__name__}: {e}",),
        )
    target = pdf_path(site, out)
    try:
        from layout.export.pdf import write_pdf

        write_pdf(design, target)
    except Exception as e:
        return Outcome(
            site,
            EXIT_EXPORT_FAILED,
            seconds=time.perf_counter() - t0,
            lines=(f"{target}: export failed: {type(e).__name__}: {e}",),
        )
    return Outcome(site, EXIT_OK, pdf=str(target), seconds=time.perf_counter() - t0)


def _duplicate_targets(sites: list[str], out: str | None) -> list[str]:
    seen: dict[Path, str] = {}
    lines = []
    for s in sites:
        t = pdf_path(s, out)
        if t in seen:
            lines.append(
                f"{s}: (file): writes {t} like {seen[t]}; give sites distinct file names or run them "
                "with different --out folders"
            )
        seen.setdefault(t, s)
    return lines


def _child(conn: Any, site: str, out: str | None, templates: str | None) -> None:
    """A worker process: build one site and send its Outcome back."""
    try:
        conn.send(build_one(site, out, templates))
    finally:
        conn.close()


def _death(exitcode: int | None) -> str:
    import signal

    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


def build_isolated(
    sites: list[str],
    out: str | None,
    templates: str | None,
    jobs: int,
    done: Any,
    tick: Any = lambda: None,
) -> None:
    """Build each site in a process of its own, ``jobs`` at a time, calling ``done(outcome)`` as each
    ends (in the order they end) and ``tick()`` a few times a second. A process that ends without an
    outcome (os._exit, a signal) is that site's failure; the others go on. The processes fork from
    this one (the pipeline imported once), so the caller must run no other thread meanwhile."""
    import multiprocessing as mp
    from multiprocessing.connection import wait

    ctx = mp.get_context("fork")
    todo = list(sites)
    running: dict[Any, tuple[Any, str, float]] = {}  # the result pipe's read end -> process, site, start
    try:
        while todo or running:
            while todo and len(running) < jobs:
                site = todo.pop(0)
                read, write = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_child, args=(write, site, out, templates), daemon=True)
                proc.start()
                write.close()  # so the read end sees EOF when the worker dies
                running[read] = (proc, site, time.perf_counter())
            ready = set(wait(list(running), timeout=0.25))
            for conn in [c for c in running if c in ready]:  # readable: an outcome, or EOF if it died
                proc, site, t0 = running.pop(conn)
                try:
                    outcome = conn.recv()
                except (EOFError, OSError):
                    outcome = None
                conn.close()
                proc.join()
                if not isinstance(outcome, Outcome):
                    outcome = Outcome(
                        site,
                        EXIT_EXPORT_FAILED,
                        seconds=time.perf_counter() - t0,
                        lines=(f"{site}: worker died ({_death(proc.exitcode)}); no report written for it",),
                    )
                done(outcome)
            tick()
    finally:  # interrupted: no worker outlives the command
        for proc, _, _ in running.values():
            proc.kill()
            proc.join()


def _report_task(shared: tuple[str | None, str | None], site: str, state: dict[str, Any]) -> Outcome:
    """One site's report as a task of the Dask engine (``--scheduler``)."""
    return build_one(site, *shared)


def build_on_cluster(
    sites: list[str], out: str | None, templates: str | None, engine: Any, done: Any
) -> None:
    """Each site's report as a task on the Dask cluster of ``engine`` (the site files and the output
    folder must be the same paths on its workers); a task whose worker died is that site's failure.
    When the cluster is lost (``engine.lost``), the sites not finished then are not passed to ``done``."""
    from layout.engine import Failed

    def one(i: int, r: Any) -> None:
        if isinstance(r, Failed) and r.lost:
            return
        if isinstance(r, Failed):
            r = Outcome(
                sites[i],
                EXIT_EXPORT_FAILED,
                lines=(f"{sites[i]}: worker failed ({r.reason}); no report written for it",),
            )
        done(r)

    engine.map(_report_task, (out, templates), sites, one)


def run(args: argparse.Namespace) -> int:
    import os

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    sites: list[str] = list(args.sites)
    clashes = _duplicate_targets(sites, args.out)
    if clashes:
        for line in clashes:
            print(line, file=sys.stderr)
        return EXIT_BAD_INPUT
    jobs = max(1, min(args.jobs or os.cpu_count() or 1, len(sites)))
    console = Console(stderr=True, highlight=False)
    outcomes: list[Outcome] = []

    def show(o: Outcome) -> None:
        outcomes.append(o)
        if o.code == EXIT_OK:
            console.print(f"[green]ok[/]   {o.site} -> {o.pdf} ({o.seconds:.1f} s)")
        else:
            tag = "bad input" if o.code == EXIT_BAD_INPUT else "failed"
            console.print(f"[red]{tag}[/] {o.site} ({o.seconds:.1f} s)")
            for line in o.lines:
                console.print(f"    {line}", markup=False, soft_wrap=True)

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    quiet = not console.is_terminal  # no bar, nor the blank line it leaves, where no one sees it move
    lost = None
    if args.scheduler is not None:
        from layout.engine import Engine

        with (
            Engine(args.scheduler) as engine,
            Progress(*columns, console=console, transient=True, disable=quiet) as bar,
        ):
            task = bar.add_task("reports", total=len(sites))

            def on_cluster(o: Outcome) -> None:
                show(o)
                bar.advance(task)

            build_on_cluster(sites, args.out, args.templates, engine, on_cluster)
        lost = engine.lost
    elif len(sites) == 1:
        with Progress(*columns, console=console, transient=True, disable=quiet) as bar:
            task = bar.add_task("reports", total=len(sites))
            show(build_one(sites[0], args.out, args.templates))
            bar.advance(task)
    else:
        # Workers fork from this process: import the pipeline once here instead of once per worker; the
        # bar is refreshed from this thread (no refresh thread: they fork from a quiet process).
        import layout.design
        import layout.export.pdf  # noqa: F401

        with Progress(*columns, console=console, transient=True, auto_refresh=False, disable=quiet) as bar:
            task = bar.add_task("reports", total=len(sites))

            def done(o: Outcome) -> None:
                show(o)
                bar.advance(task)
                bar.refresh()

            build_isolated(sites, args.out, args.templates, jobs, done, bar.refresh)
    written = sum(o.code == EXIT_OK for o in outcomes)
    if lost:
        print(f"stopped: {lost}; {written} of {len(sites)} report(s) written", file=sys.stderr)
        return EXIT_EXPORT_FAILED
    console.print(f"{written} of {len(sites)} report(s) written")
    return max(o.code for o in outcomes)
