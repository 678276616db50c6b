"""Benchmark the TUI's background layout search (layout.tui.optimizer, key O) with its default budget.

    .venv/bin/python bench/bench_tui_optimise.py [SITE ...] [--evaluations N] [--budget-s S]

Default SITEs: sites/superpod-4su.toml and sites/gb200-hall.toml. For each, the search the TUI runs
(seed 0, the budget layout.tui.optimizer.budget_for gives, unless --evaluations / --budget-s), here in
this process with no screen: designs evaluated, the wall and CPU seconds (the TUI shares the CPU with
its screen and its own design runs, so it is slower there), how it ended, transceivers + cables before
and after, and what moved. Also the peak RSS of this process.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from layout.load import load_site  # noqa: E402
from layout.tui import optimizer  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument(
        "sites",
        nargs="*",
        default=[str(ROOT / "sites" / n) for n in ("superpod-4su.toml", "gb200-hall.toml")],
    )
    p.add_argument("--evaluations", type=int, default=None)
    p.add_argument("--budget-s", type=float, default=None)
    args = p.parse_args()
    for site in args.sites:
        inputs = load_site(site)
        text = Path(site).read_text(encoding="utf-8")
        b = optimizer.budget_for(inputs.site)
        b = optimizer.Budget(args.evaluations or b.evaluations, args.budget_s or b.seconds)
        c0, t0 = time.process_time(), time.perf_counter()
        got = optimizer.Optimisation(inputs, text, budget=b).run()
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        r = got.result
        print(
            f"{Path(site).name}: {got.evaluations}/{b.evaluations} designs, {got.state}, "
            f"{wall:.1f} s wall, {cpu:.1f} s CPU ({cpu / max(got.evaluations, 1):.2f} s CPU a design)"
        )
        if r is not None:
            print(
                f"  transceivers + cables ${r.baseline['optics_usd']:,.0f} -> ${r.best['optics_usd']:,.0f}"
                f" (-{got.saving_pct:.1f} %); moved: {got.options}"
            )
        elif got.error:
            print(f"  failed: {got.error}")
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss_mb:,.0f} MB")


if __name__ == "__main__":
    main()
