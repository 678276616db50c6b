"""The code passes its own gates: ruff (lint and format) and mypy, so CI enforces them too."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_lint_and_format_are_clean() -> None:
    lint = run(str(BIN / "ruff"), "check", ".")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = run(str(BIN / "ruff"), "format", "--check", ".")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy_finds_no_type_errors() -> None:
    res = run(str(BIN / "mypy"))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Success" in res.stdout


def test_no_test_reads_a_stopwatch() -> None:
    """No test asserts on wall-clock or CPU time (a loaded 2-core machine failed such a test once): timings
    live in bench/. Deadlines that only stop a hung wait (time.monotonic) are allowed."""
    clocks = ("perf_counter", "process_time", "time.time(", "thread_time", "timeit")
    found = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in sorted((ROOT / "tests").rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if any(c in line for c in clocks) and p != Path(__file__)
    ]
    assert found == []
