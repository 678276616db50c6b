"""layout.siteedit: comment-preserving edits of site files, validation, undo/redo and safe saves."""

from __future__ import annotations

import difflib
import shutil
import tomllib
from pathlib import Path

import pytest

from layout.load import InputError, load_site
from layout.siteedit import (
    AddRow,
    DeleteRow,
    MoveRow,
    SetCluster,
    SetHall,
    SetHallTemplate,
    SetRowTemplate,
    SiteEditor,
)

ROOT = Path(__file__).resolve().parents[2]

# A site with comments everywhere, two user rows and a table after them.
ROWS_SITE = """\
# Two user rows and a blocked tray: edits must keep every comment.
format = 1

[site]
name = "rows"          # the name
utility_mw = 5.0
pue = 1.3
electricity_usd_per_kwh = 0.08

[[building]]
id = "B1"
footprint = [[0, 0], [60, 0], [60, 40], [0, 40]]

  [[building.hall]]
  id = "H1"
  polygon = [[2, 2], [58, 2], [58, 38], [2, 38]]
  cooling = "rear-door"           # rear-door heat exchangers
  max_rack_kw = 45.0              # kW per rack
  it_mw = 3.0

[cluster]
gpus = 512
server = "dgx-h100"
rack = "dgx-h100-x4"
rack_low_density = "dgx-h100-x2"
switch = "qm9700"
design = "rail"                   # SuperPOD reference
nic = "cx7"

[[row]]                           # first user row
hall = "B1/H1"
origin = [4.0, 4.0]
racks = 8
template = "dgx-h100-x4"

[[row]]                           # second user row
hall = "B1/H1"
origin = [4.0, 10.0]
racks = 6
template = "dgx-h100-x4"

[[tray_block]]                    # crosses a fire wall
hall = "B1/H1"
line = [[30, 2], [30, 38]]
"""


@pytest.fixture
def superpod(tmp_path: Path) -> Path:
    dst = tmp_path / "superpod-4su.toml"
    shutil.copy(ROOT / "sites" / "superpod-4su.toml", dst)
    return dst


@pytest.fixture
def rows_site(tmp_path: Path) -> Path:
    dst = tmp_path / "rows.toml"
    dst.write_text(ROWS_SITE, encoding="utf-8")
    return dst


def comments(text: str) -> list[str]:
    return [line[line.index("#") :] for line in text.splitlines() if "#" in line]


def changed_lines(before: str, after: str) -> list[str]:
    return [
        d
        for d in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if d[:1] in "+-" and not d.startswith(("+++", "---"))
    ]


def test_hall_edits_change_one_line_each_and_keep_its_comment(superpod: Path) -> None:
    ed = SiteEditor(superpod)
    before = ed.text
    assert ed.apply(SetHall("B1/H1", "max_rack_kw", 60.0))
    assert ed.apply(SetHall("B1/H1", "cooling", "liquid"))
    hall = ed.inputs.site.building[0].hall[0]
    assert (hall.max_rack_kw, hall.cooling) == (60.0, "liquid")
    diff = changed_lines(before, ed.text)
    assert diff == [
        '-  cooling = "rear-door"           # 4 x DGX H100 = ~41 kW per rack: rear-door heat exchangers',
        "-  max_rack_kw = 45.0",
        '+  cooling = "liquid"           # 4 x DGX H100 = ~41 kW per rack: rear-door heat exchangers',
        "+  max_rack_kw = 60.0",
    ]
    assert comments(ed.text) == comments(before)


def test_cluster_edits_rail_mor_switch_and_cedar7(superpod: Path) -> None:
    ed = SiteEditor(superpod)
    ed.apply(SetCluster("design", "mor"))
    ed.apply(SetCluster("switch", "sn5600"))
    ed.apply(SetCluster("nic", "cedar7"))
    c = ed.inputs.site.cluster
    assert (c.design, c.switch, c.nic) == ("mor", "sn5600", "cedar7")
    data = tomllib.loads(ed.text)["cluster"]
    assert (data["design"], data["switch"], data["nic"]) == ("mor", "sn5600", "cedar7")


def test_invalid_edit_is_refused_with_the_key_and_changes_nothing(superpod: Path) -> None:
    ed = SiteEditor(superpod)
    before = ed.text
    with pytest.raises(InputError) as e:
        ed.apply(SetCluster("switch", "no-such-switch"))
    assert e.value.problems[0].key == "cluster.switch"
    assert "qm9700" in e.value.problems[0].allowed
    with pytest.raises(InputError) as e:
        ed.apply(SetHall("B1/H1", "max_rack_kw", 500.0))
    assert e.value.problems[0].key == "building[0].hall[0].max_rack_kw"
    with pytest.raises(InputError):
        ed.apply(SetHall("B9/H1", "max_rack_kw", 50.0))
    with pytest.raises(InputError):
        ed.apply(SetHall("B1/H1", "polygon", [[0, 0]]))
    assert ed.text == before and not ed.can_undo and not ed.dirty


def test_prepared_document_gives_the_same_edits_and_is_used_once(superpod: Path) -> None:
    """prepare() parses ahead of an edit (the TUI does it in its worker): the edits come out byte for byte
    as from a fresh parse; a document prepared for an older text, or spent by a refused edit, is not used."""
    fresh, ahead = SiteEditor(superpod), SiteEditor(superpod)
    edits = [
        SetHall("B1/H1", "max_rack_kw", 48.0),
        SetCluster("design", "mor"),
        SetHall("B1/H1", "cooling", "liquid"),
    ]
    for edit in edits:
        ahead.prepare(ahead.text)
        assert fresh.apply(edit) and ahead.apply(edit)
        assert ahead.text == fresh.text
    ahead.prepare(ahead.text)
    with pytest.raises(InputError):  # the refused edit changed the prepared document: it is not reused
        ahead.apply(SetHall("B1/H1", "max_rack_kw", 500.0))
    ahead.apply(SetHall("B1/H1", "max_rack_kw", 40.0))
    fresh.apply(SetHall("B1/H1", "max_rack_kw", 40.0))
    assert ahead.text == fresh.text and "max_rack_kw = 40.0" in ahead.text
    stale = ahead.text  # cooling liquid
    for ed in (ahead, fresh):
        ed.undo()
        ed.undo()  # back before the cooling edit
    ahead.prepare(stale)  # prepared for a text that is no longer current
    for ed in (ahead, fresh):
        ed.apply(SetHall("B1/H1", "max_rack_kw", 42.0))
    assert ahead.text == fresh.text and 'cooling = "liquid"' not in ahead.text


def test_noop_edit_is_not_an_undo_step(superpod: Path) -> None:
    ed = SiteEditor(superpod)
    assert not ed.apply(SetCluster("design", "rail"))
    assert not ed.can_undo


def test_add_move_retemplate_delete_rows(superpod: Path) -> None:
    ed = SiteEditor(superpod)
    assert ed.inputs.site.row == []
    ed.apply(AddRow("B1/H1", (4.0, 4.0), 8, "dgx-h100-x4"))
    ed.apply(AddRow("B1/H1", (4.0, 10.5), 6, "dgx-h100-x2", axis="x"))
    rows = ed.inputs.site.row
    assert [(r.hall, r.origin, r.racks, r.template) for r in rows] == [
        ("B1/H1", (4.0, 4.0), 8, "dgx-h100-x4"),
        ("B1/H1", (4.0, 10.5), 6, "dgx-h100-x2"),
    ]
    assert "\n\n[[row]]" in ed.text and 'template = "dgx-h100-x4"\n\n[[row]]' in ed.text
    ed.apply(MoveRow(0, (5.2, 6.0)))
    ed.apply(SetRowTemplate(1, "dgx-h100-x4"))
    rows = ed.inputs.site.row
    assert rows[0].origin == (5.2, 6.0) and rows[1].template == "dgx-h100-x4"
    ed.apply(DeleteRow(0))
    assert [r.origin for r in ed.inputs.site.row] == [(4.0, 10.5)]
    ed.apply(DeleteRow(0))
    assert ed.inputs.site.row == [] and "[[row]]" not in ed.text
    with pytest.raises(InputError):
        ed.apply(DeleteRow(0))


def test_row_edits_keep_comments_and_the_tables_after_the_rows(rows_site: Path) -> None:
    ed = SiteEditor(rows_site)
    ed.apply(AddRow("B1/H1", (4.0, 16.0), 4, "dgx-h100-x2"))
    ed.apply(MoveRow(1, (6.0, 10.0)))
    ed.apply(SetHall("B1/H1", "max_rack_kw", 50.0))
    ed.apply(SetHallTemplate("B1/H1", "dgx-h100-x2"))
    assert comments(ed.text) == comments(ROWS_SITE)
    data = tomllib.loads(ed.text)
    assert [r["origin"] for r in data["row"]] == [[4.0, 4.0], [6.0, 10.0], [4.0, 16.0]]
    assert {r["template"] for r in data["row"]} == {"dgx-h100-x2"}
    assert data["tray_block"][0]["line"] == [[30, 2], [30, 38]]
    # the new row sits after the others, before the tray block
    assert ed.text.index("origin = [4.0, 16.0]") < ed.text.index("[[tray_block]]")
    with pytest.raises(InputError):
        ed.apply(SetRowTemplate(0, "no-such-template"))


def test_hall_template_needs_user_rows(superpod: Path) -> None:
    ed = SiteEditor(superpod)
    with pytest.raises(InputError) as e:
        ed.apply(SetHallTemplate("B1/H1", "dgx-h100-x2"))
    assert "no user-placed rows" in e.value.problems[0].problem


def test_undo_redo(superpod: Path) -> None:
    ed = SiteEditor(superpod)
    original = ed.text
    ed.apply(SetHall("B1/H1", "max_rack_kw", 60.0))
    after_kw = ed.text
    ed.apply(SetCluster("design", "mor"))
    assert ed.undo() == "cluster: design = mor"
    assert ed.inputs.site.cluster.design == "rail" and ed.text == after_kw
    assert ed.undo() == "B1/H1: max_rack_kw = 60.0"
    assert ed.text == original and not ed.dirty and ed.undo() is None
    assert ed.redo() == "B1/H1: max_rack_kw = 60.0"
    assert ed.inputs.site.building[0].hall[0].max_rack_kw == 60.0
    ed.apply(SetCluster("nic", "cedar7"))  # a new edit forgets what could be redone
    assert not ed.can_redo and ed.redo() is None


def test_save_keeps_comments_and_a_backup(superpod: Path) -> None:
    original = superpod.read_text()
    ed = SiteEditor(superpod)
    ed.apply(SetHall("B1/H1", "max_rack_kw", 60.0))
    ed.apply(AddRow("B1/H1", (4.0, 4.0), 8, "dgx-h100-x4"))
    assert ed.dirty
    assert ed.save() == superpod
    assert not ed.dirty
    saved = superpod.read_text()
    assert (superpod.parent / "superpod-4su.toml.bak").read_text() == original
    assert comments(saved) == comments(original)
    again = load_site(superpod)
    assert again.site.building[0].hall[0].max_rack_kw == 60.0
    assert again.site.row[0].racks == 8
    # a second save backs up the first saved version
    ed.apply(SetCluster("design", "mor"))
    ed.save()
    assert (superpod.parent / "superpod-4su.toml.bak").read_text() == saved
    assert sorted(p.name for p in superpod.parent.iterdir()) == ["superpod-4su.toml", "superpod-4su.toml.bak"]


def test_save_keeps_the_site_file_s_permissions(superpod: Path) -> None:
    superpod.chmod(0o640)
    ed = SiteEditor(superpod)
    ed.apply(SetHall("B1/H1", "max_rack_kw", 60.0))
    ed.save()
    assert superpod.stat().st_mode & 0o777 == 0o640
    assert (superpod.parent / "superpod-4su.toml.bak").stat().st_mode & 0o777 == 0o640


def test_save_refuses_an_invalid_site_and_writes_nothing(superpod: Path) -> None:
    original = superpod.read_text()
    ed = SiteEditor(superpod)
    ed.text = ed.text.replace('switch = "qm9700"', 'switch = "bogus"')
    with pytest.raises(InputError) as e:
        ed.save()
    assert e.value.problems[0].key == "cluster.switch"
    assert superpod.read_text() == original
    assert sorted(p.name for p in superpod.parent.iterdir()) == ["superpod-4su.toml"]


def test_open_bad_file_reports_problems(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(ROWS_SITE.replace('cooling = "rear-door"', 'cooling = "ice"'))
    with pytest.raises(InputError) as e:
        SiteEditor(bad)
    assert str(e.value.problems[0]).startswith(f"{bad}: building[0].hall[0].cooling:")
    with pytest.raises(InputError) as e:
        SiteEditor(tmp_path / "missing.toml")
    assert e.value.problems[0].problem == "file not found"
