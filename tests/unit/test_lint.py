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
