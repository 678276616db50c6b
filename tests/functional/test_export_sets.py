"""Faults while exporting: the outputs of one run are written as a set. A run that fails part-way (an
exporter raising) or is killed (SIGKILL of a real `dclayout design` subprocess while it writes) leaves
the previous set whole; the next run leaves exactly the set a clean run writes, and no staging or
temporary file. Output names from hostile site file names stay inside outputs/ and are never echoed
raw to the terminal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from layout import design as design_mod
from layout import export
from layout.files import STAGING_PREFIX
from layout.load import load_site

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "sites" / "superpod-4su.toml"
ALL = ["summary", "svg", "dxf", "pdf", "csv", "xlsx"]
FLAGS = ["--dxf", "--pdf", "--csv", "--xlsx"]


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _site_copy(folder: Path, name: str, stem: str = "site") -> Path:
    """The 4-SU SuperPOD under another site name (so its outputs differ from the shipped one's)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.toml"
    text = SITE.read_text().replace('name = "SuperPOD 4-SU H100 hall"', f'name = "{name}"')
    assert name in text
    path.write_text(text)
    return path


def test_an_exporter_failing_part_way_leaves_the_previous_set_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    old = design_mod.run(load_site(_site_copy(tmp_path / "old", "old design")))
    new = design_mod.run(load_site(_site_copy(tmp_path / "new", "new design")))
    export.write(old, ALL, out)
    before = _listing(out)
    assert len(before) == 9 and b"old design" in before["summary.json"]

    import layout.export.pdf as pdf

    def broken(*args: Any, **kwargs: Any) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pdf, "write_pdf", broken)  # after summary, SVG and DXF are written
    with pytest.raises(OSError, match="No space left"):
        export.write(new, ALL, out)
    assert _listing(out) == before  # the old set, whole: no new summary or SVG beside the old PDF

    monkeypatch.undo()
    paths = export.write(new, ALL, out)
    clean = tmp_path / "clean"
    export.write(new, ALL, clean)
    assert _listing(out) == _listing(clean) and b"new design" in _listing(out)["summary.json"]
    assert [p.parent for p in paths] == [out] * 9


def test_a_reader_tells_a_whole_set_from_one_caught_mid_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """summary.json, renamed into place last, lists every other file of its set with its size and
    SHA-256 (layout.files.set_problems checks them as any reader can): a run stopped after renaming
    two of its new files leaves an old summary.json whose list those two no longer match."""
    import hashlib
    import json

    import layout.files as files

    out = tmp_path / "out"
    old = design_mod.run(load_site(_site_copy(tmp_path / "old", "old design")))
    new = design_mod.run(load_site(_site_copy(tmp_path / "new", "new design")))
    export.write(old, ALL, out)
    listed = json.loads((out / "summary.json").read_text())["files"]
    assert sorted(listed) == sorted(n for n in _listing(out) if n != "summary.json")
    for name, want in listed.items():
        data = (out / name).read_bytes()
        assert want == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    assert files.set_problems(out) == []

    real = os.replace
    moved: list[str] = []

    def stop_after_two(src: Any, dst: Any) -> None:
        if Path(dst).parent == out:  # a rename into place (not a write inside the staging folder)
            if len(moved) == 2:
                raise KeyboardInterrupt  # the run is stopped while renaming its set into place
            moved.append(Path(dst).name)
        real(src, dst)

    monkeypatch.setattr(files.os, "replace", stop_after_two)
    with pytest.raises(KeyboardInterrupt):
        export.write(new, ALL, out)
    monkeypatch.undo()
    assert "summary.json" not in moved and b"old design" in (out / "summary.json").read_bytes()
    assert files.set_problems(out) == [
        f"{n}: not the file this summary.json was written with" for n in sorted(moved)
    ]
    export.write(new, ALL, out)  # the next run: one whole set again
    assert files.set_problems(out) == []


def _kill_while_exporting(command: list[str], out: Path) -> None:
    """Start ``command``, SIGKILL it as soon as its staging folder in ``out`` holds a written file (the
    SVGs are the first; the DXF, PDF, tables and the summary, last, are still to come) and wait for it."""
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            staged = [p for d in out.glob(f"{STAGING_PREFIX}*") for p in d.iterdir()]
            if staged:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.002)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed mid-export"


def test_a_design_killed_mid_export_then_rerun_leaves_one_complete_set(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    old_site = _site_copy(tmp_path / "old", "old design")
    new_site = _site_copy(tmp_path / "new", "new design")
    out, clean = tmp_path / "out", tmp_path / "clean"
    for site, folder in ((old_site, out), (new_site, clean)):
        r = dclayout("design", str(site), "--out", str(folder), *FLAGS)
        assert r.returncode == 0, r.stderr
    old_set, clean_set = _listing(out), _listing(clean)
    assert len(old_set) == 9 and old_set.keys() == clean_set.keys() and old_set != clean_set

    command = [sys.executable, "-m", "layout", "design", str(new_site), "--out", str(out), *FLAGS]
    _kill_while_exporting(command, out)
    left = _listing_with_staging(out)
    assert {k: v for k, v in left.items() if not k.startswith(STAGING_PREFIX)} == old_set  # old set whole
    assert any(k.startswith(STAGING_PREFIX) for k in left)  # what the killed run left

    r = dclayout("design", str(new_site), "--out", str(out), *FLAGS)
    assert r.returncode == 0, r.stderr
    assert _listing(out) == clean_set  # one complete set, byte for byte a clean run's; nothing else


def _listing_with_staging(folder: Path) -> dict[str, bytes]:
    return {p.name: (p.read_bytes() if p.is_file() else b"") for p in sorted(folder.iterdir())}


def test_a_killed_runs_leftovers_are_gone_after_the_next_run_of_any_kinds(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """The next run need not ask for the same exports: a summary-only run cleans up too."""
    site = _site_copy(tmp_path, "a design")
    out = tmp_path / "out"
    _kill_while_exporting(
        [sys.executable, "-m", "layout", "design", str(site), "--out", str(out), *FLAGS], out
    )
    (out / ".site.dxf.abcd1234.tmp").write_bytes(b"an older version's killed atomic write")
    r = dclayout("design", str(site), "--out", str(out), "--no-svg")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["summary.json"]


@pytest.mark.parametrize(("file_stem", "safe"), [("..", "__"), ("...", "___"), (".", "_")])
def test_a_dotted_site_file_name_stays_inside_outputs(
    tmp_path: Path, file_stem: str, safe: str, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """`...toml` has the stem `..`: its default folder was outputs/.. (the working folder itself)."""
    site = tmp_path / f"{file_stem}.toml"
    site.write_text(SITE.read_text())
    assert site.stem == file_stem
    r = dclayout("design", site.name, "--templates", str(ROOT / "rack_templates"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [
        f"{site.name}: note: the file name {file_stem!r} is not a safe output name; writing the outputs as {safe!r}"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([site.name, "outputs"])
    assert sorted(p.name for p in (tmp_path / "outputs").iterdir()) == [safe]
    assert sorted(p.name for p in (tmp_path / "outputs" / safe).iterdir()) == [
        f"{safe}-B1-H1.svg",
        f"{safe}-site.svg",
        "summary.json",
    ]


def test_terminal_escapes_in_a_file_name_are_not_echoed_raw(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    site = tmp_path / "e\x1b[31mx\x07.toml"
    site.write_text(SITE.read_text())
    r = dclayout("design", site.name, "--templates", str(ROOT / "rack_templates"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for text in (r.stdout, r.stderr):
        assert "\x1b" not in text and "\x07" not in text
    assert r.stderr.startswith("e\\x1b[31mx\\x07.toml: note: ")
    assert r.stdout.startswith("e\\x1b[31mx\\x07.toml: SuperPOD 4-SU H100 hall\n")
    assert "wrote 3 file(s) to outputs/e_[31mx_/ in" in r.stdout
    # bad input from such a file: the error line escapes it too
    site.write_text(SITE.read_text().replace("gpus = 1024", "gpus = -1"))
    r = dclayout("validate", site.name, "--templates", str(ROOT / "rack_templates"), cwd=tmp_path)
    assert r.returncode == 2 and "\x1b" not in r.stderr and r.stderr.startswith("e\\x1b[31mx\\x07.toml: ")


def test_an_out_folder_symlink_is_replaced_by_a_new_file_with_a_new_files_mode(tmp_path: Path) -> None:
    d = design_mod.run(load_site(SITE))
    out = tmp_path / "out"
    out.mkdir()
    target = tmp_path / "somewhere-else.json"
    target.write_text("not an output")
    target.chmod(0o777)
    (out / "summary.json").symlink_to(target)
    export.write(d, ["summary"], out)
    mask = os.umask(0)
    os.umask(mask)
    st = (out / "summary.json").lstat()
    assert not (out / "summary.json").is_symlink() and (st.st_mode & 0o7777) == 0o666 & ~mask
    assert target.read_text() == "not an output" and (target.stat().st_mode & 0o777) == 0o777


def test_report_and_compare_keep_a_dotted_stem_inside_outputs(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    from layout.commands.report import pdf_path

    assert pdf_path("sites/...toml", None) == Path("outputs/__/__.pdf")
    assert pdf_path("....toml", "out") == Path("out/___.pdf")
    site = tmp_path / "...toml"
    site.write_text(SITE.read_text())
    r = dclayout("compare", site.name, "--templates", str(ROOT / "rack_templates"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "...toml",
        "outputs",
        "outputs/__",
        "outputs/__/compare.csv",
    ]


def test_two_halls_whose_plans_share_a_file_name_are_refused_by_validate_and_design_alike(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    """Building B1-H1 hall X and building B1 hall H1-X both make STEM-B1-H1-X.svg (and DXF layout B1-H1-X):
    one plan used to overwrite the other silently, then design exited 3 while validate said ok; now the
    loader refuses the ids, so validate and design give the same one line (exit 2) and nothing is written."""
    text = SITE.read_text().replace('id = "B1"', 'id = "B1-H1"', 1).replace('  id = "H1"', '  id = "X"', 1)
    text = text.replace(
        "\n[cluster]",
        '\n[[building]]\nid = "B1"\nfootprint = [[100, 0], [148, 0], [148, 30], [100, 30]]\nentry = [100, 15]\n'
        '  [[building.hall]]\n  id = "H1-X"\n  polygon = [[102, 2], [146, 2], [146, 28], [102, 28]]\n'
        '  cooling = "air"\n  max_rack_kw = 45.0\n\n[cluster]',
    )
    site = tmp_path / "clash.toml"
    site.write_text(text)
    out = tmp_path / "out"
    line = (
        f'{site}: building[1].hall[0].id: the plan of hall B1/H1-X would be named "B1-H1-X", as the plan of '
        "hall B1-H1/X is (drawing and file names ignore case) "
        "(allowed: ids that give each building and hall names of their own, as BUILDING-HALL)\n"
    )
    v = dclayout("validate", str(site))
    assert (v.returncode, v.stderr) == (2, line)
    r = dclayout("design", str(site), "--out", str(out), "--dxf")
    assert (r.returncode, r.stderr) == (2, line)
    assert not out.exists() or list(out.iterdir()) == []
