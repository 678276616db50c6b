"""Benchmark every export of a designed site against the design itself (target, issue 11: each export
costs no more than 1.5 x design.run on the 100k campus).

    .venv/bin/python bench/bench_exports.py [SITE] [--repeat N]

Default SITE: sites/campus-100k.toml. Times design.run, the scene (layout.scene.scene_of), and each kind
through layout.export.write on its own (summary, svg, dxf, pdf, csv, xlsx), best of N, written to a
temporary folder. Wall-clock on a shared machine: compare figures from the same run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from layout import design, export  # noqa: E402
from layout.load import load_site  # noqa: E402
from layout.scene import scene_of  # noqa: E402


def best(repeat: int, fn: object) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("site", nargs="?", default=str(ROOT / "sites" / "campus-100k.toml"))
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args()
    inputs = load_site(args.site)
    run_s = best(args.repeat, lambda: design.run(inputs))
    d = design.run(inputs)
    summary = d.summary()
    print(
        f"{args.site}: {len(d.placement.racks):,} racks, {len(d.cabling.links):,} links; {os.cpu_count()} cores"
    )
    print(f"design.run              {run_s:6.2f} s")
    scene_s = best(args.repeat, lambda: scene_of(d, summary))
    print(f"scene                   {scene_s:6.2f} s")
    out = Path(tempfile.mkdtemp(prefix="bench_exports_"))
    for kind in export.KINDS:
        s = best(args.repeat, lambda k=kind: export.write(d, [k], out, summary=summary))
        size = sum(f.stat().st_size for f in out.iterdir()) / 1e6
        print(f"{kind:<8} (scene incl.) {s:6.2f} s  = {s / run_s:4.1f} x design.run  ({size:.1f} MB so far)")


if __name__ == "__main__":
    main()
