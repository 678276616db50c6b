"""A small `validate` or `design` spends its time on the work: the CLI imports what a command uses, when
it uses it (bench/import_graph.py measures the graph and the wall time against a bare numpy import)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SITE = str(ROOT / "sites" / "superpod-4su.toml")

PROBE = """
import json, sys
from layout.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(m for m in sys.modules)}))
"""


def modules_after(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=ROOT)
    last = json.loads(done.stdout.strip().splitlines()[-1])
    assert last["code"] == 0, done.stderr
    return set(last["modules"])


def test_validate_imports_no_router_optimiser_exporter_or_ui() -> None:
    mods = modules_after("validate", SITE)
    assert "layout.fabric" in mods and "pandas" in mods  # it builds the fabric: its checks need it
    for heavy in ("scipy", "layout.cable", "layout.bom", "layout.engine.optimize", "ezdxf", "reportlab",
                  "openpyxl", "textual", "rich", "dask"):  # fmt: skip
        assert heavy not in mods, heavy


def test_design_without_exports_imports_no_exporter_optimiser_or_ui(tmp_path: Path) -> None:
    mods = modules_after("design", SITE, "--no-svg", "--out", str(tmp_path))
    assert "scipy" in mods  # the tray routing
    for heavy in ("layout.engine.optimize", "ezdxf", "reportlab", "openpyxl", "textual", "dask"):
        assert heavy not in mods, heavy
