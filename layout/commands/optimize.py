"""`dclayout optimize SITE [--out DIR] [--budget-s N] [--evaluations N] [--seed N] [--objective ...]
[--years N] [--batch N] [--no-assign] [--scheduler ADDR] [--workers N]`: search where the MDF, the
spines and the SUs stand and which way the rows run for the lowest transceivers + cables cost
(layout.engine.optimize; each hall's SU order by an exact assignment step, layout.engine.assign, unless
``--no-assign``), on Dask (a local cluster of this machine's cores, or ``--scheduler tcp://HOST:PORT``).

Writes ``DIR/STEM-optimized.toml`` (the site with the chosen layout as site keys, comments kept; it is
designed again here and must reproduce the optimum's figures) and ``DIR/optimize.json`` (baseline, best,
lower bound and gap, what moved, evaluations, time, the convergence); with ``--pdf``, the optimised
site's report ``DIR/STEM-optimized.pdf`` with a layout optimisation chapter (convergence chart, media
before and after). Default DIR: outputs/<stem>/.

Exit codes: 0 done, 2 bad input (a ``--scheduler`` that is no address, does not answer or has no worker:
one line), 3 a file could not be written or the written site did not reproduce, or the Dask cluster was
lost during the search (its scheduler, or every worker; an evaluation lost with one worker is run again
on the others): the search ends there, the best layout so far is written with ``optimize.json`` saying
``stopped`` (what was lost) and ``lost_evaluations``, and one line names what was lost; nothing is
written when the baseline itself did not come back.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from layout.commands import add_scheduler_option, add_templates_option, load_inputs


def _positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            v = kind(text)
        except ValueError:
            v = 0
        if v <= 0:
            raise argparse.ArgumentTypeError(f"not a positive number: {text!r}")
        return v

    return parse


def add_workers_option(p: Any) -> None:
    """``--workers N``: the local cluster's size."""
    p.add_argument(
        "--workers",
        type=_positive(int),
        default=None,
        metavar="N",
        help="local cluster workers (default: one per core; 1 runs everything in this process)",
    )


def add_parser(sub: Any) -> None:
    from layout.objectives import OBJECTIVES

    p = sub.add_parser(
        "optimize",
        help="search the floor layout (MDF, spines, SU order, row direction) for the fewest optics",
        description="Search where the MDF, each hall's spines and SUs stand and which way the rows run, "
        "for the lowest cost of transceivers and cables, with no new design-rule violation.",
    )
    p.add_argument("site", metavar="SITE", help="site TOML file")
    p.add_argument("--out", default=None, metavar="DIR", help="output folder (default: outputs/<stem>/)")
    p.add_argument("--budget-s", type=_positive(float), default=600.0, metavar="N", help="time limit (s)")
    p.add_argument(
        "--evaluations", type=_positive(int), default=200, metavar="N", help="designs to evaluate at most"
    )
    p.add_argument("--seed", type=int, default=0, metavar="N", help="random seed (same seed, same result)")
    p.add_argument("--objective", choices=OBJECTIVES, default="optics", help="what to minimise")
    p.add_argument(
        "--years", type=_positive(float), default=5.0, metavar="N", help="years of optics energy counted"
    )
    p.add_argument("--batch", type=_positive(int), default=4, metavar="N", help="candidates per round")
    p.add_argument(
        "--no-assign",
        dest="assign",
        action="store_false",
        help="leave out the exact step (each hall's SU order by linear assignment); default: on",
    )
    p.add_argument(
        "--pdf",
        action="store_true",
        help="also write the optimised site's report, STEM-optimized.pdf, with a layout optimisation chapter",
    )
    add_scheduler_option(p)
    add_workers_option(p)
    add_templates_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from layout import design as design_mod
    from layout.engine import ClusterLost, Engine
    from layout.engine import optimize as opt
    from layout.errors import EXIT_EXPORT_FAILED, EXIT_OK
    from layout.export.tables import json_text
    from layout.files import safe_name, write_text
    from layout.load import load_site

    started = time.monotonic()
    inputs = load_inputs(args.site, args.templates)
    text = Path(args.site).read_text(encoding="utf-8")
    problem = opt.Problem(inputs, opt.Space.of(inputs.site), args.years)
    console = Console(stderr=True, highlight=False)
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("best ${task.fields[best]}"),
        TimeElapsedColumn(),
    )
    with (
        Engine(args.scheduler, args.workers) as engine,
        Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar,
    ):
        task = bar.add_task("optimize", total=args.evaluations, best="-")

        def tick(so_far: opt.Result) -> None:
            best = so_far.history[-1]["best"]
            bar.update(task, completed=so_far.evaluations, best=f"{best / 1e6:,.2f} M")

        try:
            result = opt.search(
                problem,
                engine,
                seed=args.seed,
                max_evals=args.evaluations,
                budget_s=args.budget_s,
                batch=args.batch,
                kind=args.objective,
                tick=tick,
                assign=args.assign,
            )
        except ClusterLost as e:
            print(
                f"{args.site}: stopped: {e}; not even the baseline came back, nothing written",
                file=sys.stderr,
            )
            return EXIT_EXPORT_FAILED
        workers = engine.n_workers()
    options = problem.space.options(inputs.site, result.best_layout)
    out_dir = Path(args.out) if args.out else Path("outputs") / safe_name(inputs.stem)
    toml_path = out_dir / f"{safe_name(inputs.stem)}-optimized.toml"
    new_text = opt.optimized_text(text, options)
    try:
        write_text(toml_path, new_text)
    except OSError as e:
        print(f"{toml_path}: export failed: {e}", file=sys.stderr)
        return EXIT_EXPORT_FAILED
    # the written file, designed again from disk, must give the optimum's figures
    again = design_mod.run(load_site(toml_path, inputs.templates_dir))
    check = opt.score(again, args.years)
    reproduced = check == result.best
    base_design = design_mod.run(inputs)
    bound = opt.lower_bound(base_design)
    base_obj = opt.objective(result.baseline, args.objective)
    best_obj = opt.objective(result.best, args.objective)
    report = {
        "site": inputs.site.site.name,
        "file": str(toml_path),
        "objective": args.objective,
        "years": args.years,
        "seed": args.seed,
        "evaluations": result.evaluations,
        "assign_steps": result.assign_steps,
        "assign_steps_taken": result.assign_kept,
        "seconds": round(time.monotonic() - started, 1),
        "search_seconds": round(result.seconds, 1),
        "workers": workers,
        "baseline": result.baseline,
        "best": result.best,
        "saving_usd": round(base_obj - best_obj, 2),
        "saving_pct": round(100.0 * (base_obj - best_obj) / base_obj, 2) if base_obj else 0.0,
        "lower_bound_optics_usd": bound,
        "gap_to_lower_bound_pct": round(100.0 * (result.best["optics_usd"] - bound) / bound, 2)
        if bound
        else 0.0,
        "moved": options,
        "reproduced": reproduced,
        "stopped": result.stopped or None,
        "lost_evaluations": result.lost,
        "failed": result.failed,
        "history": result.history,
    }
    json_path = out_dir / "optimize.json"
    try:
        write_text(json_path, json_text(report))
    except OSError as e:
        print(f"{json_path}: export failed: {e}", file=sys.stderr)
        return EXIT_EXPORT_FAILED
    if result.stopped:  # the best so far is written; the one line says what was lost
        print(
            f"{args.site}: stopped: {result.stopped}; after {result.evaluations} of {args.evaluations} "
            f"evaluations ({result.lost} lost), the best so far written to {toml_path} and {json_path}",
            file=sys.stderr,
        )
        return EXIT_EXPORT_FAILED
    console.print(
        f"{args.site}: transceivers + cables ${result.baseline['optics_usd'] / 1e6:,.2f} M -> "
        f"${result.best['optics_usd'] / 1e6:,.2f} M ({report['saving_pct']:.1f} % less on the objective), "
        f"lower bound ${bound / 1e6:,.2f} M; {result.evaluations} designs in {result.seconds:.0f} s on "
        f"{workers} worker(s)"
    )
    if args.pdf:
        from layout.export.pdf import write_pdf

        pdf_path = out_dir / f"{safe_name(inputs.stem)}-optimized.pdf"
        try:
            write_pdf(again, pdf_path, optimized=report)
        except Exception as e:
            print(f"{pdf_path}: export failed: {type(e).__name__}: {e}", file=sys.stderr)
            return EXIT_EXPORT_FAILED
        console.print(f"wrote {pdf_path}")
    console.print(f"wrote {toml_path} and {json_path}")
    if not reproduced:
        console.print(f"[red]{toml_path} does not reproduce the optimum[/red]")
        return EXIT_EXPORT_FAILED
    return EXIT_OK
