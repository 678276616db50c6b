"""Benchmark placement and the power check on the 100k campus (seed 000: 98,304 H100 in 4 buildings),
with the fabric build before them for scale, and `design.run` end to end (every stage it has).

    .venv/bin/python bench/bench_place.py [--runs N] [--site sites/campus-100k.toml] [--one-hall]

Prints best and median of N runs per stage, and what was placed. The issue's bar: placement < 2 s.

``--one-hall``: only the place stage of the edits that move racks in one hall (bench_design.py
``rack_moving_edits``: B2/H2's it_mw, a user row, the low-density rack), each with a copy of a
PlaceCache warmed on the unedited site (as the TUI's first such edit): CPU time, best of N.

Measured (campus, CPU ms, best of 7, runs of main 31d1001 and of place-hall interleaved on 2 cores
shared with 3 other agents, load 2-4; the spread is the load): it_mw -> 18 39-64 -> 9-13; a user row
45-77 -> 22-26; the low-density rack 49-77 -> 22-25 (bench_design.py --one-hall, place stage, best of
3: 48 / 63 / 69 -> 8 / 36 / 31: inside the whole design run the garbage collector's passes over the
larger heap fall in it too). What went: the racks and rows tables built from lists (~7 ms) and
the aisle check's keys from text columns (~6 ms), now each hall's columns kept with its ids and the
tables joined from them; the whole building laid out rack by rack (a block that fits its interval is
laid in one go); the spines' halls by pandas groupby over every link per pod; a new Spot for every
rack of every later building when a hall grid changed (spots now count cells in their hall); the
final layout, grid, tables and aisle check made again on an it_mw edit that moves no SU (their keys
no longer hold power); each kept key compared twice (Kept.take). Left per such edit: the edited
building's trial (~2.5 ms) and final layout (~3.5 ms), the edited hall's grid (~2-3 ms), tables
(~1-2 ms) and aisle check (~2 ms), the user-row check of its hall (~1.5 ms), key comparisons.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import math
import shutil
import tempfile
import time
from pathlib import Path

from bench_design import rack_moving_edits  # noqa: E402
from timing import ROOT, timed  # noqa: E402  (bench/timing.py puts the repo on sys.path)

from layout import design, place  # noqa: E402
from layout.cache import DesignCache  # noqa: E402
from layout.kept import Kept  # noqa: E402
from layout.load import load_site  # noqa: E402
from layout.place.zones import ZoneStore  # noqa: E402
from layout.power import loads as power  # noqa: E402
from layout.siteedit import SiteEditor  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--site", default=str(ROOT / "sites" / "campus-100k.toml"))
    parser.add_argument("--one-hall", action="store_true", help="only the place stage of one-hall edits")
    args = parser.parse_args()
    if args.one_hall:
        one_hall_edits(args.site, args.runs)
        return
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


def fresh(cache: place.PlaceCache) -> place.PlaceCache:
    """A copy of a warmed cache (the same kept values), so each timed edit starts from the same stores."""
    stores = {f.name: getattr(cache, f.name) for f in dataclasses.fields(cache)}
    zones = ZoneStore(cache.zones.trials.copy(), cache.zones.finals.copy())
    return place.PlaceCache(**{k: v.copy() if isinstance(v, Kept) else zones for k, v in stores.items()})


def one_hall_edits(site: str, runs: int) -> None:
    """The place stage of each rack-moving edit of one hall, from a copy of a cache warmed on the site."""
    tmp = Path(tempfile.mkdtemp())
    path = tmp / Path(site).name
    shutil.copy(site, path)
    cache = DesignCache()
    inputs = SiteEditor(path).inputs
    warm = place.PlaceCache()
    place.place(inputs, design.check(inputs, cache), warm)
    print(f"{Path(site).name}: place stage of one-hall edits, warm cache, CPU ms, best of {runs}")
    for label, edit in rack_moving_edits(inputs):
        editor = SiteEditor(path)
        editor.apply(edit)
        fab = design.check(editor.inputs, cache)
        best = math.inf
        for _ in range(runs):
            copy = fresh(warm)
            gc.collect()
            start = time.process_time()
            place.place(editor.inputs, fab, copy)
            best = min(best, time.process_time() - start)
        print(f"  {label:<36} {best * 1000:6.1f} ms")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
