"""Benchmark `dclayout compare`: the sixteen variants of a site, serial and in worker processes, with the
time of the pipeline, BOM and reliability of one variant.

    .venv/bin/python bench/bench_compare.py [SITE] [--jobs 1 2]

Default SITE: sites/campus-100k.toml. Prints the per-variant time (one variant, in this process) and the
wall time of the whole comparison for each --jobs value.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from layout import bom, design, reliability  # noqa: E402
from layout.engine import compare  # noqa: E402
from layout.load import load_site  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("site", nargs="?", default=str(ROOT / "sites" / "campus-100k.toml"))
    p.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    args = p.parse_args()
    inputs = load_site(args.site)
    print(f"{args.site}: {inputs.site.cluster.gpus:,} GPUs, {os.cpu_count()} cores")

    v = compare.variants()[0]
    vin = compare.variant_inputs(inputs, v)
    t0 = time.perf_counter()
    d = design.run(vin)
    t1 = time.perf_counter()
    table = bom.build(bom.BomInput.of(vin), d.fabric, d.placement, d.cabling)
    bom.totals(table)
    reliability.design_reliability(reliability.ReliabilityInput.of(vin, d.fabric, d.cabling))
    t2 = time.perf_counter()
    print(f"  one variant ({v.name}): design.run {t1 - t0:.2f} s, BOM + reliability {t2 - t1:.3f} s")

    for jobs in args.jobs:
        start = time.perf_counter()
        df = compare.compare(inputs, jobs=jobs)
        wall = time.perf_counter() - start
        errors = int((df["error"] != "").sum())
        print(
            f"  compare, {len(df)} variants, --jobs {jobs}: {wall:.1f} s ({wall / len(df):.2f} s per variant, {errors} errors)"
        )


if __name__ == "__main__":
    main()
