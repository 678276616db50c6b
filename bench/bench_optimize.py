"""Benchmark `dclayout optimize`'s engine: candidate evaluations per second with 1 and 2 workers.

    .venv/bin/python bench/bench_optimize.py [SITE] [--evaluations N] [--workers 1 2] [--scheduler ADDR]
        [--no-assign]

Default SITE: sites/seed002-32k.toml. For each worker count, a fixed-seed search of N evaluations: the
wall time (evaluations per second) with the engine's start-up excluded, and the CPU time of this
process (the workers' CPU is theirs); workers 1 runs in this process with one design memo. Also the
time of one cold and one warm design.run in this process, the CPU time of one assignment step
(layout.engine.assign) on the site as it is, the load average before and after (the machine is shared:
figures taken under load understate what a second worker gains), and whether every run found the same
best. ``--no-assign``: the search without the assignment step.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from layout import design  # noqa: E402
from layout.engine import Engine  # noqa: E402
from layout.engine import optimize as opt  # noqa: E402
from layout.engine.assign import su_orders  # noqa: E402
from layout.load import load_site  # noqa: E402
from layout.memo import Memo  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("site", nargs="?", default=str(ROOT / "sites" / "seed002-32k.toml"))
    p.add_argument("--evaluations", type=int, default=24)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--scheduler", default=None)
    p.add_argument("--no-assign", dest="assign", action="store_false")
    args = p.parse_args()
    inputs = load_site(args.site)
    print(f"{args.site}: {inputs.site.cluster.gpus:,} GPUs, {os.cpu_count()} cores, load {_load()}")
    cache = Memo()
    for label in ("cold", "warm"):
        c0, t0 = time.process_time(), time.perf_counter()
        d = design.run(inputs, memo=cache)
        print(
            f"  design.run {label}: {time.perf_counter() - t0:.2f} s wall, {time.process_time() - c0:.2f} s CPU"
        )
    c0 = time.process_time()
    step = su_orders(d)
    print(
        f"  assignment step: {time.process_time() - c0:.2f} s CPU, {len(step.orders)} hall(s) reordered, "
        f"${step.saving_usd / 1e6:,.2f} M by its own cost"
    )
    problem = opt.Problem(inputs, opt.Space.of(inputs.site), 5.0)
    runs = [(w, None) for w in args.workers] + ([(0, args.scheduler)] if args.scheduler else [])
    bests = []
    for workers, scheduler in runs:
        with Engine(scheduler, workers or None) as engine:
            n = engine.n_workers()
            c0, t0 = time.process_time(), time.perf_counter()
            r = opt.search(
                problem, engine, seed=0, max_evals=args.evaluations, budget_s=3600, assign=args.assign
            )
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        bests.append(r.best_layout)
        where = scheduler or ("in process" if n == 1 and not scheduler else "local cluster")
        print(
            f"  {n} worker(s) ({where}): {r.evaluations} evaluations in {wall:.1f} s = "
            f"{r.evaluations / wall:.2f} per s ({cpu:.1f} s CPU here); best ${r.best['optics_usd'] / 1e6:,.2f} M "
            f"from ${r.baseline['optics_usd'] / 1e6:,.2f} M, {r.assign_steps} assignment step(s); load {_load()}"
        )
    print(f"  same best layout in every run: {all(b == bests[0] for b in bests)}")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
