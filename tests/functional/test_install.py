"""The project as a user installs it: a wheel built from the sources, installed (not editable) into a fresh
venv, run from a folder that holds no rack templates, so only the package data can serve them.

The fresh venv borrows this venv's third-party packages through a .pth line (not its site folder, so the
editable `layout` of the checkout stays invisible) and the wheel is installed offline, without
dependencies: the test takes seconds, not a download of numpy and pandas."""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh venv with the project's wheel installed in it."""
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src"  # a copy, so the build leaves no build/ or egg-info in the checkout
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "layout", src / "layout", symlinks=True, ignore=ignore)
    shutil.copytree(ROOT / "rack_templates", src / "rack_templates")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "wheel"), str(src)], tmp
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp / "wheel").glob("dclayout-*.whl")

    venv = tmp / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp)
    assert made.returncode == 0, made.stderr
    py = venv / "bin" / "python"
    purelib = _run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp
    ).stdout.strip()
    (Path(purelib) / "borrowed-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    pip = [
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(py),
        "install",
        "--no-deps",
        "--no-index",
        "-q",
        str(wheel),
    ]
    done = _run(pip, tmp)
    assert done.returncode == 0, done.stderr
    where = _run([str(py), "-c", "import layout; print(layout.__file__)"], tmp)
    assert Path(where.stdout.strip()).is_relative_to(venv), where  # the wheel's package, not the checkout's
    return venv / "bin"


def test_installed_wheel_ships_templates_and_catalog(installed: Path) -> None:
    code = "from layout.load import DEFAULT_TEMPLATES_DIR as d; print(d); print(*sorted(p.name for p in d.iterdir()))"
    res = _run([str(installed / "python"), "-c", code], installed)
    folder, names = res.stdout.splitlines()
    assert Path(folder).is_relative_to(installed.parent), res
    assert names.split() == sorted(p.name for p in (ROOT / "rack_templates").glob("*.toml"))


def test_installed_fabric_runs_from_another_folder(installed: Path, tmp_path: Path) -> None:
    res = _run([str(installed / "dclayout"), "fabric", "--gpus", "1024", "--json"], tmp_path)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert (out["gpus"], out["servers"]) == (1024, 128)


def test_installed_design_runs_from_another_folder(installed: Path, tmp_path: Path) -> None:
    """A site copied into a folder of its own, with no rack_templates/ beside it or above it: the design
    comes out of the packaged templates and catalog, the same summary as from the checkout."""
    (tmp_path / "sites").mkdir()
    shutil.copy(ROOT / "sites/superpod-4su.toml", tmp_path / "sites/superpod-4su.toml")
    res = _run([str(installed / "dclayout"), "design", "sites/superpod-4su.toml", "--out", "out"], tmp_path)
    assert res.returncode == 0, res.stderr
    from layout.design import run
    from layout.load import load_site

    checkout = run(load_site(ROOT / "sites/superpod-4su.toml")).summary()
    written = json.loads((tmp_path / "out/summary.json").read_text())
    assert set(written.pop("files")) == {"superpod-4su-B1-H1.svg", "superpod-4su-site.svg"}  # its set
    assert written == json.loads(json.dumps(checkout))


def test_installed_version(installed: Path, tmp_path: Path) -> None:
    from layout import __version__

    res = _run([str(installed / "dclayout"), "--version"], tmp_path)
    assert (res.returncode, res.stdout) == (0, f"dclayout {__version__}\n")
