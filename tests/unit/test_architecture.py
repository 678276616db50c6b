"""The pure core never imports textual, ezdxf or reportlab (import-linter contract in pyproject.toml)."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_import_linter_contract_holds() -> None:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    res = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "KEPT" in res.stdout


def test_core_modules_do_not_load_ui_libraries() -> None:
    code = (
        "import sys, layout.load, layout.model\n"
        "import importlib\n"
        "for m in ['fabric','place','trays','route','media','power','bom','reliability','design','scene']:\n"
        "    try: importlib.import_module('layout.'+m)\n"
        "    except ModuleNotFoundError as e:\n"
        "        if e.name != 'layout.'+m: raise\n"
        "bad = [m for m in ('textual','ezdxf','reportlab') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)
