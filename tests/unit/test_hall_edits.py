"""Edits of one hall designed with a warm memo (as the TUI reruns them) give exactly the design of a cold
run of the edited site, and a stage's result is kept by everything it reads (layout/memo.py, the
narrow inputs of each stage): change any one part and the result is made again; leave that part out of
the placement's input and the warm run is caught giving a stale placement."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import SMALL_SITE

from layout import design, place
from layout.load import (
    DEFAULT_TEMPLATES_DIR,
    Inputs,
    load_catalog,
    load_templates,
    parse_toml,
    site_from_data,
)
from layout.memo import Memo
from layout.siteedit import AddRow, DeleteRow, MoveRow, SetHall, SetRowTemplate, SiteEditor

ROOT = Path(__file__).resolve().parents[2]
SITES = ROOT / "sites"
CATALOG = load_catalog(DEFAULT_TEMPLATES_DIR)
TEMPLATES = load_templates(DEFAULT_TEMPLATES_DIR)
Same = Callable[[Any, Any], None]


def _hall(hid: str, x0: float, y0: float, **more: Any) -> dict[str, Any]:
    """The small test site's hall (tests/conftest.py), 24 x 16 m from (x0, y0), rows of up to 10 racks."""
    polygon = [[x0, y0], [x0 + 24, y0], [x0 + 24, y0 + 16], [x0, y0 + 16]]
    return {
        **SMALL_SITE["building"][0]["hall"][0],
        "id": hid,
        "polygon": polygon,
        "max_row_racks": 10,
        **more,
    }


# Hand-built: building B1 with two halls 2 m apart (a pass-through trunk joins them), building B2 with
# one hall, a campus duct between the entries; 640 GPUs (80 servers, ~0.9 MW) fill B1's halls up to
# their 0.3 MW each and spill into B2.
TWO_HALLS: dict[str, Any] = {
    **SMALL_SITE,
    "site": {**SMALL_SITE["site"], "name": "hall edits", "utility_mw": 10.0},
    "building": [
        {
            "id": "B1",
            "footprint": [[0, 0], [60, 0], [60, 20], [0, 20]],
            "entry": [0, 10],
            "hall": [_hall("H1", 2, 2, it_mw=0.3), _hall("H2", 28, 2, it_mw=0.3)],
        },
        {
            "id": "B2",
            "footprint": [[200, 0], [230, 0], [230, 20], [200, 20]],
            "entry": [200, 10],
            "hall": [_hall("H1", 203, 2)],
        },
    ],
    "duct": [{"from": "B1", "to": "B2"}],
    "cluster": {**SMALL_SITE["cluster"], "gpus": 640, "pod_spans_buildings": True},
}


def inputs_of(data: dict[str, Any], name: str = "two-halls.toml") -> Inputs:
    """Validated anew from a deep copy: a cold run shares no object with a warm one."""
    return site_from_data(copy.deepcopy(data), Path(name), CATALOG, TEMPLATES, DEFAULT_TEMPLATES_DIR)


def cold_inputs(editor: SiteEditor) -> Inputs:
    """The editor's text validated anew: a cold run of it shares nothing with the warm one."""
    path = editor.path
    return site_from_data(
        parse_toml(editor.text, str(path)), path, editor.catalog, editor.templates, editor.templates_dir
    )


def patch(data: dict[str, Any], fn: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    fn(out)
    return out


def hall_of(data: dict[str, Any], b: int, h: int) -> dict[str, Any]:
    hall: dict[str, Any] = data["building"][b]["hall"][h]
    return hall


# each a change confined to hall B1/H2 (the first two leave every rack where it was)
HALL_EDITS: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("cooling", lambda d: hall_of(d, 0, 1).update(cooling="liquid")),
    ("floor load", lambda d: hall_of(d, 0, 1).update(floor_load_kg_m2=1200.0)),
    ("max kW: the low-density rack", lambda d: hall_of(d, 0, 1).update(max_rack_kw=30.0)),
    ("it_mw", lambda d: hall_of(d, 0, 1).update(it_mw=0.25)),
    (
        "a keep-out",
        lambda d: hall_of(d, 0, 1).update(keepouts=[{"polygon": [[30, 8], [36, 8], [36, 12], [30, 12]]}]),
    ),
    (
        "a user row",
        lambda d: d.update(
            row=[{"hall": "B1/H2", "origin": [29.0, 3.0], "racks": 3, "template": "net-leaf"}]
        ),
    ),
    ("the row moved", lambda d: d["row"][0].update(origin=[29.5, 3.0])),
    ("a wider tray", lambda d: hall_of(d, 0, 1).update(tray={"width_mm": 900})),
    ("a tray block", lambda d: d.update(tray_block=[{"hall": "B1/H2", "line": [[40, 2], [40, 18]]}])),
    ("a tray add", lambda d: d.update(tray_add=[{"hall": "B1/H2", "line": [[30, 3], [30, 17]]}])),
    ("the hall longer", lambda d: hall_of(d, 0, 1).update(polygon=[[28, 2], [56, 2], [56, 18], [28, 18]])),
    ("max kW back", lambda d: hall_of(d, 0, 1).update(max_rack_kw=45.0)),
]


def test_edits_of_one_hall_designed_warm_give_the_cold_design_of_each_edit(same_design: Same) -> None:
    memo = Memo()
    data = TWO_HALLS
    design.run(inputs_of(data), memo=memo)
    for _what, edit in HALL_EDITS:
        data = patch(data, edit)
        warm = design.run(inputs_of(data), memo=memo)
        same_design(warm, design.run(inputs_of(data)))
    assert memo.sizes()["cable.skeleton"] == 1  # one fabric all along: its port skeleton made once


def test_an_edit_that_moves_no_rack_recables_nothing_and_one_that_does_recables(same_design: Same) -> None:
    memo = Memo()
    first = design.run(inputs_of(TWO_HALLS), memo=memo)
    cooled = patch(TWO_HALLS, HALL_EDITS[0][1])
    again = design.run(inputs_of(cooled), memo=memo)
    assert again.cabling is first.cabling  # kept: the cabling never reads a hall's cooling
    assert again.power is not first.power
    same_design(again, design.run(inputs_of(cooled)))
    low = patch(cooled, HALL_EDITS[2][1])
    moved = design.run(inputs_of(low), memo=memo)
    assert moved.cabling is not first.cabling
    assert not moved.placement.racks.equals(first.placement.racks)
    same_design(moved, design.run(inputs_of(low)))


def test_after_a_fabric_toggled_and_back_nothing_is_run_again(same_design: Same) -> None:
    """rail -> middle-of-rack -> rail (the undo): the rail design comes back from the memo whole; then a
    hall edit gives the cold design."""
    memo = Memo()
    rail = design.run(inputs_of(TWO_HALLS), memo=memo)
    mor_data = patch(TWO_HALLS, lambda d: d["cluster"].update(design="mor"))
    mor = design.run(inputs_of(mor_data), memo=memo)
    assert mor.fabric is not rail.fabric
    back = design.run(inputs_of(TWO_HALLS), memo=memo)
    assert back.fabric is rail.fabric and back.cabling is rail.cabling  # kept: nothing run again
    low = patch(TWO_HALLS, HALL_EDITS[2][1])  # the low-density rack in one hall: racks move
    edited = design.run(inputs_of(low), memo=memo)
    assert edited.fabric is rail.fabric and edited.cabling is not rail.cabling
    same_design(edited, design.run(inputs_of(low)))


@pytest.mark.parametrize("stem", ["superpod-4su", "seed002-32k", "gb200-hall"])
def test_the_tuis_hall_edits_on_shipped_sites_warm_give_cold(
    stem: str, tmp_path: Path, same_design: Same
) -> None:
    path = tmp_path / f"{stem}.toml"
    shutil.copy(SITES / f"{stem}.toml", path)
    editor = SiteEditor(path)
    (b, h), *_ = editor.inputs.site.halls()
    key = f"{b.id}/{h.id}"
    x0, y0 = (min(p[i] for p in h.polygon) for i in (0, 1))
    memo = Memo()
    design.run(editor.inputs, memo=memo)
    for edit in [
        SetHall(key, "cooling", "liquid" if h.cooling != "liquid" else "air"),
        SetHall(key, "max_rack_kw", h.max_rack_kw - 5),
        SetHall(key, "it_mw", 0.5),
        AddRow(key, (x0 + 1.0, y0 + 1.0), 2, "net-leaf", h.row_axis),
        MoveRow(0, (x0 + 1.5, y0 + 1.0)),
        SetRowTemplate(0, "net-spine"),
        DeleteRow(0),
        SetHall(key, "max_rack_kw", h.max_rack_kw),
    ]:
        assert editor.apply(edit), edit
        warm = design.run(editor.inputs, memo=memo)
        same_design(warm, design.run(cold_inputs(editor)))


# ------------------------------------------------------------------------------------- complete key
def _thicker_cables(d: dict[str, Any]) -> Inputs:
    """Every cable twice as thick: fuller trays, nothing placed otherwise."""
    inputs = inputs_of(d)
    media_ = {
        k: m.model_copy(update={"diameter_mm": m.diameter_mm * 2}) for k, m in inputs.catalog.media.items()
    }
    catalog = inputs.catalog.model_copy(update={"media": media_})
    return Inputs(inputs.site, catalog, inputs.templates, inputs.path, inputs.templates_dir)


def _taller_gpu_racks(d: dict[str, Any]) -> Inputs:
    """The GPU rack 4U taller: its servers keep their slots (the placement is the same), its tray drop
    is longer."""
    inputs = inputs_of(d)
    tall = inputs.templates["dgx-h100-x4"].model_copy(update={"height_ru": 52})
    templates = {**inputs.templates, "dgx-h100-x4": tall}
    return Inputs(inputs.site, inputs.catalog, templates, inputs.path, inputs.templates_dir)


def _wider_gpu_racks(d: dict[str, Any]) -> Inputs:
    """The GPU rack 10 cm wider: the same GPU rack (servers, kW) in every hall, the racks elsewhere."""
    inputs = inputs_of(d)
    wide = inputs.templates["dgx-h100-x4"].model_copy(update={"width_mm": 700.0})
    templates = {**inputs.templates, "dgx-h100-x4": wide}
    return Inputs(inputs.site, inputs.catalog, templates, inputs.path, inputs.templates_dir)


def _taller_leaf_switch(d: dict[str, Any]) -> Inputs:
    inputs = inputs_of(d)
    sw = inputs.catalog.switch["qm9700"]
    switches = {**inputs.catalog.switch, "qm9700": sw.model_copy(update={"height_ru": sw.height_ru + 8})}
    catalog = inputs.catalog.model_copy(update={"switch": switches})
    return Inputs(inputs.site, catalog, inputs.templates, inputs.path, inputs.templates_dir)


def _site(fn: Callable[[dict[str, Any]], None]) -> Callable[[], Inputs]:
    return lambda: inputs_of(patch(TWO_HALLS, fn))


# per stage, (key part, a site that differs from TWO_HALLS in that part alone and that the stage makes
# differently); the fabric variants are the fabric of another cluster, given for the same site
VARIANTS: dict[str, list[tuple[str, Callable[[], Inputs]]]] = {
    "cable": [
        ("fabric", _site(lambda d: d["cluster"].update(nic="cedar7"))),
        ("catalog", lambda: _thicker_cables(TWO_HALLS)),
        ("rack_heights", lambda: _taller_gpu_racks(TWO_HALLS)),
        ("buildings", _site(lambda d: d["building"][1].update(entry=[200, 12]))),
        ("halls", _site(lambda d: hall_of(d, 0, 1).update(tray={"height_m": 3.5}))),
        ("ducts", _site(lambda d: d["duct"][0].update(path=[[0, 10], [0, -40], [200, -40], [200, 10]]))),
        (
            "tray_block",
            _site(lambda d: d.update(tray_block=[{"hall": "B1/H1", "line": [[14, 2], [14, 18]]}])),
        ),
        ("tray_add", _site(lambda d: d.update(tray_add=[{"hall": "B1/H1", "line": [[4, 3], [24, 17]]}]))),
        ("placement", _site(lambda d: hall_of(d, 0, 1).update(max_rack_kw=30.0))),
    ],
    "place": [
        ("fabric", _site(lambda d: d["cluster"].update(design="mor"))),
        ("catalog", lambda: _taller_leaf_switch(TWO_HALLS)),
        ("templates", lambda: _wider_gpu_racks(TWO_HALLS)),
        ("gpu_racks", _site(lambda d: hall_of(d, 0, 1).update(max_rack_kw=30.0))),
        ("site", _site(lambda d: hall_of(d, 0, 1).update(max_row_racks=4))),
    ],
}


def test_the_variants_cover_every_part_of_the_placements_input() -> None:
    d = design.run(inputs_of(TWO_HALLS))
    assert [n for n, _ in VARIANTS["place"] if n != "fabric"] == list(place.placement_input(d.inputs))


CASES = [(stage, name) for stage, parts in VARIANTS.items() for name, _ in parts]


def _twice(stage: str, name: str) -> tuple[Any, Any, Any]:
    """The base site designed with a memo, then the variant ``name`` with it (warm) and without (cold):
    the base's, the warm and the cold result of ``stage``."""
    part = "placement" if stage == "place" else "cabling"
    memo = Memo()
    base = design.run(inputs_of(TWO_HALLS), memo=memo)
    variant = dict(VARIANTS[stage])[name]
    warm, cold = design.run(variant(), memo=memo), design.run(variant())
    return getattr(base, part), warm, cold


@pytest.mark.parametrize(("stage", "name"), CASES)
def test_a_kept_value_is_made_again_when_any_part_of_its_input_changes(
    stage: str, name: str, same_design: Same
) -> None:
    kept, warm, cold = _twice(stage, name)
    assert getattr(warm, "placement" if stage == "place" else "cabling") is not kept
    same_design(warm, cold)


# the catalog is in the fabric's token too (the placement's token holds it), so leaving it out of the
# placement's input alone hits nothing stale
@pytest.mark.parametrize("name", [n for n, _ in VARIANTS["place"] if n not in ("fabric", "catalog")])
def test_leaving_a_part_out_of_the_placements_input_gives_a_stale_value(
    name: str, monkeypatch: pytest.MonkeyPatch, same_design: Same
) -> None:
    """The check above would catch an incomplete input: without ``name`` in the placement's token, the
    variant (whose other parts equal the base's) hits the base's placement, which is not the variant's."""
    full = place.placement_input

    def without(inputs: Inputs) -> dict[str, Any]:
        parts = full(inputs)
        del parts[name]
        return parts

    monkeypatch.setattr(place, "placement_input", without)
    kept, warm, cold = _twice("place", name)
    assert warm.placement is kept  # the stale hit
    with pytest.raises(AssertionError):
        same_design(warm, cold)


@pytest.mark.slow
def test_hall_edits_of_the_100k_campus_warm_give_cold(tmp_path: Path, same_design: Same) -> None:
    """The TUI bench's hall edits on the campus: a kW that keeps the rack, cooling (nothing re-cabled),
    a kW that brings the low-density rack (the hall placed and cabled again), a user row; then edits of
    B2/H2 that the other buildings' kept layouts serve (layout/place/zones.py):
    its it_mw, a user row, its low-density rack, and a B2/H1 it_mw that moves B2's SUs."""
    path = tmp_path / "campus-100k.toml"
    shutil.copy(SITES / "campus-100k.toml", path)
    editor = SiteEditor(path)
    memo = Memo()
    first = design.run(editor.inputs, memo=memo)
    kept = [first.cabling]
    for edit, recabled in [
        (SetHall("B1/H1", "max_rack_kw", 45.0), False),
        (SetHall("B1/H1", "cooling", "liquid"), False),
        (SetHall("B1/H1", "max_rack_kw", 40.0), True),
        (AddRow("B1/H1", (4.0, 4.0), 4, "net-leaf", "x"), True),
        (SetHall("B2/H2", "it_mw", 18.0), False),
        (AddRow("B2/H2", (378.0, 4.0), 4, "net-leaf", "x"), True),
        (SetHall("B2/H2", "max_rack_kw", 30.0), True),
        (SetHall("B2/H1", "it_mw", 12.0), True),
    ]:
        assert editor.apply(edit), edit
        warm = design.run(editor.inputs, memo=memo)
        assert (warm.cabling is not kept[-1]) == recabled, edit
        kept.append(warm.cabling)
        same_design(warm, design.run(cold_inputs(editor)))


def test_exports_leave_the_kept_placement_and_cabling_as_they_were(tmp_path: Path, same_design: Same) -> None:
    """Designs share the kept placement and cabling: writing every export of one (as the TUI's export
    does) must not change them, or the next warm run would show the change."""
    from layout import export

    inputs = inputs_of(TWO_HALLS)
    memo = Memo()
    first = design.run(inputs, memo=memo)
    export.write(first, export.KINDS, tmp_path)
    again = design.run(inputs_of(TWO_HALLS), memo=memo)
    assert again.cabling is first.cabling and again.placement is first.placement
    same_design(again, design.run(inputs_of(TWO_HALLS)))
