"""Golden outputs of every shipped site: summary.json as written, and the SHA-256 of every export.

Refresh after an intended change of the outputs (and list the change in the commit):

    .venv/bin/python -m tests.golden.refresh            # every shipped site
    .venv/bin/python -m tests.golden.refresh campus-100k  # one site

``tests/golden/test_golden.py`` designs every shipped site with every export and compares the bytes.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SITES = sorted((ROOT / "sites").glob("*.toml"))
FLAGS = ("--svg", "--dxf", "--pdf", "--csv", "--xlsx", "--parquet")


def produce(site: Path, out: Path) -> dict[str, str]:
    """Design ``site`` with every export into ``out``; the SHA-256 of each file written, by name."""
    cmd = [sys.executable, "-m", "layout", "design", str(site), "--out", str(out), *FLAGS]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"{site.name}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.iterdir()) if p.is_file()}


def expected(site: Path) -> tuple[dict[str, Any], dict[str, str]]:
    folder = HERE / site.stem
    summary = json.loads((folder / "summary.json").read_text())
    hashes = json.loads((folder / "hashes.json").read_text())
    return summary, hashes


def refresh(sites: list[Path]) -> None:
    for site in sites:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            hashes = produce(site, out)
            folder = HERE / site.stem
            folder.mkdir(exist_ok=True)
            (folder / "summary.json").write_bytes((out / "summary.json").read_bytes())
            (folder / "hashes.json").write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
        print(f"{site.stem}: {len(hashes)} files")


if __name__ == "__main__":
    names = sys.argv[1:]
    chosen = [s for s in SITES if not names or s.stem in names]
    if names and len(chosen) != len(names):
        sys.exit(f"unknown site(s); shipped: {', '.join(s.stem for s in SITES)}")
    refresh(chosen)
