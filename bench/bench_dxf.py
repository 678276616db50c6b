"""Benchmark the DXF export: build the drawing and write NAME.dxf for a designed site.

    .venv/bin/python bench/bench_dxf.py [SITE] [--repeat N] [--out DIR]

Default SITE: sites/campus-100k.toml (target, issue 11: no more than 1.5 x design.run; bench_exports.py
compares every export with the design). The design runs once and is
not timed; each repeat times scene + drawing (in memory), the DXF bytes, and write_dxf end to end, and
prints the file size and what the drawing holds.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import ezdxf  # noqa: E402
from ezdxf.entities import Insert  # noqa: E402

from layout import design  # noqa: E402
from layout.export import dxf  # noqa: E402
from layout.load import load_site  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("site", nargs="?", default=str(ROOT / "sites" / "campus-100k.toml"))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", default=None, help="folder for the .dxf (default: a temporary folder)")
    args = p.parse_args()
    inputs = load_site(args.site)
    t = time.perf_counter()
    d = design.run(inputs)
    print(
        f"{args.site}: {inputs.site.cluster.gpus:,} GPUs, {len(d.placement.racks):,} racks, "
        f"{len(d.cabling.trays.edges):,} tray edges, {len(d.violations)} violations; "
        f"design.run {time.perf_counter() - t:.1f} s; {os.cpu_count()} cores"
    )

    out_dir = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench_dxf_"))
    target = out_dir / f"{inputs.stem}.dxf"
    for i in range(args.repeat):
        t0 = time.perf_counter()
        drawing = dxf.build_document(d)
        t1 = time.perf_counter()
        data = dxf.document_bytes(drawing, inputs.site.site.date)
        t2 = time.perf_counter()
        dxf.write_dxf(d, target)
        t3 = time.perf_counter()
        print(
            f"run {i + 1}: drawing {t1 - t0:.2f} s + bytes {t2 - t1:.2f} s = {t2 - t0:.2f} s; "
            f"write_dxf end to end {t3 - t2:.2f} s; {len(data) / 1e6:.1f} MB"
        )
    # the trays and racks are spliced in as DXF text when the document is written: count what the file holds
    doc = ezdxf.read(io.StringIO(data.decode("utf-8")))
    msp = doc.modelspace()
    kinds = Counter(e.dxftype() for e in msp)
    attribs = sum(len(e.attribs) for e in msp.query("INSERT") if isinstance(e, Insert))
    print(
        f"model space: {len(msp):,} entities {dict(sorted(kinds.items()))}, {attribs:,} ATTRIBs; "
        f"{len(doc.layouts) - 1} sheets; file {target} ({target.stat().st_size / 1e6:.1f} MB)"
    )


if __name__ == "__main__":
    main()
