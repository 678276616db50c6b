"""Building-local placement (layout/place/zones.py): with a memo, an edit of one building's hall lays out
that building alone again and takes the others' racks from the memo, the placement being exactly the
cold one; and a zone's layout is kept by everything it is made from (zones.zone_key): change any one
part and the zone is laid out again, leave that part out of the key and the warm run is caught giving
a stale layout."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import leave_out
from test_hall_edits import TWO_HALLS, _hall, _taller_leaf_switch, _wider_gpu_racks, inputs_of, patch

from layout import design, place
from layout.load import Inputs
from layout.memo import Memo, Scope
from layout.place import zones
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
    """The halls of each zone the placer lays out (final layouts made, not taken from a memo)."""
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
    memo = Memo()
    data = THREE
    made = laid_out(monkeypatch)
    design.run(inputs_of(data), memo=memo)
    assert made == [["B1/H1", "B1/H2"], ["B2/H1"], ["B3/H1"]]
    # the it_mw edit makes B1's trial alone again: its SU lands in the same hall (see the test below)
    expect = {0: [["B3/H1"]], 1: [["B3/H1"]], 2: [], 3: [["B3/H1"]], 4: [["B2/H1"]],
              5: [["B1/H1", "B1/H2"]], 6: [["B3/H1"]], 7: []}  # fmt: skip
    for i, (what, edit) in enumerate(EDITS):
        data = patch(data, edit)
        made.clear()
        warm = design.run(inputs_of(data), memo=memo)
        assert made == expect[i], what
        cold = design.run(inputs_of(data))
        same_design(warm, cold)


def test_a_hall_grid_that_changes_leaves_the_kept_zones_after_it_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """B1/H2 gets shorter rows (more cells: the site-wide numbers of B2's and B3's cells shift): B2's and
    B3's kept spots, which count their cells in their own hall, come back as they were kept (B1 alone is
    laid out again), and the racks table is where the cold run puts them."""
    base = inputs_of(THREE)
    fabric = design.build_fabric(base)
    scope = _scope(base)
    place.place(base, fabric, scope)
    edited = inputs_of(patch(THREE, lambda d: hall_of(d, 0, 1).update(max_row_racks=3, cross_aisle_m=2.0)))
    made = laid_out(monkeypatch)
    warm = place.place(edited, fabric, scope)
    assert made == [["B1/H1", "B1/H2"]]
    cold = place.place(edited, fabric)
    assert warm.racks.equals(cold.racks) and (warm.device_rack == cold.device_rack).all()


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
    """Every part of a zone's key, and the fabric (the scope's token: layout/memo.py)."""
    inputs = inputs_of(THREE)
    p = Placer(inputs, design.build_fabric(inputs))
    assert [n for n, _ in VARIANTS if n != "fabric"] == list(zones.zone_key(p, [0, 1]))


def _scope(inputs: Inputs, memo: Memo | None = None) -> Scope:
    """A memo's scope for the placement of ``inputs``' fabric (as layout/design.py makes it)."""
    return Scope(memo or Memo(), design.fabric_token(inputs))


def _twice(name: str) -> tuple[Any, Any, Any]:
    """THREE placed with a memo, then the variant ``name`` with it (warm) and without (cold). The
    ``fabric`` variant is THREE with another cluster's fabric (and that fabric's token); the others keep
    THREE's fabric and token."""
    base = inputs_of(THREE)
    fabric = design.build_fabric(base)
    variant = dict(VARIANTS)[name]()
    inputs, other = (base, design.build_fabric(variant)) if name == "fabric" else (variant, fabric)
    memo = Memo()
    kept = place.place(base, fabric, _scope(base, memo))
    warm = place.place(inputs, other, _scope(variant if name == "fabric" else base, memo))
    return kept, warm, place.place(inputs, other)


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


def test_the_memo_is_bounded() -> None:
    """Each of 32 placements edits B3/H1 (a new trial and final layout of B3 each time): the memo keeps
    its limits, and the placement with it is the cold one."""
    from layout.memo import LIMITS

    memo = Memo()
    data = THREE
    fabric = design.build_fabric(inputs_of(data))
    for k in range(LIMITS["place.zone_trial"]):
        data = patch(data, lambda d, k=k: hall_of(d, 2).update(max_row_racks=4 + k))
        place.place(inputs_of(data), fabric, _scope(inputs_of(data), memo))
    sizes = memo.sizes()
    assert sizes["place.zone_final"] == LIMITS["place.zone_final"]
    assert sizes["place.zone_trial"] == LIMITS["place.zone_trial"]
    assert _same_placement(
        place.place(inputs_of(data), fabric, _scope(inputs_of(data), memo)),
        place.place(inputs_of(data), fabric),
    )


KEY_CASES = [n for n, _ in VARIANTS]


@pytest.mark.parametrize("name", KEY_CASES)
def test_a_kept_zone_is_laid_out_again_when_any_part_of_its_key_changes(name: str) -> None:
    kept, warm, cold = _twice(name)
    assert not _same_placement(warm, kept)
    assert _same_placement(warm, cold)


@pytest.mark.parametrize("name", [n for n in KEY_CASES if n != "fabric"])
def test_leaving_a_part_out_of_the_zone_key_gives_a_stale_placement(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    leave_out(monkeypatch, zones, "zone_key", name)
    _kept, warm, cold = _twice(name)
    assert not _same_placement(warm, cold)


def test_a_power_edit_that_moves_no_su_lays_out_nothing_and_one_that_does_lays_out_its_building(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The campus's B2/H2 it_mw 24 -> 18 MW: its SUs (~12 MW) stay in the same halls, so B2's trial is
    made again and its final layout (which reads no power budget) is the kept one; B2/H1 24 -> 30 MW
    takes SUs of B2/H2 into B2/H1: B2 is laid out again, alone (its pod, ~36 MW, still fits B2's
    45 MW whole). Both give the cold placement."""
    from layout.siteedit import SetHall, SiteEditor

    editor = SiteEditor(ROOT_SITES / "campus-100k.toml")
    fabric = design.build_fabric(editor.inputs)
    scope = _scope(editor.inputs)
    place.place(editor.inputs, fabric, scope)
    made = laid_out(monkeypatch)
    for hall, mw, expect in (("B2/H2", 18.0, []), ("B2/H1", 30.0, [["B2/H1", "B2/H2"]])):
        editor.apply(SetHall(hall, "it_mw", mw))
        made.clear()
        warm = place.place(editor.inputs, fabric, scope)
        assert made == expect, mw
        assert _same_placement(warm, place.place(editor.inputs, fabric)), mw
