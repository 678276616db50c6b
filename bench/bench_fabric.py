"""Benchmark the fabric generator: build() on 100k GPUs (rail, mor, the campus with its side networks,
128-port switches) and the wall time of `dclayout fabric --gpus 100000 --json` in a fresh process.

    .venv/bin/python bench/bench_fabric.py [--runs N]

Prints one row per case: best and median of N runs, and the size of what was built.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable

from timing import ROOT, timed  # noqa: E402  (bench/timing.py puts the repo on sys.path)

from layout.fabric import Fabric, build, size  # noqa: E402
from layout.load import load_catalog, load_site  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    catalog = load_catalog()
    campus = load_site(ROOT / "sites" / "campus-100k.toml")

    def with_tables(fab: Fabric) -> Fabric:
        _ = fab.devices, fab.links  # the DataFrames are built on first use: include them
        return fab

    cases: list[tuple[str, Callable[[], object]]] = [
        ("build 100,000 GPUs rail qm9700 (4 tiers)", lambda: with_tables(size(100_000, catalog=catalog))),
        (
            "build 100,000 GPUs mor qm9700 (4 tiers)",
            lambda: with_tables(size(100_000, design="mor", catalog=catalog)),
        ),
        (
            "build 100,000 GPUs rail sn5600 (3 tiers)",
            lambda: with_tables(size(100_000, switch="sn5600", catalog=catalog)),
        ),
        (
            "build campus-100k + frontend/storage/oob",
            lambda: with_tables(build(campus.site.cluster, campus.catalog, 4)),
        ),
        ("counts only: size(100,000).summary()", lambda: size(100_000, catalog=catalog).summary()),
    ]
    print(f"{'case':<46} {'best s':>8} {'median s':>9} {'devices':>9} {'links':>9}")
    for name, fn in cases:
        best, median, out = timed(fn, runs)
        if isinstance(out, Fabric):
            n_dev, n_link = f"{len(out.devices):,}", f"{len(out.links):,}"
        else:
            n_dev = n_link = "-"
        print(f"{name:<46} {best:>8.3f} {median:>9.3f} {n_dev:>9} {n_link:>9}")

    cmd = [sys.executable, "-m", "layout", "fabric", "--gpus", "100000", "--json"]

    def cli() -> object:
        return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)

    best, median, _ = timed(cli, runs)
    print(
        f"{'CLI: dclayout fabric --gpus 100000 --json':<46} {best:>8.3f} {median:>9.3f} {'(wall, fresh process)':>19}"
    )


if __name__ == "__main__":
    main()
