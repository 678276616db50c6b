"""`dclayout sweep SPEC.toml [--out DIR] [--scheduler ADDR] [--workers N]`: a grid over sites x cluster
options (layout.engine.sweep), every point designed on Dask (a local cluster, or ``--scheduler``);
writes ``DIR/sweep.csv`` (one row per point) and ``DIR/sweep-pareto.svg`` (cost vs optics vs network
power, the Pareto front marked). Default DIR: outputs/<spec file stem>/. A point that cannot be built
or whose task failed is a row with its error, not the end of the sweep.

Exit codes: 0 done, 2 bad spec or site (or a ``--scheduler`` that is no address, does not answer or has
no worker: one line), 3 an output could not be written, or the Dask cluster was lost during the run (its
scheduler, or every worker): the table and chart are written with the points that finished (the others
are rows whose ``error`` says what was lost) and one line names what was lost.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from layout.commands import add_scheduler_option
from layout.commands.optimize import add_workers_option


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "sweep",
        help="design a grid of sites x cluster options (GPUs, switch, design, NIC, rack) in one table",
        description="Run the whole pipeline for every combination of a spec file's sites and cluster "
        "options, on Dask, and write one table and a Pareto chart of cost, optics and network power.",
    )
    p.add_argument("spec", metavar="SPEC", help="sweep spec TOML file (sites = [...], [grid])")
    p.add_argument("--out", default=None, metavar="DIR", help="output folder (default: outputs/<spec stem>/)")
    add_scheduler_option(p)
    add_workers_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from layout.engine import Engine, Failed
    from layout.engine import sweep as sweep_mod
    from layout.errors import EXIT_EXPORT_FAILED, EXIT_OK
    from layout.export.pareto import pareto_svg
    from layout.export.tables import write_csv
    from layout.files import safe_name, write_text

    started = time.monotonic()
    spec = sweep_mod.load_spec(args.spec)
    n = len(spec.points())
    console = Console(stderr=True, highlight=False)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with (
        Engine(args.scheduler, args.workers or None) as engine,
        Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar,
    ):
        task = bar.add_task("sweep", total=n)
        lost: list[int] = []

        def done(i: int, r: Any) -> None:
            bar.advance(task)
            if isinstance(r, Failed) and r.lost:
                lost.append(i)

        table = sweep_mod.sweep(spec, engine, done)
    out_dir = Path(args.out) if args.out else Path("outputs") / safe_name(spec.path.stem)
    keys = [k for k, _ in spec.grid]
    try:
        csv = write_csv(table, out_dir / "sweep.csv")
        svg = write_text(out_dir / "sweep-pareto.svg", pareto_svg(table, keys, f"sweep {spec.path.stem}"))
    except OSError as e:
        print(f"{out_dir}: export failed: {e}", file=sys.stderr)
        return EXIT_EXPORT_FAILED
    if engine.lost:  # what finished is written; the one line says what was lost
        print(
            f"{args.spec}: stopped: {engine.lost}; {n - len(lost)} of {n} points finished, written to "
            f"{csv} and {svg}",
            file=sys.stderr,
        )
        return EXIT_EXPORT_FAILED
    bad = int((table["error"] != "").sum())
    front = int(table["pareto"].sum())
    console.print(
        f"{args.spec}: {n} points in {time.monotonic() - started:.1f} s, {front} on the Pareto front"
        + (f", {bad} could not be designed" if bad else "")
    )
    for r in table[table["error"] != ""].to_dict(orient="records"):
        console.print(f"  {r['site']} {' '.join(str(r[k]) for k in keys)}: {r['error']}", markup=False)
    console.print(f"wrote {csv} and {svg}")
    return EXIT_OK
