"""`dclayout validate` as a user runs it: the installed console script in a subprocess."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SITES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "sites").glob("*.toml"))


def _dclayout(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("dclayout") or str(Path(sys.executable).parent / "dclayout")
    return subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def _tree(folder: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime_ns for p in folder.rglob("*") if ".git" not in p.parts}


def test_every_shipped_site_validates() -> None:
    res = _dclayout("validate", *SITES)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    lines = res.stdout.splitlines()
    assert [line.split(": ok")[0] for line in lines] == SITES
    assert "98,304 GPUs of hgx-h100" in next(line for line in lines if "campus-100k" in line)


def test_bad_file_exits_2_with_one_exact_line_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "negative-rack-power.toml"
    shutil.copy(ROOT / "tests/data/bad/negative-rack-power.toml", bad)
    before_tmp, before_outputs = _tree(tmp_path), _tree(ROOT / "outputs")
    res = _dclayout("validate", bad.name, cwd=tmp_path)
    assert res.returncode == 2
    assert res.stdout == ""
    assert res.stderr == (
        "negative-rack-power.toml: building[0].hall[0].max_rack_kw: must be > 0, got -5 (allowed: > 0 and <= 300 kW)\n"
    )
    assert _tree(tmp_path) == before_tmp
    assert _tree(ROOT / "outputs") == before_outputs


def test_syntax_error_names_line_and_column() -> None:
    res = _dclayout("validate", "tests/data/bad/toml-syntax-error.toml")
    assert res.returncode == 2
    assert res.stderr.startswith(
        "tests/data/bad/toml-syntax-error.toml: line 5, column 8: TOML syntax error: invalid value"
    )


def test_loading_a_site_imports_no_ui_or_export_library() -> None:
    code = (
        "import sys\n"
        "from layout.load import load_site\n"
        "load_site('sites/campus-100k.toml')\n"
        "assert not {'textual', 'ezdxf', 'reportlab'} & set(sys.modules), sorted(sys.modules)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
