"""Time layout.load.load_site on the shipped sites (target: the 100k campus in < 0.2 s).

Run: .venv/bin/python bench/load_site.py [REPEATS]
Prints the import time of layout.load and, per site, the best and median wall time of load_site
(catalog + templates + site, every check) over REPEATS runs.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    t0 = time.perf_counter()
    from layout.load import InputError, load_site

    print(f"import layout.load: {time.perf_counter() - t0:.3f} s")
    for path in sorted((ROOT / "sites").glob("*.toml")):
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            load_site(path)
            times.append(time.perf_counter() - t)
        print(
            f"{path.name:24s} best {min(times) * 1000:6.1f} ms  median {statistics.median(times) * 1000:6.1f} ms"
        )
    bad = ROOT / "tests/data/bad/multiple-problems.toml"
    t = time.perf_counter()
    try:
        load_site(bad)
    except InputError as e:  # the partial-validation path
        print(
            f"{bad.name:24s} {len(str(e).splitlines())} problems in {(time.perf_counter() - t) * 1000:.1f} ms (first run)"
        )


if __name__ == "__main__":
    main()
