"""The stages after cabling in ``design.run`` (power.check, power_chain.build, cdus.liquid_loop, bom.build,
reliability.design_reliability) on the first run after an edit of one hall of the 100k campus, as the TUI runs
it: with a DesignCache warmed on the unedited site. CPU time of this process (``time.process_time``)
per function and together, best of ``--runs`` (each with a fresh cache).

    .venv/bin/python bench/bench_power_bom.py [--runs N] [--site sites/campus-100k.toml]

The edits: B1/H1's max kW 50 -> 45 (keeps its GPU rack: place and cable come from the cache), its
cooling -> liquid, and bench_design's edits that move racks in B2/H2 (its it_mw, whose placement is
the same racks again; a user row; the low-density GPU rack: re-cabled).

Measured on the campus (2 cores shared with 3 other agents, load 2-3; CPU ms, best of 7; "power" =
check + chain + liquid loop, "bom" = build + reliability), main 31d1001 -> power-bom 7cda6d9:

    edit                        power            bom              together
    B1/H1 max kW 50 -> 45        33.6 ->  5.3    25.5 ->  3.7     60.1 ->  9.0
    B1/H1 cooling -> liquid      38.4 -> 10.3    33.2 ->  4.0     81.9 -> 15.0
    B2/H2 it_mw -> 18            35.2 -> 11.5    29.4 ->  4.1     68.9 -> 16.9
    B2/H2 a user row             34.5 -> 19.2    26.3 -> 16.3     60.9 -> 35.6
    B2/H2 max kW -> 30           33.7 -> 18.9    23.4 -> 13.2     57.1 -> 32.0

Over three such pairs of runs (best of 5, 5, 7) "together" was 55-82 ms before for every edit, and
after: 6.9-9.0 (max kW), 13.1-15.6 (cooling), 15.1-16.9 (it_mw), 28.7-35.6 (user row), 28.9-34.1
(low density): an edit that moves no rack 4-7x less, one that moves racks ~1.7-2.3x less.

What changed: the power report's loads (per device, rack and row kW, floor loads, each hall's sums),
each hall's power chain and the whole chain, the BOM's transceiver, cable and tray rows and the
reliability figures are kept in the DesignCache by all they are made from (layout/cache.py); what is
made again goes without pandas groupby/agg, value_counts and np.unique(return_inverse) on arrow
strings. An edit that moves racks re-makes the loads (the placement is new), the edited hall's chain
and the whole chain's tables, and the cabling's BOM rows and reliability (the cabling is new).
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from timing import ROOT

from layout import design
from layout.cache import DesignCache
from layout.load import load_site
from layout.siteedit import SetHall, SiteEditor

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_design import rack_moving_edits  # noqa: E402

STAGES = (
    ("power_mod", "check"),
    ("chain_mod", "build"),
    ("cdus_mod", "liquid_loop"),
    ("bom_mod", "build"),
    ("reliability_mod", "design_reliability"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--site", default=str(ROOT / "sites" / "campus-100k.toml"))
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    path = tmp / Path(args.site).name
    shutil.copy(args.site, path)
    (b, h), *_ = load_site(path).site.halls()
    key = f"{b.id}/{h.id}"
    edits: list[tuple[str, Any]] = [
        (
            f"{key} max kW {h.max_rack_kw:g} -> {h.max_rack_kw - 5:g}",
            SetHall(key, "max_rack_kw", h.max_rack_kw - 5),
        ),
        (f"{key} cooling -> liquid", SetHall(key, "cooling", "liquid")),
        *rack_moving_edits(load_site(path)),
    ]
    times: dict[str, float] = {}
    for mod_name, fn in STAGES:  # each stage timed where design.run calls it
        mod = getattr(design, mod_name)
        setattr(mod, fn, _timed(getattr(mod, fn), f"{mod.__name__.removeprefix('layout.')}.{fn}", times))
    best: dict[str, dict[str, float]] = {}
    for _ in range(args.runs):
        editor = SiteEditor(path)
        cache = DesignCache()
        design.run(editor.inputs, cache=cache)
        for label, edit in edits:
            editor.apply(edit)
            times.clear()
            design.run(editor.inputs, cache=cache)
            got = dict(times)
            got["power"] = sum(v for k, v in times.items() if k.startswith("power."))
            got["bom"] = sum(v for k, v in times.items() if not k.startswith("power."))
            got["together"] = got["power"] + got["bom"]
            mine = best.setdefault(label, {})
            for k, v in got.items():
                mine[k] = min(mine.get(k, math.inf), v)
            editor.undo()
            design.run(editor.inputs, cache=cache)  # back to the unedited site, warm
    shutil.rmtree(tmp)
    print(f"{args.site}: the first run after each edit, warm cache (CPU ms, best of {args.runs})")
    for label, figures in best.items():
        print(f"  {label:<34} " + " ".join(f"{k} {v * 1000:.1f}" for k, v in figures.items()))


def _timed(fn: Any, name: str, times: dict[str, float]) -> Any:
    def run(*args: Any, **kw: Any) -> Any:
        start = time.process_time()
        try:
            return fn(*args, **kw)
        finally:
            times[name] = times.get(name, 0.0) + time.process_time() - start

    return run


if __name__ == "__main__":
    main()
