"""The layers of the package (import-linter contracts in pyproject.toml, run here so CI enforces them):
front ends (cli, commands, tui) above the exporters above the scene above the core, where the core is
every module outside those packages, found by walking the package, never named in a list."""

from __future__ import annotations

import pkgutil
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import layout

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE_CORE = (
    "layout.cli",
    "layout.commands",
    "layout.tui",
    "layout.export",
    "layout.scene",
    "layout.engine",
    "layout.__main__",
)
UI_LIBRARIES = ("textual", "ezdxf", "reportlab", "ifcopenshell", "pxr")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    return subprocess.run([exe], cwd=cwd, capture_output=True, text=True, timeout=300)


def core_modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(layout.__path__, "layout.")]
    return sorted(n for n in names if not any(n == o or n.startswith(o + ".") for o in OUTSIDE_CORE))


def contracts() -> list[dict[str, object]]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_import_linter_contracts_hold() -> None:
    res = lint_imports(ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"{len(contracts())} kept, 0 broken" in res.stdout


def test_the_contracts_name_no_core_module() -> None:
    """A new core module is covered without anyone adding it to a list."""
    named: set[str] = set()
    for c in contracts():
        for key in ("source_modules", "forbidden_modules", "protected_modules", "allowed_importers"):
            named.update(c.get(key, []))
        if c.get("containers") == ["layout"]:
            named.update(f"layout.{layer}" for layer in c["layers"])
    core = set(core_modules())
    assert not named & core and not any(n.startswith("layout.") and n not in OUTSIDE_CORE for n in named)
    assert {
        "layout.design",
        "layout.memo",
        "layout.place.assign",
        "layout.errors",
    } <= core  # the walk sees them


def test_no_core_module_loads_a_ui_library() -> None:
    """Every core module imported in a fresh interpreter: textual, ezdxf and reportlab stay unloaded."""
    code = (
        "import importlib, sys\n"
        f"for name in {core_modules()!r}: importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {UI_LIBRARIES!r})\n"
        "assert not bad, bad[:5]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)


def test_the_contracts_catch_a_core_module_that_imports_a_ui_library_or_an_exporter(tmp_path: Path) -> None:
    """The same contracts on a copy of the package with two new core modules that break them."""
    shutil.copytree(ROOT / "layout", tmp_path / "layout", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "layout" / "model" / "widget.py").write_text("import textual\n")
    (tmp_path / "layout" / "shortcut.py").write_text("from layout.export import tables\n")
    res = lint_imports(tmp_path)
    assert res.returncode != 0
    assert "Only the TUI imports Textual BROKEN" in res.stdout
    assert "The core imports no front end, exporter or scene BROKEN" in res.stdout
    assert "layout.model.widget -> textual" in res.stdout and "layout.shortcut -> layout.export" in res.stdout
