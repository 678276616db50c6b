"""Pinning an auto-placed row as a user row (``[[row]]`` with ``front`` and ``templates``): the pinned
row's racks stand exactly where the placer put them, with their templates, and break no rule."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import tomlkit

from layout import fabric, place
from layout.load import InputError, Inputs, load_site
from layout.siteedit import PinRow, SetRowTemplate, SiteEditor, pin_row

ROOT = Path(__file__).resolve().parents[2]
RACK_COLS = ["x_m", "y_m", "rotation_deg", "template", "width_m", "depth_m"]


def run(inputs: Inputs) -> place.Placement:
    fab = fabric.build(inputs.site.cluster, inputs.catalog, place.fabric_servers_per_rack(inputs))
    return place.place(inputs, fab)


def site_copy(tmp_path: Path, stem: str, row_axis: str | None = None) -> Path:
    """A shipped site in ``tmp_path``, its halls' rows along ``row_axis`` if given."""
    dst = tmp_path / f"{stem}.toml"
    shutil.copy(ROOT / "sites" / f"{stem}.toml", dst)
    if row_axis is not None:
        doc = tomlkit.parse(dst.read_text(encoding="utf-8"))
        for b in doc["building"]:  # type: ignore[union-attr]
            for h in b["hall"]:
                h["row_axis"] = row_axis
        dst.write_text(doc.as_string(), encoding="utf-8")
    return dst


def the_row(p: place.Placement, front_sign: int, mixed: bool) -> str:
    """The first auto-placed row facing ``front_sign`` whose racks are (not) of several templates."""
    for rid, front in zip(p.rows["row"], p.rows["front_sign"], strict=True):
        n = p.racks.loc[p.racks["row"] == rid, "template"].nunique()
        if int(front) == front_sign and (n > 1) == mixed:
            return str(rid)
    raise AssertionError(f"no row facing {front_sign} with mixed={mixed}")


def pinned_site(path: Path, p: place.Placement, rid: str) -> SiteEditor:
    """The site of ``path`` with the [[row]] written from the design's tables for row ``rid`` (not from
    pin_row: the racks and rows tables say where the row starts, which way it faces and its templates)."""
    racks = p.racks[p.racks["row"] == rid]
    row = p.rows[p.rows["row"] == rid].iloc[0]
    axis, front = str(row["axis"]), int(row["front_sign"])
    depth = float(racks["depth_m"].max())
    if axis == "x":
        start = float((racks["x_m"] - racks["width_m"] / 2).min())
        fronts = racks["y_m"] + racks["depth_m"] / 2 * front
        origin = (start, float(fronts.iloc[0]) - (depth if front > 0 else 0.0))
        order = racks["x_m"].to_numpy().argsort()
    else:
        start = float((racks["y_m"] - racks["width_m"] / 2).min())
        fronts = racks["x_m"] + racks["depth_m"] / 2 * front
        origin = (float(fronts.iloc[0]) - (depth if front > 0 else 0.0), start)
        order = racks["y_m"].to_numpy().argsort()
    templates = tuple(str(t) for t in racks["template"].to_numpy()[order])
    ed = SiteEditor(path)
    ed.apply(PinRow(str(row["hall"]), origin, axis, "+" if front > 0 else "-", templates, rid))
    return ed


@pytest.mark.parametrize(
    ("row_axis", "front_sign", "mixed"),
    [(None, -1, True), (None, 1, False), ("y", -1, True), ("y", 1, True)],
    ids=["x-mixed-front-", "x-front+", "y-mixed-front-", "y-mixed-front+"],
)
def test_a_pinned_row_stands_where_the_placer_put_it(
    tmp_path: Path, row_axis: str | None, front_sign: int, mixed: bool
) -> None:
    """superpod-4su (rail-optimized: an SU's row is GPU racks with net-leaf racks in the middle): pin a
    row, design again: its racks at the same x, y, rotation and template, now a user row, no violation."""
    path = site_copy(tmp_path, "superpod-4su", row_axis)
    before = run(load_site(path))
    rid = the_row(before, front_sign, mixed)
    ed = pinned_site(path, before, rid)
    (entry,) = tomllib.loads(ed.text)["row"]
    assert entry["front"] == ("+" if front_sign > 0 else "-")
    assert ("templates" in entry) == mixed and ("template" in entry) != mixed
    assert entry["axis"] == (row_axis or "x")
    after = run(ed.inputs)
    want = before.racks[before.racks["row"] == rid][RACK_COLS].reset_index(drop=True)
    got = after.racks[after.racks["user_row"]][RACK_COLS].reset_index(drop=True)
    assert len(got) == len(want)
    assert np.abs(got[["x_m", "y_m"]].to_numpy() - want[["x_m", "y_m"]].to_numpy()).max() < 2e-6
    pd.testing.assert_frame_equal(got.drop(columns=["x_m", "y_m"]), want.drop(columns=["x_m", "y_m"]))
    (user,) = after.rows[after.rows["user_row"]].to_dict("records")
    assert user["front_sign"] == front_sign and user["axis"] == (row_axis or "x")
    assert [v for v in after.violations if v.kind in ("user_row", "aisle")] == []
    assert after.racks_missing == 0
    # pin_row finds the same [[row]] from the racks table alone
    edit = pin_row(before.racks, rid)
    (mine,) = ed.inputs.site.row
    assert (edit.axis, edit.front, list(edit.templates)) == (mine.axis, mine.front, mine.rack_templates())
    assert edit.origin == pytest.approx(mine.origin, abs=1e-6)


def test_pin_row_refuses_a_user_row_and_a_row_with_a_gap(tmp_path: Path) -> None:
    path = site_copy(tmp_path, "superpod-4su")
    before = run(load_site(path))
    rid = the_row(before, -1, True)
    ed = pinned_site(path, before, rid)
    after = run(ed.inputs)
    (user_id,) = after.rows.loc[after.rows["user_row"], "row"].tolist()
    with pytest.raises(InputError, match="is a user row already"):
        pin_row(after.racks, user_id)
    # a gap: the row's third rack moved 0.7 m along it (as a column between racks would leave)
    racks = before.racks.copy()
    idx = racks.index[racks["row"] == rid]
    racks.loc[idx[2:], "x_m"] = racks.loc[idx[2:], "x_m"] + 0.7
    with pytest.raises(InputError, match="not side by side: 0.700 m between its racks 2 and 3"):
        pin_row(racks, rid)


def test_retemplating_a_pinned_mixed_row_gives_every_rack_the_template(tmp_path: Path) -> None:
    path = site_copy(tmp_path, "superpod-4su")
    before = run(load_site(path))
    ed = pinned_site(path, before, the_row(before, -1, True))
    ed.apply(SetRowTemplate(0, "dgx-h100-x4"))
    (entry,) = tomllib.loads(ed.text)["row"]
    assert entry["template"] == "dgx-h100-x4" and "templates" not in entry
    assert ed.inputs.site.row[0].rack_templates() == ["dgx-h100-x4"] * entry["racks"]
    assert ed.inputs.site.row[0].front == "-"


def test_a_row_without_the_new_keys_is_as_before(tmp_path: Path) -> None:
    """``front`` defaults to "+": a row written as before has fronts facing +y, racks from its origin."""
    path = site_copy(tmp_path, "superpod-4su")
    ed = SiteEditor(path)
    from layout.siteedit import AddRow

    ed.apply(AddRow("B1/H1", (4.0, 4.0), 3, "dgx-h100-x4"))
    (row,) = ed.inputs.site.row
    assert (row.front, row.templates, row.rack_templates()) == ("+", None, ["dgx-h100-x4"] * 3)
    p = run(ed.inputs)
    user = p.racks[p.racks["user_row"]]
    assert user["rotation_deg"].tolist() == [0.0] * 3
    assert user["x_m"].tolist() == pytest.approx([4.3, 4.9, 5.5])
    assert user["y_m"].tolist() == pytest.approx([4.0 + float(user["depth_m"].iat[0]) / 2] * 3)
