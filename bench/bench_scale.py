"""Design time and peak memory against GPU count: generated campuses of N identical buildings
(bench/campus_gen.py), each designed cold in a process of its own.

    .venv/bin/python bench/bench_scale.py [--only 100k,400k,1M,gw]

Per campus: GPUs, buildings, racks, links, wall and CPU time of ``design.run`` (load excluded), the
process's peak resident memory, racks missing, violations, and the links between buildings against the
cut bound (layout/crossings.py). The 100k, 400k and 1M rows are the 100k campus's building (DGX H100,
one 24,576-GPU pod per building, 7:1 between pods) 4, 16 and 41 times; gw is the shipped 1 GW campus.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from campus_gen import PROFILES, site

ROOT = Path(__file__).resolve().parents[1]

CASES = {  # name: (profile, buildings, blocks of two rows)
    "100k": ("h100", 4, 1),
    "400k": ("h100", 16, 2),
    "1M": ("h100", 41, 3),
    "gw": ("gb300", 8, 1),
}

CHILD = r"""
import json, resource, sys, time
from layout import design
from layout.load import load_site
inputs = load_site(sys.argv[1])
w, c = time.perf_counter(), time.process_time()
d = design.run(inputs)
wall, cpu = time.perf_counter() - w, time.process_time() - c
ib = d.inter_building
kinds = {}
for v in d.violations:
    kinds[v.kind] = kinds.get(v.kind, 0) + 1
print(json.dumps({
    "gpus": d.fabric.gpus, "racks": int(len(d.placement.racks)), "links": int(len(d.cabling.links)),
    "wall_s": wall, "cpu_s": cpu, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "missing": int(d.placement.racks_missing), "violations": kinds,
    "cross": ib["links"], "backend_cross": ib["backend_links"], "bound": ib["backend_bound_links"],
    "it_mw": d.figures.value("it_mw"),
}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default=",".join(CASES))
    a = ap.parse_args()
    print(
        "| campus | GPUs | buildings | racks | links | design wall | design CPU | peak memory | racks missing "
        "| violations | links between buildings (backend / bound) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.only.split(","):
            prof, n, blocks = CASES[name]
            p = PROFILES[prof]
            path = Path(tmp) / f"{name}.toml"
            if name == "gw":
                path = ROOT / "sites" / "gigawatt" / "gb300-1gw-campus.toml"
            else:
                path.write_text(site(p, n, p.default_pod_gpus, f"{name} generated campus", None, blocks))
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, cwd=ROOT
            )
            if done.returncode:
                print(f"| {name} | failed: {done.stderr.strip().splitlines()[-1]} |")
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            v = ", ".join(f"{k} {c}" for k, c in sorted(r["violations"].items())) or "none"
            print(
                f"| {name} | {r['gpus']:,} | {n} | {r['racks']:,} | {r['links']:,} | {r['wall_s']:.1f} s "
                f"| {r['cpu_s']:.1f} s | {r['peak_mb'] / 1024:.2f} GB | {r['missing']} | {v} "
                f"| {r['cross']:,} ({r['backend_cross']:,} / {r['bound']:,}) |",
                flush=True,
            )


if __name__ == "__main__":
    main()
