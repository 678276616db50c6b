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
    SetLayout,
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


def _every_edit(hall: str, x0: float, y0: float, n: int) -> list[object]:
    """One of each edit kind, in an order that each can follow the one before (two rows added after the
    site's ``n``, then edited and deleted)."""
    return [
        SetHall(hall, "max_rack_kw", 44.0),
        AddRow(hall, (x0 + 3.0, y0 + 14.0), 3, "net-leaf", "x"),
        AddRow(hall, (x0 + 12.0, y0 + 14.0), 2, "dgx-h100-x4", "y"),
        MoveRow(n, (x0 + 3.5, y0 + 14.0)),
        SetRowTemplate(n, "net-spine"),
        SetHallTemplate(hall, "net-leaf"),
        SetHall(hall, "cooling", "liquid"),
        SetCluster("design", "mor"),
        DeleteRow(n + 1),
        SetHall(hall, "it_mw", 2.5),
        SetLayout(((hall, "spine_at", (x0 + 10.0, y0 + 10.0)), (hall, "row_axis", "y"))),
        DeleteRow(n),
        SetCluster("design", "rail"),
    ]


@pytest.mark.parametrize("stem", ["rows", "superpod-4su", "campus-100k"])
def test_the_edited_document_serves_the_next_edit_as_a_fresh_parse_would(stem: str, tmp_path: Path) -> None:
    """apply() keeps the document it edited as the new text's, for the next edit (no parse per edit): a
    sequence of every edit kind, each also applied to a fresh parse of the text, gives the same text at
    every step, and a refused edit spends the kept document."""
    path = tmp_path / f"{stem}.toml"
    if stem == "rows":
        path.write_text(ROWS_SITE, encoding="utf-8")
    else:
        shutil.copy(ROOT / "sites" / f"{stem}.toml", path)
    kept, fresh = SiteEditor(path), SiteEditor(path)
    (b, h), *_ = kept.inputs.site.halls()
    x0, y0 = (min(p[i] for p in h.polygon) for i in (0, 1))
    held = []
    for edit in _every_edit(f"{b.id}/{h.id}", x0, y0, len(kept.inputs.site.row)):
        fresh._parsed = None  # a fresh parse of the current text
        assert kept.apply(edit) and fresh.apply(edit), edit  # type: ignore[arg-type]
        assert kept.text == fresh.text, edit
        if kept._parsed is not None:  # kept for the next edit: the current text's
            assert kept._parsed[0] == kept.text
            held.append(type(edit).__name__)
    # the value edits keep their document (an added key, as it_mw in superpod's hall, does not)
    assert {"MoveRow", "SetRowTemplate", "SetHallTemplate", "SetCluster"} <= set(held)
    assert not {"AddRow", "DeleteRow", "SetLayout"} & set(held)
    with pytest.raises(InputError):
        kept.apply(SetHall(f"{b.id}/{h.id}", "max_rack_kw", 500.0))
    assert kept._parsed is None  # spent by the refused edit: the next edit parses the text again
    kept.undo()
    fresh.undo()
    for ed in (kept, fresh):
        ed.apply(SetHall(f"{b.id}/{h.id}", "max_rack_kw", 41.0))
    assert kept.text == fresh.text


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
