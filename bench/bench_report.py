"""Benchmark the PDF report: the 100k campus end to end (load, design, PDF) stage by stage, then
`dclayout report` over four sites one after the other (-j 1) and two at a time (-j 2), each in a fresh
process so start-up and imports count.

    .venv/bin/python bench/bench_report.py [--runs N]

Budget (issue 6): the campus report in under 20 s; four sites with -j 2 faster than with -j 1.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from layout.design import run  # noqa: E402
from layout.export.pdf import render_pdf, write_pdf  # noqa: E402
from layout.load import load_site  # noqa: E402

CAMPUS = ROOT / "sites" / "campus-100k.toml"
FOUR = [
    ROOT / "sites" / n
    for n in ("campus-100k.toml", "seed002-32k.toml", "gb200-hall.toml", "superpod-4su.toml")
]


def campus(runs: int) -> None:
    rows = []
    for _ in range(runs):
        t0 = time.perf_counter()
        inputs = load_site(CAMPUS)
        t1 = time.perf_counter()
        design = run(inputs)
        t2 = time.perf_counter()
        data = render_pdf(design)
        t3 = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            write_pdf(design, Path(tmp) / "campus-100k.pdf")
        t4 = time.perf_counter()
        rows.append((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0 - (t4 - t3)))
    med = [statistics.median(c) for c in zip(*rows, strict=True)]
    print(
        f"campus-100k ({runs} runs, median): load {med[0]:.2f} s, design {med[1]:.2f} s, "
        f"PDF {med[2]:.2f} s, write_pdf {med[3]:.2f} s; load+design+PDF {med[4]:.2f} s; "
        f"{len(data) / 1e6:.2f} MB"
    )


def batch(jobs: int, out: Path) -> float:
    t0 = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-m", "layout", "report", *map(str, FOUR), "--out", str(out), "-j", str(jobs)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"dclayout report -j {jobs} failed ({res.returncode}):\n{res.stderr}")
    return wall


def _spin(n: int) -> float:
    t0 = time.perf_counter()
    x = 0
    for i in range(n):
        x += i * i
    return time.perf_counter() - t0


def headroom() -> None:
    """How much a second process can gain on this machine right now (other work shares the cores)."""
    from concurrent.futures import ProcessPoolExecutor

    n = 10_000_000
    t0 = time.perf_counter()
    _spin(n)
    _spin(n)
    seq = time.perf_counter() - t0
    t0 = time.perf_counter()
    with ProcessPoolExecutor(2) as pool:
        list(pool.map(_spin, [n, n]))
    par = time.perf_counter() - t0
    print(
        f"machine headroom: two pure-CPU jobs {seq:.2f} s one after the other, {par:.2f} s in two processes "
        f"(best possible speed-up now {seq / par:.2f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    headroom()
    campus(runs)
    with tempfile.TemporaryDirectory() as tmp:
        seq, par = [], []
        for _ in range(runs):  # interleaved, so load from other processes hits both alike
            seq.append(batch(1, Path(tmp) / "j1"))
            par.append(batch(2, Path(tmp) / "j2"))
        same = all(
            (Path(tmp) / "j1" / f.name.replace(".toml", ".pdf")).read_bytes()
            == (Path(tmp) / "j2" / f.name.replace(".toml", ".pdf")).read_bytes()
            for f in FOUR
        )
    print(
        f"four sites, wall clock ({runs} runs, best / median): -j 1 {min(seq):.2f} / {statistics.median(seq):.2f} s, "
        f"-j 2 {min(par):.2f} / {statistics.median(par):.2f} s (speed-up {min(seq) / min(par):.2f}x best, "
        f"{statistics.median(seq) / statistics.median(par):.2f}x median); same bytes either way: {same}"
    )
    headroom()


if __name__ == "__main__":
    main()
