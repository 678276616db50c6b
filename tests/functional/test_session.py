"""The TUI's headless session (layout/tui/session.py), driven without Textual: open a site, apply an edit,
undo, redo, design, save; and the session module loads no Textual."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from layout import design
from layout.errors import InputError
from layout.load import load_site
from layout.siteedit import AddRow, ChangedOnDisk, SetCluster, SetHall
from layout.tui import session as session_mod
from layout.tui.session import RECENT_DESIGNS, Session, locate

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def superpod(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "sites" / "superpod-4su.toml", tmp_path / "superpod-4su.toml")
    return tmp_path / "superpod-4su.toml"


def test_open_edit_undo_redo_design_save(superpod: Path, same_design: Callable[[Any, Any], None]) -> None:
    s = Session()
    s.open(superpod)
    assert s.halls() == ["B1/H1"] and s.hall("B1/H1").max_rack_kw == 45.0
    first = s.design()
    assert first.text == superpod.read_text() and s.design() is first  # the same text: no run
    assert first.design.summary() == design.run(load_site(superpod)).summary()

    assert s.apply(SetHall("B1/H1", "max_rack_kw", 30.0))
    assert s.known() is None  # this text was not designed yet
    kw30 = s.design()
    assert kw30 is not first and kw30.design.fabric is first.design.fabric  # the cache kept the fabric
    assert {r.template for r in kw30.design.placement.gpu_rack.values()} == {"dgx-h100-x2"}
    same_design(kw30.design, design.run(s.inputs))

    assert s.undo() == "B1/H1: max_rack_kw = 30.0"
    assert s.known() is first and s.design() is first  # undo: the recent design, no run
    assert s.redo() and s.design() is kw30

    path = s.save()
    assert path == superpod and "max_rack_kw = 30.0" in superpod.read_text()
    assert superpod.with_name("superpod-4su.toml.bak").read_text() == first.text
    assert load_site(superpod).site.building[0].hall[0].max_rack_kw == 30.0


def test_a_refused_edit_changes_nothing_and_says_why(superpod: Path) -> None:
    s = Session()
    s.open(superpod)
    before = s.text
    with pytest.raises(InputError) as e:
        s.apply(SetCluster("switch", "no-such-switch"))
    assert "no-such-switch" in str(e.value) and s.text == before and s.undo() is None


def test_recent_designs_are_bounded_and_a_new_site_forgets_them(superpod: Path) -> None:
    s = Session()
    s.open(superpod)
    s.design()
    for kw in (30.0, 35.0, 40.0, 42.0):
        s.apply(SetHall("B1/H1", "max_rack_kw", kw))
        s.design()
    assert len(s.recent) == RECENT_DESIGNS == 4
    for _ in range(4):
        s.undo()
    assert s.known() is None  # the first design was the oldest: it went
    s.open(superpod)
    assert not s.recent


def test_locate_finds_a_rack_a_row_and_a_hall(superpod: Path) -> None:
    s = Session()
    s.open(superpod)
    r = s.design()
    racks = r.design.placement.racks
    rack = racks.iloc[5]
    assert locate(r, r.floors, str(rack["rack_id"])) == ("B1/H1", rack["x_m"], rack["y_m"])
    # a row: the middle of its racks' marks (each a square as wide as the rack's longer side), as the
    # drawings' revision cloud around it (layout.scene)
    row = r.design.placement.rows.iloc[0]
    mine = racks[racks["row"] == row["row"]]
    half = np.maximum(mine["width_m"], mine["depth_m"]) / 2
    x0, x1 = (mine["x_m"] - half).min(), (mine["x_m"] + half).max()
    y0, y1 = (mine["y_m"] - half).min(), (mine["y_m"] + half).max()
    hall, x, y = locate(r, r.floors, f"{row['row']}/no-such-rack") or ("", 0.0, 0.0)
    assert (hall, x, y) == ("B1/H1", pytest.approx((x0 + x1) / 2), pytest.approx((y0 + y1) / 2))
    # a building: the middle of its first hall's box
    bx0, by0, bx1, by1 = r.floors["B1/H1"].polygon.bounds
    assert locate(r, r.floors, "B1") == ("B1/H1", (bx0 + bx1) / 2, (by0 + by1) / 2)
    assert locate(r, r.floors, "elsewhere") is None and locate(None, r.floors, "B1") is None


def test_an_added_row_is_designed_where_it_was_put(superpod: Path) -> None:
    s = Session()
    s.open(superpod)
    s.design()
    assert s.apply(AddRow("B1/H1", (2.0, 2.0), 3, "net-leaf", "x"))
    racks = s.design().design.placement.racks
    user = racks[racks["user_row"]]
    assert len(user) == 3 and set(user["template"]) == {"net-leaf"}
    assert user["y_m"].min() > 2.0 and abs(user["x_m"].min() - 2.0 - user["width_m"].iloc[0] / 2) < 1e-9


def test_the_session_loads_no_textual() -> None:
    code = (
        "import sys, layout.tui.session, layout.tui.panels, layout.tui.results\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'ezdxf', 'reportlab')]\n"
        "assert not bad, bad[:5]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)


# ------------------------------------------------------------------ saving never loses anyone's work
def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_change_made_outside_is_not_overwritten_by_save(superpod: Path) -> None:
    s = Session()
    s.open(superpod)
    assert s.apply(SetHall("B1/H1", "max_rack_kw", 30.0))
    outside = superpod.read_text() + "# added by another editor\n"
    superpod.write_text(outside)
    with pytest.raises(ChangedOnDisk) as e:
        s.save()
    assert "changed on disk" in e.value.problem
    assert superpod.read_text() == outside and listing(superpod.parent) == ["superpod-4su.toml"]
    assert s.editor is not None and s.editor.dirty  # the edit is kept
    # reload: the file as it is now, the edit dropped
    s.reload()
    assert s.text == outside and s.editor is not None and not s.editor.dirty and s.undo() is None
    # overwrite, when asked for
    assert s.apply(SetHall("B1/H1", "max_rack_kw", 30.0))
    superpod.write_text(outside + "# and again\n")
    assert s.save(force=True) == superpod
    assert "max_rack_kw = 30.0" in superpod.read_text()
    assert superpod.with_name("superpod-4su.toml.bak").read_text() == outside + "# and again\n"
    # what save wrote is what it remembers: the next save is not refused
    assert s.apply(SetHall("B1/H1", "max_rack_kw", 35.0)) and s.save() == superpod


def test_a_deleted_site_file_counts_as_changed(superpod: Path) -> None:
    s = Session()
    s.open(superpod)
    s.apply(SetHall("B1/H1", "max_rack_kw", 30.0))
    superpod.unlink()
    with pytest.raises(ChangedOnDisk, match="deleted or moved"):
        s.save()
    assert listing(superpod.parent) == []


def test_a_save_without_edits_writes_nothing(superpod: Path) -> None:
    s = Session()
    s.open(superpod)
    backup = superpod.with_name("superpod-4su.toml.bak")
    backup.write_text("the previous backup\n")
    before = superpod.stat().st_mtime_ns
    assert s.save() is None
    s.apply(SetHall("B1/H1", "max_rack_kw", 30.0))
    s.undo()  # back to the text read: no edits
    assert s.save() is None
    assert superpod.stat().st_mtime_ns == before and backup.read_text() == "the previous backup\n"
    assert listing(superpod.parent) == ["superpod-4su.toml", "superpod-4su.toml.bak"]


def test_a_folder_that_cannot_be_written_keeps_the_edit(
    superpod: Path, block_writes: Callable[[Path], bool]
) -> None:
    s = Session()
    s.open(superpod)
    s.apply(SetHall("B1/H1", "max_rack_kw", 30.0))
    s.design()
    text = s.text
    gone = block_writes(superpod)
    if gone:
        with pytest.raises(ChangedOnDisk):
            s.save()
    with pytest.raises(OSError):
        s.save(force=True)
    assert s.text == text and s.editor is not None and s.editor.dirty
    if not gone:
        assert listing(superpod.parent) == ["superpod-4su.toml"]
        assert "max_rack_kw = 45.0" in superpod.read_text()


def test_save_refuses_what_design_refuses(superpod: Path, tmp_path: Path) -> None:
    """A 1 GbE management switch as the backend: `dclayout design` refuses it (exit 2); so does save,
    with the same problem, writing nothing (if validate refuses it too, the edit itself is refused)."""
    original = superpod.read_text()
    bad = tmp_path / "bad" / "superpod-4su.toml"
    bad.parent.mkdir()
    bad.write_text(original.replace('switch = "qm9700"', 'switch = "sn2201"'))
    with pytest.raises(InputError) as by_design:
        design.run(load_site(bad))
    expected = [(p.key, p.problem, p.allowed) for p in by_design.value.problems]
    assert expected[0][0] == "cluster.switch"
    s = Session()
    s.open(superpod)
    with pytest.raises(InputError) as e:
        s.apply(SetCluster("switch", "sn2201"))
        assert s.failure() is None
        s.save()  # designs the site first: refused
    assert [(p.key, p.problem, p.allowed) for p in e.value.problems] == expected
    assert superpod.read_text() == original and listing(superpod.parent) == ["bad", "superpod-4su.toml"]
    if s.editor is not None and s.editor.dirty:  # the edit was taken: its refused design is remembered
        assert s.failure() is e.value
        with pytest.raises(InputError):
            s.design()
        s.undo()
        assert s.failure() is None and s.save() is None


def test_crlf_and_symlinked_site_files_stay_as_they_were(superpod: Path, tmp_path: Path) -> None:
    real = tmp_path / "real" / "site.toml"
    real.parent.mkdir()
    real.write_bytes(superpod.read_bytes().replace(b"\n", b"\r\n"))
    link = tmp_path / "superpod-4su.toml"
    superpod.unlink()
    link.symlink_to(real)
    s = Session()
    s.open(link)
    assert "\r" not in s.text
    s.apply(SetHall("B1/H1", "max_rack_kw", 30.0))
    assert s.save() == link
    assert link.is_symlink() and link.resolve() == real.resolve()
    data = real.read_bytes()
    assert b"max_rack_kw = 30.0\r\n" in data and data.count(b"\n") == data.count(b"\r\n")
    assert load_site(link).site.building[0].hall[0].max_rack_kw == 30.0
    assert listing(real.parent) == ["site.toml"]  # no temporary file left beside the target
    # an LF file stays LF
    lf = tmp_path / "lf.toml"
    lf.write_bytes(real.read_bytes().replace(b"\r\n", b"\n"))
    s.open(lf)
    s.apply(SetHall("B1/H1", "max_rack_kw", 35.0))
    s.save()
    assert b"\r" not in lf.read_bytes()


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write a read-only file")
def test_a_read_only_site_file_is_not_replaced(superpod: Path) -> None:
    s = Session()
    s.open(superpod)
    s.apply(SetHall("B1/H1", "max_rack_kw", 30.0))
    s.design()
    superpod.chmod(0o444)
    with pytest.raises(PermissionError, match="read-only"):
        s.save()
    assert "max_rack_kw = 45.0" in superpod.read_text() and listing(superpod.parent) == ["superpod-4su.toml"]


def test_a_fault_of_the_tool_does_not_keep_the_edits_from_being_saved(
    superpod: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug in the pipeline")

    monkeypatch.setattr(session_mod, "compute", broken)
    s = Session()
    s.open(superpod)
    s.apply(SetHall("B1/H1", "max_rack_kw", 30.0))
    with pytest.raises(RuntimeError):
        s.design()
    assert s.failure() is None  # not a refusal of the site
    assert s.save() == superpod and "max_rack_kw = 30.0" in superpod.read_text()
