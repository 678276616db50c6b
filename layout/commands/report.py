"""`dclayout report SITE... --out DIR [-j N]`: one PDF design report per site, sites in parallel processes.

Each site runs in its own worker (load, design, PDF). A bad site is reported with its problems while the
others finish. Exit code: 0 when every report was written, 2 when a site had bad input, 3 when a design
or its export failed (3 wins when both happen). Reports are written atomically: a failed site leaves no
file behind, and an older report of that site is left untouched.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from layout.commands import add_templates_option, load_inputs
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
    stem = Path(site).stem
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


def run(args: argparse.Namespace) -> int:
    import os
    from concurrent.futures import Future, ProcessPoolExecutor, as_completed

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
    if jobs == 1:
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task("reports", total=len(sites))
            for s in sites:
                show(build_one(s, args.out, args.templates))
                bar.advance(task)
    else:
        # Workers fork from this process: import the pipeline once here instead of once per worker, and
        # submit before the progress bar starts its refresh thread, so they fork from a quiet process.
        import layout.design
        import layout.export.pdf  # noqa: F401

        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures: dict[Future[Outcome], str] = {
                pool.submit(build_one, s, args.out, args.templates): s for s in sites
            }
            with Progress(*columns, console=console, transient=True) as bar:
                task = bar.add_task("reports", total=len(sites))
                for fut in as_completed(futures):
                    try:
                        show(fut.result())
                    except Exception as e:  # the worker process itself died (killed, out of memory)
                        show(
                            Outcome(
                                futures[fut],
                                EXIT_EXPORT_FAILED,
                                lines=(f"{futures[fut]}: worker died: {type(e).__name__}: {e}",),
                            )
                        )
                    bar.advance(task)
    written = sum(o.code == EXIT_OK for o in outcomes)
    console.print(f"{written} of {len(sites)} report(s) written")
    return max(o.code for o in outcomes)
