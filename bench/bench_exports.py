"""Time `design.run` on the 100k campus, then each export of that design on its own, as
`dclayout design --FLAG` would write it (the links table is built inside the csv, parquet and xlsx rows,
since each of those flags alone builds it once).

    .venv/bin/python bench/bench_exports.py [--runs N] [--site sites/campus-100k.toml] [--only csv,xlsx]

The bars: every export no more than 1.5x design.run (issue 25); ``all``, every export of
``dclayout design --dxf --pdf --csv --xlsx --parquet`` in one call, within 2x (issue 32). Prints best and median wall seconds per
export, best CPU seconds (steadier on a shared machine), each as a ratio to design.run, and the bytes
written.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from timing import ROOT

from layout import design
from layout.load import load_site

BAR = 1.5


def timed(fn: Callable[[], Any], runs: int) -> tuple[float, float, float, Any]:
    """Best and median wall time, best CPU time (this process, all threads, and its workers) of ``runs`` calls, and the
    last result. CPU time says more than wall time on a machine shared with other work."""
    walls, cpus, out = [], [], None
    for _ in range(runs):
        w, c = time.perf_counter(), _cpu()
        out = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(_cpu() - c)
    return min(walls), statistics.median(walls), min(cpus), out


def _cpu() -> float:
    """CPU seconds of this process and of the worker processes it has waited for (export lanes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def exporters(d: Any, out: Path) -> dict[str, Callable[[], list[Path]]]:
    """Export name -> a call that writes it into ``out`` through layout.export.write (as dclayout design
    and the TUI write it: the scene is worked out inside each drawing's call) and returns the paths."""
    from layout import export
    from layout.export import lanes

    summary = d.summary()
    runs: dict[str, Callable[[], list[Path]]] = {
        name: (lambda name=name: export.write(d, [name], out, summary=summary))
        for name in ("dxf", "pdf", "csv", "parquet", "xlsx", "svg", "summary")
    }
    # issue 32's bar: every export of `dclayout design --dxf --pdf --csv --xlsx --parquet` (and the
    # SVGs and summary it writes by default) in one call, as the CLI writes them, within 2x the design
    # with worker processes as `dclayout design` writes them (layout/export/lanes.py), and in one process
    runs["all"] = lambda: export.write(d, list(ALL), out, summary=summary, jobs=lanes.default_jobs())
    runs["all 1 proc"] = lambda: export.write(d, list(ALL), out, summary=summary)
    return runs


ALL = ("summary", "svg", "dxf", "pdf", "csv", "xlsx", "parquet")
ALL_BAR = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--site", default=str(ROOT / "sites" / "campus-100k.toml"))
    parser.add_argument("--only", default="", help="comma-separated exports (default: all)")
    parser.add_argument("--json", default="", help="also write the figures to this JSON file")
    args = parser.parse_args()
    inputs = load_site(args.site)

    def cold_run() -> Any:
        return design.run(inputs)  # no cache: nothing kept between runs, as the CLI runs

    best_d, med_d, cpu_d, d = timed(cold_run, args.runs)
    rows: dict[str, dict[str, float]] = {
        "design.run": {"best_s": best_d, "median_s": med_d, "cpu_s": cpu_d, "bytes": 0}
    }
    tmp = Path(tempfile.mkdtemp(prefix="bench-exports-"))
    try:
        runs = exporters(d, tmp)
        wanted = [n for n in args.only.split(",") if n] or list(runs)
        for name in wanted:
            best, med, cpu, paths = timed(runs[name], args.runs)
            size = sum(p.stat().st_size for p in paths)
            rows[name] = {"best_s": best, "median_s": med, "cpu_s": cpu, "bytes": size}
    finally:
        shutil.rmtree(tmp)
    print(f"{args.site}: best / median of {args.runs} runs")
    print(f"  {'':<12} {'best s':>8} {'median s':>9} {'x design':>9} {'CPU s':>8} {'x design':>9} {'MB':>8}")
    for name, r in rows.items():
        ratio, cpu_ratio = r["best_s"] / best_d, r["cpu_s"] / cpu_d
        bar = ALL_BAR if name.startswith("all") else BAR
        flag = "" if name == "design.run" or min(ratio, cpu_ratio) <= bar else f"  over {bar}x"
        print(
            f"  {name:<12} {r['best_s']:8.3f} {r['median_s']:9.3f} {ratio:9.2f} {r['cpu_s']:8.3f} "
            f"{cpu_ratio:9.2f} {r['bytes'] / 1e6:8.2f}{flag}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
