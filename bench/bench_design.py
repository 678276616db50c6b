"""Time every stage of `design.run` on the 100k campus (fabric, place, cable = trays + routing + media +
fill, power, bom) through the pipeline's own progress callback, and the whole run.

    .venv/bin/python bench/bench_design.py [--runs N] [--site sites/campus-100k.toml]

Every timed run is cold, as the CLI runs (``design.run`` without a cache keeps nothing); then the same
runs with one DesignCache that the first of them fills, as the TUI reruns an unchanged cluster and halls.

The issue's bar: the whole design of the 100k campus in under 10 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from timing import ROOT

from layout import design
from layout.cache import DesignCache
from layout.load import load_site


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--site", default=str(ROOT / "sites" / "campus-100k.toml"))
    args = parser.parse_args()
    t0 = time.perf_counter()
    inputs = load_site(args.site)
    load_s = time.perf_counter() - t0
    stages: dict[str, list[float]] = defaultdict(list)
    totals: list[float] = []
    result = None
    for _ in range(args.runs):
        marks: list[tuple[str, float]] = []
        start = time.perf_counter()
        result = design.run(inputs, lambda name, marks=marks: marks.append((name, time.perf_counter())))
        end = time.perf_counter()
        totals.append(end - start)
        for (name, t), nxt in zip(marks, [m[1] for m in marks[1:]] + [end], strict=True):
            stages[name].append(nxt - t)
    assert result is not None
    s = result.summary()
    print(f"{args.site}: best / median of {args.runs} runs")
    print(f"  {'load_site':<12} {load_s:7.3f} s")
    for name in design.STAGES:
        print(f"  {name:<12} {min(stages[name]):7.3f} s {statistics.median(stages[name]):7.3f} s")
    print(f"  {'design.run':<12} {min(totals):7.3f} s {statistics.median(totals):7.3f} s")
    print(
        f"  {s['gpus']:,} GPUs, {s['racks']['total']:,} racks, {len(result.cabling.links):,} links routed, "
        f"IT {s['power']['it_mw']:.1f} MW, cost ${s['cost_usd']['total'] / 1e9:.2f} B, "
        f"{len(s['violations'])} violations"
    )
    cache = DesignCache()
    design.run(inputs, cache=cache)
    warm = []
    for _ in range(args.runs):
        start = time.perf_counter()
        design.run(inputs, cache=cache)
        warm.append(time.perf_counter() - start)
    print(
        f"  {'warm cache':<12} {min(warm):7.3f} s {statistics.median(warm):7.3f} s (fabric, hall grids kept)"
    )
    print(f"  whole design under 10 s: {'yes' if min(totals) < 10 else 'NO'} ({min(totals):.2f} s)")


if __name__ == "__main__":
    main()
