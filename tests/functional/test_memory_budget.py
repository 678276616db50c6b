"""A design that would not fit this machine is refused before anything is built, in one line naming the
input that drives it and the limit (issue 30), by validate as by design; one that fits runs. Both under
a 4 GB address-space cap (ulimit -v), as a fuzzer runs them."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CAP = 4 * 2**30


def _capped(*args: str) -> subprocess.CompletedProcess[str]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))

    return subprocess.run(
        [sys.executable, "-m", "layout", *args], capture_output=True, text=True, preexec_fn=cap, timeout=600
    )


def test_two_million_gpus_under_4_gb_is_one_line_from_validate_and_design(tmp_path: Path) -> None:
    site = tmp_path / "sites" / "big.toml"
    site.parent.mkdir()
    text = (ROOT / "sites" / "campus-100k.toml").read_text()
    site.write_text(text.replace("gpus = 98304", "gpus = 1_999_872", 1))
    assert "1_999_872" in site.read_text()
    tpl = ["--templates", str(ROOT / "rack_templates")]
    lines = []
    for cmd in (["validate", str(site)], ["design", str(site), "--out", str(tmp_path / "out")]):
        done = _capped(*cmd, *tpl)
        assert done.returncode == 2, done.stderr
        err = done.stderr.strip().splitlines()
        assert len(err) == 1 and "MemoryError" not in done.stderr and "Traceback" not in done.stderr
        lines.append(err[0])
    assert lines[0] == lines[1]
    assert f"{site}: cluster.gpus: this design makes about " in lines[0]
    assert "GB of memory, more than the address-space limit of 4.0 GB (ulimit -v) allows" in lines[0]
    assert not (tmp_path / "out").exists()


def test_the_campus_designs_under_the_same_cap(tmp_path: Path) -> None:
    done = _capped("design", str(ROOT / "sites" / "campus-100k.toml"), "--out", str(tmp_path), "--no-svg")
    assert done.returncode == 0, done.stderr
    assert "no violations" in done.stdout
