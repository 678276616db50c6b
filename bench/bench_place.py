"""Benchmark placement and the power check on the 100k campus (seed 000: 98,304 H100 in 4 buildings),
with the fabric build before them for scale, and `design.run` end to end (every stage it has).

    .venv/bin/python bench/bench_place.py [--runs N] [--site sites/campus-100k.toml]

Prints best and median of N runs per stage, and what was placed. The issue's bar: placement < 2 s.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from timing import ROOT, timed  # noqa: E402  (bench/timing.py puts the repo on sys.path)

from layout import design, place, power  # noqa: E402
from layout.load import load_site  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--site", default=str(ROOT / "sites" / "campus-100k.toml"))
    args = parser.parse_args()
    inputs = load_site(args.site)

    rows = []

    def fabric_tables() -> object:
        f = design.build_fabric(inputs)
        _ = f.devices, f.links  # the DataFrames are built on first use: count them here
        return f

    best, med, fab = timed(fabric_tables, args.runs)
    rows.append(("fabric.build + tables", best, med))
    best, med, pl = timed(lambda: place.place(inputs, fab), args.runs)  # type: ignore[arg-type]
    rows.append(("place.place", best, med))
    best, med, pw = timed(lambda: power.check(inputs, fab, pl), args.runs)  # type: ignore[arg-type]
    rows.append(("power.check", best, med))
    best, med, _ = timed(lambda: design.run(inputs), max(1, args.runs // 2))
    rows.append(("design.run (all stages)", best, med))

    print(f"{Path(args.site).name}: best / median of {args.runs} runs")
    for name, b, m in rows:
        print(f"  {name:<26} {b:7.3f} s  {m:7.3f} s")
    assert isinstance(pl, place.Placement) and isinstance(pw, power.PowerReport)
    gpus = int(pl.racks["servers"].sum()) * inputs.catalog.server[inputs.site.cluster.server].gpus
    print(f"  placed {len(pl.racks):,} racks in {len(pl.rows):,} rows ({pl.racks_by_template()}), "
          f"{gpus:,} GPUs, {int((pl.device_rack >= 0).sum()):,} of {len(pl.device_rack):,} devices")  # fmt: skip
    print(
        f"  IT {pw.it_mw:.1f} MW, facility {pw.facility_mw:.1f} MW, {pw.annual_twh:.3f} TWh/yr, max rack {pw.max_rack_kw:.1f} kW"
    )
    place_best = rows[1][1]
    print(f"  placement under 2 s: {'yes' if place_best < 2.0 else 'NO'} ({place_best:.3f} s)")


if __name__ == "__main__":
    main()
