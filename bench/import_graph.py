"""The import graph of a dclayout command line: what it imports before any work, and at whose request.

    .venv/bin/python bench/import_graph.py [design sites/superpod-4su.toml --no-svg --out /tmp/x]

Runs the command under ``python -X importtime`` and prints the packages by self time (ms), each heavy
one with the chain of modules that first asked for it; then wall time of the command against a bare
``python -c "import numpy"`` (best of --runs), the issue's bar being 4x, and the libraries every design
needs imported alone (``FLOOR``): the part of the wall time dclayout cannot remove.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")
HEAVY = ("pandas", "scipy", "shapely", "pyarrow", "ezdxf", "reportlab", "openpyxl", "textual", "rich",
         "dask", "distributed", "pydantic", "numpy", "requests", "charset_normalizer", "email", "unittest")  # fmt: skip


# what a design cannot start without: the tables (pandas, which imports pyarrow), routing's shortest
# paths (scipy.sparse.csgraph), the floor's geometry (shapely) and the input models (pydantic)
FLOOR = ("numpy", "pandas", "scipy.sparse.csgraph", "shapely", "pydantic")


def parse(text: str) -> list[tuple[int, int, int, str, str]]:
    """(self us, cumulative us, depth, module, chain of importers) per imported module, in import order."""
    rows = [(int(m[1]), int(m[2]), len(m[3]) // 2, m[4]) for m in map(LINE.match, text.splitlines()) if m]
    # importtime prints a module after everything it imported: the importer of a row is the next row
    # of smaller depth
    out = []
    for i, (s, c, d, name) in enumerate(rows):
        chain, want = [], d - 1
        for _s2, _c2, d2, n2 in rows[i + 1 :]:
            if d2 == want:
                chain.append(n2)
                want -= 1
                if want < 0:
                    break
        out.append((s, c, d, name, " <- ".join(chain[:6])))
    return out


def wall(cmd: list[str], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, capture_output=True, check=False)
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("args", nargs="*", default=None)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        args = a.args or ["design", "sites/superpod-4su.toml", "--no-svg", "--out", tmp]
        cmd = [sys.executable, "-X", "importtime", "-m", "layout", *args]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
        rows = parse(done.stderr)
        by_pkg: dict[str, int] = defaultdict(int)
        first: dict[str, str] = {}
        for s, _c, _d, name, chain in rows:
            pkg = name.split(".")[0]
            by_pkg[pkg] += s
            if pkg != name.split(".")[0] or pkg in first:
                continue
            first[pkg] = f"{name} <- {chain}" if chain else name
        total = sum(by_pkg.values())
        print(f"dclayout {' '.join(args)}: {len(rows)} modules, {total / 1000:.0f} ms of imports (self time)")
        for pkg, us in sorted(by_pkg.items(), key=lambda kv: -kv[1])[:20]:
            why = f"   first: {first.get(pkg, '')}" if pkg in HEAVY else ""
            print(f"  {us / 1000:7.1f} ms  {pkg}{why}")
        numpy_s = wall([sys.executable, "-c", "import numpy"], a.runs)
        floor_s = wall([sys.executable, "-c", f"import {', '.join(FLOOR)}"], a.runs)
        cmd_s = wall([sys.executable, "-m", "layout", *args], a.runs)
        print(
            f'wall, best of {a.runs}: python -c "import numpy" {numpy_s:.2f} s; dclayout {args[0]} {cmd_s:.2f} s '
            f"({cmd_s / numpy_s:.1f}x; goal 4x)"
        )
        print(
            f"the libraries every design needs ({', '.join(FLOOR)}) alone: {floor_s:.2f} s "
            f"({floor_s / numpy_s:.1f}x); dclayout's own imports and work: {cmd_s - floor_s:.2f} s"
        )


if __name__ == "__main__":
    main()
