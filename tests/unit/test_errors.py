"""layout.errors: the error of bad input and the exit codes, one definition that every module shares."""

from __future__ import annotations

import subprocess
import sys

import layout.cli
import layout.load
from layout import errors
from layout.errors import InputError, Problem


def test_a_problem_reads_file_key_problem_and_what_is_allowed() -> None:
    p = Problem("sites/a.toml", "building[0].hall[1].max_rack_kw", "got -3", "a number above 0")
    assert str(p) == "sites/a.toml: building[0].hall[1].max_rack_kw: got -3 (allowed: a number above 0)"
    assert str(Problem("x.toml", "(file)", "file not found")) == "x.toml: (file): file not found"
    e = InputError([p, Problem("x.toml", "k", "bad")])
    assert str(e).splitlines() == [str(p), "x.toml: k: bad"] and e.problems[0] is p


def test_the_loader_and_the_cli_name_the_same_errors_and_codes() -> None:
    assert layout.load.InputError is InputError and layout.load.Problem is Problem
    codes = [
        layout.cli.EXIT_OK,
        layout.cli.EXIT_VIOLATIONS,
        layout.cli.EXIT_BAD_INPUT,
        layout.cli.EXIT_EXPORT_FAILED,
    ]
    assert codes == [errors.EXIT_OK, errors.EXIT_VIOLATIONS, errors.EXIT_BAD_INPUT, errors.EXIT_EXPORT_FAILED]
    assert codes == [0, 1, 2, 3]  # DESIGN.md


def test_errors_import_nothing_of_the_package() -> None:
    code = "import sys, layout.errors; print(sorted(m for m in sys.modules if m.startswith('layout.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "['layout.errors']"
