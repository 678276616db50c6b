"""Building-local placement (layout/place/zones.py): with a cache, an edit of one building's hall lays out
that building alone again and takes the others' racks from the cache, the placement being exactly the
cold one; and a zone's layout is kept by everything it is made from (zones.zone_key): change any one
part and the zone is laid out again, leave that part out of the key and the warm run is caught giving
a stale layout."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from conftest import leave_out
from test_hall_edits import TWO_HALLS, _hall, _taller_leaf_switch, _wider_gpu_racks, inputs_of, patch

from layout import design, place
from layout.cache import DesignCache
from layout.kept import Kept
from layout.load import Inputs
from layout.place import aisles, tables, zones
from layout.place.assign import Placer
from layout.place.groups import RackGroups

Same = Callable[[Any, Any], None]
ROOT_SITES = Path(__file__).resolve().parents[2] / "sites"

# Three buildings in a line, one 256-GPU pod each (B1's it_mw holds one pod only); the campus top tier
# stands in B2's MDF, the building nearest the others.
THREE: dict[str, Any] = {
    **TWO_HALLS,
    "building": [
        {
            "id": "B1",
            "footprint": [[0, 0], [60, 0], [60, 20], [0, 20]],
            "entry": [0, 10],
            "it_mw": 0.5,
            "hall": [_hall("H1", 2, 2, it_mw=0.4), _hall("H2", 28, 2, it_mw=0.4)],
        },
        {
            "id": "B2",
            "footprint": [[200, 0], [230, 0], [230, 20], [200, 20]],
            "entry": [200, 10],
            "hall": [_hall("H1", 203, 2, it_mw=0.4)],
        },
        {
            "id": "B3",
            "footprint": [[400, 0], [430, 0], [430, 20], [400, 20]],
            "entry": [400, 10],
            "hall": [_hall("H1", 403, 2, it_mw=0.4)],
        },
    ],
    "duct": [{"from": "B1", "to": "B2"}, {"from": "B2", "to": "B3"}],
    "cluster": {**TWO_HALLS["cluster"], "gpus": 768, "pod_gpus": 256, "pod_spans_buildings": False},
}


def _b3_west(d: dict[str, Any]) -> None:
    """B3 moved west of B1: B1 is then the building nearest the others (the campus MDF moves there)."""
    d["building"][2].update(footprint=[[-200, 0], [-170, 0], [-170, 20], [-200, 20]], entry=[-170, 10])
    d["building"][2]["hall"][0]["polygon"] = [[-197, 2], [-173, 2], [-173, 18], [-197, 18]]
    d["duct"] = [{"from": "B1", "to": "B2"}, {"from": "B3", "to": "B1"}]


def hall_of(d: dict[str, Any], b: int, h: int = 0) -> dict[str, Any]:
    hall: dict[str, Any] = d["building"][b]["hall"][h]
    return hall


# each confined to one building; every one but the last moves racks
EDITS: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("B3/H1 low-density racks", lambda d: hall_of(d, 2).update(max_rack_kw=30.0)),
    ("B3/H1 shorter rows", lambda d: hall_of(d, 2).update(max_row_racks=4)),
    ("B1/H1 it_mw", lambda d: hall_of(d, 0).update(it_mw=0.2)),  # its one SU stays where it was
    (
        "a user row in B3/H1",
        lambda d: d.update(
            row=[{"hall": "B3/H1", "origin": [404.0, 3.0], "racks": 2, "template": "net-leaf"}]
        ),
    ),  # fmt: skip
    ("B2/H1 spines at a point", lambda d: hall_of(d, 1).update(spine_at=[220.0, 15.0])),
    (
        "B1/H2 a keep-out",
        lambda d: hall_of(d, 0, 1).update(keepouts=[{"polygon": [[30, 8], [36, 8], [36, 12], [30, 12]]}]),
    ),  # fmt: skip
    ("B3/H1 racks back", lambda d: hall_of(d, 2).update(max_rack_kw=45.0)),
    ("B2/H1 cooling (nothing moves)", lambda d: hall_of(d, 1).update(cooling="liquid")),
]


def test_the_site_has_a_pod_in_each_building_and_the_campus_mdf_in_b2() -> None:
    racks = design.run(inputs_of(THREE)).placement.racks
    by = racks.groupby("building")["kind"].agg(lambda k: sorted(set(k))).to_dict()
    assert by == {"B1": ["gpu", "network", "spine"], "B2": ["core", "gpu", "network", "spine"],
                  "B3": ["gpu", "network", "spine"]}  # fmt: skip
    west = design.run(inputs_of(patch(THREE, _b3_west))).placement.racks
    assert set(west.loc[west["kind"] == "core", "building"]) == {"B1"}


def laid_out(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The halls of each zone the placer lays out (final layouts made, not taken from a cache)."""
    made: list[list[str]] = []
    final = Placer.final

    def counted(self: Placer, zone: list[int], pods: list[int], trial: Any) -> Any:
        made.append([self.halls[h].key for h in zone])
        return final(self, zone, pods, trial)

    monkeypatch.setattr(Placer, "final", counted)
    return made


def test_an_edit_of_one_building_lays_out_that_building_alone_and_gives_the_cold_design(
    monkeypatch: pytest.MonkeyPatch, same_design: Same
) -> None:
    cache = DesignCache()
    data = THREE
    made = laid_out(monkeypatch)
    design.run(inputs_of(data), cache=cache)
    assert made == [["B1/H1", "B1/H2"], ["B2/H1"], ["B3/H1"]]
    # the it_mw edit makes B1's trial alone again: its SU lands in the same hall (see the test below)
    expect = {0: [["B3/H1"]], 1: [["B3/H1"]], 2: [], 3: [["B3/H1"]], 4: [["B2/H1"]],
              5: [["B1/H1", "B1/H2"]], 6: [["B3/H1"]], 7: []}  # fmt: skip
    for i, (what, edit) in enumerate(EDITS):
        data = patch(data, edit)
        made.clear()
        warm = design.run(inputs_of(data), cache=cache)
        assert made == expect[i], what
        cold = design.run(inputs_of(data))
        same_design(warm, cold)


def test_a_hall_grid_that_changes_leaves_the_kept_zones_after_it_right() -> None:
    """B1/H2 gets shorter rows (more cells: the site-wide numbers of B2's and B3's cells shift): B2's and
    B3's kept spots, which count their cells in their own hall, come back as they were kept, the very
    Spot objects, and the racks table is where the cold run puts them."""
    cache = place.PlaceCache()
    base = inputs_of(THREE)
    fabric = design.build_fabric(base)
    place.place(base, fabric, cache)
    edited = inputs_of(patch(THREE, lambda d: hall_of(d, 0, 1).update(max_row_racks=3, cross_aisle_m=2.0)))
    kept = {id(s) for layout in cache.zones.finals._items for s in layout[1].spots}
    warm, cold = place.place(edited, fabric, cache), place.place(edited, fabric)
    assert warm.racks.equals(cold.racks) and (warm.device_rack == cold.device_rack).all()
    later = [layout.spots for key, layout in cache.zones.finals._items[-2:]]  # B2's and B3's, given back
    assert all(id(s) in kept for spots in later for s in spots)


# ------------------------------------------------------------------------------------- complete key
def _site(fn: Callable[[dict[str, Any]], None]) -> Callable[[], Inputs]:
    return lambda: inputs_of(patch(THREE, fn))


# (zone-key part, a site that differs from THREE in that part alone for some zone, laid out differently)
VARIANTS: list[tuple[str, Callable[[], Inputs]]] = [
    ("halls", _site(lambda d: hall_of(d, 2).update(max_row_racks=4))),
    ("buildings", _site(lambda d: d["building"][1].update(mdf_at=[229.0, 19.0]))),
    ("fabric", _site(lambda d: d["cluster"].update(design="mor"))),
    ("catalog", lambda: _taller_leaf_switch(THREE)),
    ("templates", lambda: _wider_gpu_racks(THREE)),
    ("campus", _site(_b3_west)),
]


def test_the_variants_cover_every_part_of_the_zone_key() -> None:
    inputs = inputs_of(THREE)
    p = Placer(inputs, design.build_fabric(inputs))
    assert [n for n, _ in VARIANTS] == list(zones.zone_key(p, [0, 1]))


def _twice(name: str) -> tuple[Any, Any, Any]:
    """THREE placed with a cache, then the variant ``name`` with it (warm) and without (cold). The
    ``fabric`` variant is THREE with another cluster's fabric; the others keep THREE's fabric (the very
    object, as a cache gives it)."""
    base = inputs_of(THREE)
    fabric = design.build_fabric(base)
    variant = dict(VARIANTS)[name]()
    inputs, other = (base, design.build_fabric(variant)) if name == "fabric" else (variant, fabric)
    cache = place.PlaceCache()
    kept = place.place(base, fabric, cache)
    return kept, place.place(inputs, other, cache), place.place(inputs, other)


def _same_placement(a: place.Placement, b: place.Placement) -> bool:
    return (
        a.racks.equals(b.racks)
        and a.rows.equals(b.rows)
        and (a.device_rack == b.device_rack).all()
        and (a.device_ru == b.device_ru).all()
    )


def test_an_sus_kw_is_the_same_with_every_gpu_rack_so_the_first_halls_rack_is_no_key_part() -> None:
    """The trial counts an SU's kW (and the spines' and MDF's share of it) with the first hall's GPU
    rack, which zone_key leaves out: a rail SU's kW is per server whatever rack holds it (middle-of-rack
    clusters have one GPU rack in every hall, in the "halls" part). Should the estimates ever make it
    depend on the rack, this fails: then the first hall's GPU rack belongs in the key."""
    inputs = inputs_of(THREE)
    fabric = design.build_fabric(inputs)
    groups = RackGroups(inputs, fabric)
    low = inputs_of(patch(THREE, lambda d: [hall_of(d, b).update(max_rack_kw=30.0) for b in range(3)]))
    racks = {r.template: r for r in [*place.gpu_racks(inputs).values(), *place.gpu_racks(low).values()]}
    assert sorted(racks) == ["dgx-h100-x2", "dgx-h100-x4"]
    for su in range(len(groups.devices.su_servers)):
        kws = {round(groups.block(su, r).kw, 9) for r in racks.values()}
        assert len(kws) == 1, su


def test_the_stores_are_bounded() -> None:
    """Each of 32 placements edits B3/H1 (a new trial, final layout and tables of B3 each time): the
    stores keep their limits, and the placement with them is the cold one."""
    cache = place.PlaceCache()
    data = THREE
    fabric = design.build_fabric(inputs_of(data))
    for k in range(zones.ZONE_TRIALS_KEPT):
        data = patch(data, lambda d, k=k: hall_of(d, 2).update(max_row_racks=4 + k))
        place.place(inputs_of(data), fabric, cache)
    assert len(cache.zones.finals) == zones.ZONE_LAYOUTS_KEPT
    assert len(cache.zones.trials) == zones.ZONE_TRIALS_KEPT
    assert len(cache.tables) == place.HALL_TABLES_KEPT  # B3/H1's model (and grid key) new every time
    assert _same_placement(place.place(inputs_of(data), fabric, cache), place.place(inputs_of(data), fabric))


# ------------------------------------------------------------------- each hall's part of the tables
def _user_row(template: str) -> Callable[[dict[str, Any]], None]:
    """A user row of 3 racks of ``template`` in B3/H1 (a GPU rack the cluster does not use: left empty)."""
    row = {"hall": "B3/H1", "origin": [404.0, 14.0], "racks": 3, "template": template}
    return lambda d: d.update(row=[row])


# (hall-tables key part, the base site, a variant that differs in that part alone for some hall)
TABLE_VARIANTS: list[tuple[str, Callable[[dict[str, Any]], None], Callable[[dict[str, Any]], None]]] = [
    ("grid", lambda d: None, lambda d: hall_of(d, 2).update(cold_aisle_m=1.5)),
    # B2's MDF in another corner: B2/H1's racks elsewhere on the same grid
    ("spots", lambda d: None, lambda d: d["building"][1].update(mdf_at=[229.0, 19.0])),
    ("slots", _user_row("gb200-nvl72"), _user_row("gb300-nvl72")),
]


def test_the_table_variants_cover_every_part_of_the_hall_tables_key() -> None:
    inputs = inputs_of(THREE)
    p = Placer(inputs, design.build_fabric(inputs))
    assert [n for n, _, _ in TABLE_VARIANTS] == list(tables.hall_tables_key(p, p.halls[0], []))


def _tables_twice(name: str) -> tuple[place.Placement, place.Placement, place.Placement]:
    """The base placed with a cache, then the variant with it (warm) and without (cold), one fabric."""
    _, base_fn, variant_fn = next(v for v in TABLE_VARIANTS if v[0] == name)
    base = inputs_of(patch(THREE, base_fn))
    variant = inputs_of(patch(patch(THREE, base_fn), variant_fn))
    fabric = design.build_fabric(base)
    cache = place.PlaceCache()
    kept = place.place(base, fabric, cache)
    return kept, place.place(variant, fabric, cache), place.place(variant, fabric)


# (module, key function, part, the base placed with a cache and the variant warm and cold)
KEY_CASES = [(zones, "zone_key", n, _twice) for n, _ in VARIANTS] + [
    (tables, "hall_tables_key", n, _tables_twice) for n, _, _ in TABLE_VARIANTS
]
CASE_IDS = [f"{fn}-{n}" for _, fn, n, _ in KEY_CASES]


@pytest.mark.parametrize(("module", "fn", "name", "twice"), KEY_CASES, ids=CASE_IDS)
def test_a_kept_part_is_made_again_when_any_part_of_its_key_changes(
    module: Any, fn: str, name: str, twice: Callable[[str], tuple[Any, Any, Any]]
) -> None:
    kept, warm, cold = twice(name)
    assert not _same_placement(warm, kept)
    assert _same_placement(warm, cold)


@pytest.mark.parametrize(("module", "fn", "name", "twice"), KEY_CASES, ids=CASE_IDS)
def test_leaving_a_part_out_of_a_key_gives_a_stale_placement(
    module: Any,
    fn: str,
    name: str,
    twice: Callable[[str], tuple[Any, Any, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    leave_out(monkeypatch, module, fn, name)
    _kept, warm, cold = twice(name)
    assert not _same_placement(warm, cold)


def test_an_edit_of_one_hall_makes_that_halls_tables_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    full = tables.hall_tables

    def counted(p: Placer, hall: Any, spots: Any) -> Any:
        made.append(hall.key)
        return full(p, hall, spots)

    monkeypatch.setattr(tables, "hall_tables", counted)
    cache = place.PlaceCache()
    fabric = design.build_fabric(inputs_of(THREE))
    place.place(inputs_of(THREE), fabric, cache)
    assert made == ["B1/H1", "B2/H1", "B3/H1"]  # B1/H2 is empty
    made.clear()
    place.place(inputs_of(patch(THREE, lambda d: hall_of(d, 2).update(max_row_racks=4))), fabric, cache)
    assert made == ["B3/H1"]


# ------------------------------------------------------------- each hall's columns, with their ids
def _hall_part() -> tuple[Placer, Any, list[Any]]:
    """THREE's placer, its hall B1/H1 and that hall's spots."""
    inputs = inputs_of(THREE)
    p = Placer(inputs, design.build_fabric(inputs))
    spots, _, _ = p.run()
    return p, p.halls[0], [s for s in spots if s.hall == 0]


def _columns_twice(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """hall_columns' arguments for B1/H1, and the same with another value of the part ``name`` alone."""
    p, hall, spots = _hall_part()
    base = {"hall": hall, "tables": tables.hall_tables(p, hall, spots), "row_digits": 2, "rack_digits": 2}
    variant = dict(base)
    if name == "tables":  # the hall's last rack gone: another part of the tables
        variant["tables"] = tables.hall_tables(p, hall, spots[:-1])
    elif name == "hall":
        variant["hall"] = dataclasses.replace(hall, key="B7/H1", building="B7")
    else:
        variant[name] = 3
    return base, variant


def _same_columns(a: tables.HallColumns, b: tables.HallColumns) -> bool:
    pairs = ((a.racks, b.racks), (a.rows, b.rows), (a.aisle, b.aisle))
    return all(list(ours) == list(theirs[c]) for mine, theirs in pairs for c, ours in mine.items())


COLUMN_PARTS = ["tables", "hall", "row_digits", "rack_digits"]


def test_the_column_variants_cover_every_part_of_the_hall_columns_key() -> None:
    base, _ = _columns_twice("tables")
    assert list(tables.hall_columns_key(**base)) == COLUMN_PARTS


@pytest.mark.parametrize("name", COLUMN_PARTS)
def test_a_halls_columns_are_made_again_when_any_part_of_their_key_changes(name: str) -> None:
    base, variant = _columns_twice(name)
    kept: Kept[Any, Any] = Kept(8)
    first = tables.kept_hall_columns(**base, kept=kept)
    assert tables.kept_hall_columns(**base, kept=kept) is first
    warm = tables.kept_hall_columns(**variant, kept=kept)
    assert not _same_columns(warm, first)
    assert _same_columns(warm, tables.hall_columns(**variant))
    arrays = [v for v in warm.racks.values() if isinstance(v, np.ndarray)]
    assert arrays and not any(a.flags.writeable for a in arrays)  # kept: shared by later placements


@pytest.mark.parametrize("name", COLUMN_PARTS)
def test_leaving_a_part_out_of_the_hall_columns_key_gives_stale_columns(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, variant = _columns_twice(name)
    cold = tables.hall_columns(**variant)
    leave_out(monkeypatch, tables, "hall_columns_key", name)
    kept: Kept[Any, Any] = Kept(8)
    first = tables.kept_hall_columns(**base, kept=kept)
    warm = tables.kept_hall_columns(**variant, kept=kept)
    assert warm is first and not _same_columns(warm, cold)


def test_an_edit_of_one_hall_makes_its_columns_and_aisle_check_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a cache, an edit of B3/H1 makes that hall's columns and checks its aisles alone; the other
    halls' kept columns are the very arrays their kept aisle checks were keyed by."""
    made: list[str] = []
    checked: list[str] = []
    columns, hall_aisles = tables.hall_columns, aisles._hall_aisles
    monkeypatch.setattr(tables, "hall_columns", lambda h, *a: made.append(h.key) or columns(h, *a))
    monkeypatch.setattr(aisles, "_hall_aisles", lambda k, *a: checked.append(k) or hall_aisles(k, *a))
    cache = place.PlaceCache()
    fabric = design.build_fabric(inputs_of(THREE))
    place.place(inputs_of(THREE), fabric, cache)
    assert made == checked == ["B1/H1", "B2/H1", "B3/H1"]  # B1/H2 is empty
    made.clear()
    checked.clear()
    edited = inputs_of(patch(THREE, lambda d: hall_of(d, 2).update(max_row_racks=4)))
    warm = place.place(edited, fabric, cache)
    assert made == checked == ["B3/H1"]
    assert _same_placement(warm, place.place(edited, fabric))
    for c in tables.RACK_TEXT:  # one array per column, as pandas makes of a list: not a chunk per hall
        assert isinstance(pa.array(warm.racks[c], from_pandas=True), pa.Array), c


def test_a_power_edit_that_moves_no_su_lays_out_nothing_and_one_that_does_lays_out_its_building(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The campus's B2/H2 it_mw 24 -> 18 MW: its SUs (~12 MW) stay in the same halls, so B2's trial is
    made again and its final layout (which reads no power budget) is the kept one; -> 8 MW moves SUs
    into B2/H1: B2 is laid out again. Both give the cold placement."""
    from layout.siteedit import SetHall, SiteEditor

    editor = SiteEditor(ROOT_SITES / "campus-100k.toml")
    fabric = design.build_fabric(editor.inputs)
    cache = place.PlaceCache()
    place.place(editor.inputs, fabric, cache)
    made = laid_out(monkeypatch)
    for mw, expect in ((18.0, []), (8.0, [["B2/H1", "B2/H2"]])):
        editor.apply(SetHall("B2/H2", "it_mw", mw))
        made.clear()
        warm = place.place(editor.inputs, fabric, cache)
        assert made == expect, mw
        assert _same_placement(warm, place.place(editor.inputs, fabric)), mw
