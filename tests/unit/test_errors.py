"""layout.errors: the error of bad input and the exit codes, one definition that every module shares."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (RuntimeError("a bug"), "dclayout: internal error: RuntimeError: a bug (traceback in "),
        (MemoryError(), "dclayout: internal error: not enough memory for this design (traceback in "),
    ],
)
def test_an_internal_error_is_exit_4_with_one_line_and_the_traceback_in_a_file(
    error: BaseException,
    line: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    from layout import cli
    from layout import design as design_mod

    def boom(*_: object, **__: object) -> None:
        raise error

    monkeypatch.setattr(design_mod, "run", boom)
    site = Path(__file__).resolve().parents[2] / "sites" / "superpod-4su.toml"
    assert cli.main(["design", str(site), "--out", str(tmp_path)]) == cli.EXIT_INTERNAL == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(line), err
    path = Path(err[0].rsplit("traceback in ", 1)[1].rstrip(")"))
    try:
        text = path.read_text()
        assert "Traceback (most recent call last)" in text and "boom" in text
    finally:
        path.unlink()
