"""Explicit caching (layout/cache.py): a run without a cache keeps nothing; a run with one gives the same
design as a run without, for every shipped site and along a sequence of edits like the TUI's; and every
store's key holds all that its value is made from (change any of it: the value is made again)."""

from __future__ import annotations

import functools
import importlib
import pkgutil
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import leave_out

import layout
from layout import cache as cache_mod
from layout import design, place
from layout.cache import DesignCache
from layout.load import Inputs, load_site, parse_toml, site_from_data
from layout.model.site import Cluster
from layout.siteedit import AddRow, MoveRow, SetCluster, SetHall, SiteEditor

ROOT = Path(__file__).resolve().parents[2]
SITES = ROOT / "sites"
FRONT_ENDS = ("layout.cli", "layout.commands", "layout.tui", "layout.export", "layout.scene")
Same = Callable[[Any, Any], None]


def core_modules() -> list[Any]:
    """Every module of the package outside the front ends and exporters, imported."""
    out = []
    for m in pkgutil.walk_packages(layout.__path__, "layout."):
        if (
            not any(m.name == f or m.name.startswith(f + ".") for f in FRONT_ENDS)
            and m.name != "layout.__main__"
        ):
            out.append(importlib.import_module(m.name))
    return out


def module_state() -> dict[str, Any]:
    """What each core module holds at module level that a run could change: the contents of its dicts,
    lists, sets and kept stores, and the sizes of its functools caches."""
    state: dict[str, Any] = {}
    for mod in core_modules():
        for name, value in vars(mod).items():
            key = f"{mod.__name__}.{name}"
            if isinstance(value, dict | list | set):
                state[key] = repr(value)
            elif hasattr(value, "cache_info"):
                state[key] = value.cache_info().currsize
            elif isinstance(value, layout.kept.Kept):
                state[key] = len(value)
    return state


def test_a_run_without_a_cache_keeps_nothing_in_the_core(superpod: Path) -> None:
    inputs = load_site(superpod)
    before = module_state()
    first = design.run(inputs)
    second = design.run(inputs)
    assert module_state() == before
    assert second.fabric is not first.fabric  # built again: nothing was kept
    # and no module of the core holds a store of kept values, a weak map or a thread-local switch
    for mod in core_modules():
        for name, value in vars(mod).items():
            kind = type(value).__name__
            assert kind not in ("Kept", "WeakKeyDictionary", "WeakValueDictionary", "local"), (
                f"{mod.__name__}.{name}"
            )
            assert (
                not isinstance(value, functools._lru_cache_wrapper) or mod.__name__ == "layout.load.parts"
            ), name


@pytest.fixture
def superpod(tmp_path: Path) -> Path:
    shutil.copy(SITES / "superpod-4su.toml", tmp_path / "superpod-4su.toml")
    return tmp_path / "superpod-4su.toml"


@pytest.mark.parametrize("stem", sorted(p.stem for p in SITES.glob("*.toml")))
def test_a_warm_cache_gives_the_cold_design_on_every_shipped_site(
    stem: str, inputs_of: Callable[[str], Inputs], design_of: Callable[[str], Any], same_design: Same
) -> None:
    inputs = inputs_of(stem)
    cache = DesignCache()
    first = design.run(inputs, cache=cache)
    warm = design.run(inputs, cache=cache)  # every store hits: fabric, hall grids, grouped devices
    assert warm.fabric is first.fabric
    assert len(cache.place.grids) == sum(len(b.hall) for b in inputs.site.building)
    same_design(warm, design_of(stem))  # design_of: design.run(inputs), no cache
    same_design(first, design_of(stem))


def edits(inputs: Inputs) -> list[Any]:
    """TUI-like edits of a site: kW and cooling of a hall, rail <-> middle-of-rack, NIC, a user row added
    and moved; undo and redo in between (``"undo"``/``"redo"``)."""
    halls = [f"{b.id}/{h.id}" for b, h in inputs.site.halls()]
    first, last = halls[0], halls[-1]
    h0 = next(h for _, h in inputs.site.halls())
    x0, y0 = (min(p[i] for p in h0.polygon) for i in (0, 1))
    return [
        SetHall(first, "max_rack_kw", h0.max_rack_kw - 5),
        SetCluster("design", "mor"),
        "undo",
        "redo",
        "undo",
        SetHall(last, "cooling", "liquid"),
        SetCluster("nic", "cedar7"),
        SetHall(first, "max_rack_kw", h0.max_rack_kw + 10),
        AddRow(first, (x0 + 2.0, y0 + 2.0), 4, "net-leaf", h0.row_axis),
        MoveRow(0, (x0 + 2.5, y0 + 2.0)),
        "undo",
        SetCluster("design", "mor"),
    ]


@pytest.mark.parametrize("stem", ["superpod-4su", "seed002-32k"])
def test_edits_designed_with_a_warm_cache_give_each_edit_designed_cold(
    stem: str, tmp_path: Path, same_design: Same
) -> None:
    path = tmp_path / f"{stem}.toml"
    shutil.copy(SITES / f"{stem}.toml", path)
    editor = SiteEditor(path)
    cache = DesignCache()
    design.run(editor.inputs, cache=cache)
    steps = 0
    for edit in edits(editor.inputs):
        if edit == "undo":
            assert editor.undo()
        elif edit == "redo":
            assert editor.redo()
        else:
            assert editor.apply(edit), edit
        warm = design.run(editor.inputs, cache=cache)
        # cold: the edited text validated anew and designed by a run that shares nothing with the warm one
        cold_inputs = site_from_data(
            parse_toml(editor.text, str(path)), path, editor.catalog, editor.templates, editor.templates_dir
        )
        same_design(warm, design.run(cold_inputs))
        steps += 1
    assert steps == 12 and len(cache.fabrics) == cache_mod.FABRICS_KEPT  # rail, mor, cedar7, cedar7+mor


# ------------------------------------------------------------------------------------ complete keys
def test_the_fabric_store_keys_on_the_cluster_its_given_keys_the_catalog_and_the_file(superpod: Path) -> None:
    editor = SiteEditor(superpod)
    cache = DesignCache()
    first = design.build_fabric(editor.inputs, cache)
    assert design.build_fabric(editor.inputs, cache) is first
    assert design.build_fabric(editor.inputs) is not first  # no cache, no reuse
    assert design.build_fabric(editor.inputs, DesignCache()) is not first  # another cache, its own
    inputs = editor.inputs
    # equal as models, but link_mtbf_years no longer given: fabric.build reads which keys were given
    cluster = inputs.site.cluster
    implicit = Cluster.model_validate(cluster.model_dump(exclude={"link_mtbf_years"}))
    assert implicit == cluster and implicit.model_fields_set != cluster.model_fields_set
    site = inputs.site.model_copy(update={"cluster": implicit})
    assert (
        design.build_fabric(Inputs(site, inputs.catalog, inputs.templates, inputs.path), cache) is not first
    )
    # another catalog (a switch drawing more), another file: another fabric
    sw = inputs.catalog.switch[cluster.switch]
    hot = sw.model_copy(update={"power_w_copper": sw.power_w_copper + 100})
    catalog = inputs.catalog.model_copy(update={"switch": {**inputs.catalog.switch, cluster.switch: hot}})
    other = Inputs(inputs.site, catalog, inputs.templates, inputs.path)
    assert design.build_fabric(other, cache) is not first
    elsewhere = Inputs(inputs.site, inputs.catalog, inputs.templates, superpod.with_name("other.toml"))
    assert design.build_fabric(elsewhere, cache) is not first
    # the oldest of more than FABRICS_KEPT goes; the newest stay
    assert len(cache.fabrics) == cache_mod.FABRICS_KEPT == 4
    assert design.build_fabric(inputs, cache) is first  # now the newest again
    editor.apply(SetCluster("nic", "cedar7"))
    cedar = design.build_fabric(editor.inputs, cache)  # a fifth: the oldest (implicit) goes
    assert design.build_fabric(editor.inputs, cache) is cedar and design.build_fabric(inputs, cache) is first
    assert len(cache.fabrics) == 4 and all(k[0] is not implicit for k in cache.fabrics.known_keys())


def test_only_the_edited_halls_grid_is_worked_out_again_and_the_placement_is_the_cold_one() -> None:
    editor = SiteEditor(SITES / "seed002-32k.toml")
    cache = place.PlaceCache()
    place.place(editor.inputs, design.build_fabric(editor.inputs), cache)
    editor.apply(SetHall("B1/H1", "max_rack_kw", 45.0))  # 4 servers a rack fit now: another GPU rack
    fab = design.build_fabric(editor.inputs)
    grids = cache.grids.known_keys()
    kept = place.place(editor.inputs, fab, cache)
    new = [k for k in cache.grids.known_keys() if k not in grids]
    assert len(new) == 1  # only the edited hall's grid was worked out again (of 4)
    cold = place.place(editor.inputs, fab)
    assert kept.racks.equals(cold.racks) and kept.rows.equals(cold.rows)
    assert np.array_equal(kept.device_rack, cold.device_rack)
    assert np.array_equal(kept.device_ru, cold.device_ru)
    assert kept.racks_by_template() != place.place(SiteEditor(editor.path).inputs, fab).racks_by_template()


def test_a_hall_grid_is_kept_by_all_it_is_made_from(make_inputs: Callable[..., Inputs]) -> None:
    """The same hall with a wider cross aisle, or another rack band, is another grid (not the kept one)."""
    base = make_inputs(
        {
            "cluster": {"gpus": 768},
            "building": {0: {"hall": {0: {"polygon": [[0, 0], [30, 0], [30, 12], [0, 12]]}}}},
        }
    )
    wider = make_inputs(
        {
            "cluster": {"gpus": 768},
            "building": {
                0: {"hall": {0: {"polygon": [[0, 0], [30, 0], [30, 12], [0, 12]], "cross_aisle_m": 2.0}}}
            },
        }
    )
    fab = design.build_fabric(base)
    cache = place.PlaceCache()
    place.place(base, fab, cache)
    assert len(cache.grids) == 1
    got = place.place(wider, fab, cache)
    assert len(cache.grids) == 2
    cold = place.place(wider, fab)
    assert got.racks.equals(cold.racks) and not got.racks.equals(place.place(base, fab).racks)


def test_grouped_devices_are_kept_by_fabric_catalog_and_templates(make_inputs: Callable[..., Inputs]) -> None:
    """The same fabric with another catalog (a 4U taller leaf switch: other network racks) is grouped again."""
    inputs = make_inputs(
        {
            "cluster": {"gpus": 768},
            "building": {0: {"hall": {0: {"polygon": [[0, 0], [30, 0], [30, 12], [0, 12]]}}}},
        }
    )
    fab = design.build_fabric(inputs)
    sw = inputs.catalog.switch[inputs.site.cluster.switch]
    taller = inputs.catalog.model_copy(
        update={
            "switch": {
                **inputs.catalog.switch,
                inputs.site.cluster.switch: sw.model_copy(update={"height_ru": sw.height_ru + 4}),
            }
        }
    )
    other = Inputs(inputs.site, taller, inputs.templates, inputs.path, inputs.templates_dir)
    cache = place.PlaceCache()
    place.place(inputs, fab, cache)
    (derived,) = [cache.groups.get(k) for k in cache.groups.known_keys()]
    assert place.place(inputs, fab, cache) is not None and len(cache.groups) == 1
    got = place.place(other, fab, cache)
    assert len(cache.groups) == 2 and derived in [cache.groups.get(k) for k in cache.groups.known_keys()]
    cold = place.place(other, fab)
    assert got.racks.equals(cold.racks) and np.array_equal(got.device_ru, cold.device_ru)
    assert not np.array_equal(got.device_ru, place.place(inputs, fab).device_ru)  # the catalog mattered


def _bom_variant(part: str, make_inputs: Callable[..., Inputs]) -> tuple[Any, Any, Any, Any]:
    """A site's inputs and fabric, and a variant differing in one part of bom.fabric_parts_key alone:
    ``fabric`` another cluster's fabric (Cedar-7 NICs) for the same inputs, ``catalog`` the server at
    twice its price."""
    from layout.load import Inputs as In

    base = make_inputs({"cluster": {"gpus": 256}})
    fab = design.build_fabric(base)
    if part == "fabric":
        return base, fab, base, design.build_fabric(make_inputs({"cluster": {"gpus": 256, "nic": "cedar7"}}))
    srv = base.catalog.server[base.site.cluster.server]
    dear = base.catalog.model_copy(
        update={
            "server": {
                **base.catalog.server,
                base.site.cluster.server: srv.model_copy(update={"price_usd": srv.price_usd * 2}),
            }
        }
    )
    return base, fab, In(base.site, dear, base.templates, base.path, base.templates_dir), fab


@pytest.mark.parametrize("part", ["fabric", "catalog"])
def test_the_boms_fabric_parts_are_kept_by_all_they_are_made_from(
    part: str, make_inputs: Callable[..., Inputs], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the whole key, the variant's servers, nodes and switches are made again (as a run without a
    store makes them); with ``part`` left out of the key, the kept ones of the base are taken: stale."""
    from layout import bom

    base, fab, other, other_fab = _bom_variant(part, make_inputs)
    assert list(bom.fabric_parts_key(base.catalog, fab)) == ["fabric", "catalog"]
    kept: Any = bom.Kept(bom.FABRIC_PARTS_KEPT)
    first = bom.fabric_parts(base.catalog, fab, kept)
    assert bom.fabric_parts(base.catalog, fab, kept) is first  # the same fabric and catalog: kept
    cold = bom.fabric_parts(other.catalog, other_fab, None)
    assert cold != first
    assert bom.fabric_parts(other.catalog, other_fab, kept) == cold
    leave_out(monkeypatch, bom, "fabric_parts_key", part)
    stale: Any = bom.Kept(bom.FABRIC_PARTS_KEPT)
    bom.fabric_parts(base.catalog, fab, stale)
    assert bom.fabric_parts(other.catalog, other_fab, stale) != cold


# a value of each hall key outside the floor grid's GRID_FIELDS, other than the small site's
NOT_GRID = {
    "id": "H9", "cooling": "liquid", "max_rack_kw": 48.0, "floor_load_kg_m2": 900.0, "it_mw": 0.3,
    "cooling_mw": 0.4, "power": {"redundancy": "N+1"}, "tray": {"width_mm": 900, "levels": 2},
    "spine_at": [5.0, 5.0], "su_order": ["p0-u00"],
}  # fmt: skip


def _grid_of(inputs: Inputs, gpu: Any) -> tuple[Any, ...]:
    """The first hall's floor grid worked out anew (no store), with the GPU racks ``gpu`` (a hall key that
    picks another GPU rack changes the grid through the rack: that is the GPU rack's part of the key)."""
    from layout.place.floor_grid import build_halls

    halls, cells = build_halls(inputs, gpu, place.network_templates(inputs), {})
    h = halls[0]
    return (
        h.usable.wkt,
        h.line_v,
        h.line_front,
        h.line_cells,
        [(c.line, c.seg, c.u0, c.u1, c.v0, c.free) for c in cells],
    )


def test_a_hall_key_outside_the_grid_fields_changes_no_grid_and_each_field_is_every_hall_key(
    make_inputs: Callable[..., Inputs],
) -> None:
    """Every key of a hall is a grid field or one that leaves the floor grid as it was (so the grid's
    key may leave it out: an it_mw or cooling edit keeps the hall's grid, tables and aisle check)."""
    from layout.model.site import Hall
    from layout.place.floor_grid import GRID_FIELDS

    assert GRID_FIELDS | set(NOT_GRID) == set(Hall.model_fields)
    base = make_inputs()
    gpu = place.gpu_racks(base)
    grid = _grid_of(base, gpu)
    for name, value in NOT_GRID.items():
        other = make_inputs({"building": {0: {"hall": {0: {name: value}}}}})
        assert getattr(other.site.building[0].hall[0], name) != getattr(base.site.building[0].hall[0], name)
        key = f"B1/{other.site.building[0].hall[0].id}"
        assert _grid_of(other, {key: next(iter(gpu.values()))}) == grid, name
    wider = make_inputs({"building": {0: {"hall": {0: {"cold_aisle_m": 1.5}}}}})
    assert _grid_of(wider, gpu) != grid  # a grid field does change it


def test_an_it_mw_edit_keeps_the_halls_grid_tables_and_aisle_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """An it_mw edit that moves no SU places again (the trial reads it) but works out no grid, makes no
    hall's part of the tables and checks no hall's aisles: none of them reads a hall's power."""
    from layout.place import aisles, floor_grid, tables

    made: list[str] = []
    for mod, fn in ((floor_grid, "lay_grid"), (tables, "hall_tables"), (aisles, "_hall_aisles")):
        full = getattr(mod, fn)
        monkeypatch.setattr(mod, fn, lambda *a, full=full, fn=fn: made.append(fn) or full(*a))
    editor = SiteEditor(SITES / "seed002-32k.toml")
    fab = design.build_fabric(editor.inputs)
    cache = place.PlaceCache()
    place.place(editor.inputs, fab, cache)
    (b, h), *_ = editor.inputs.site.halls()
    editor.apply(SetHall(f"{b.id}/{h.id}", "it_mw", 50.0))  # above its cooling: no SU moves
    made.clear()
    warm = place.place(editor.inputs, fab, cache)
    assert made == []
    cold = place.place(editor.inputs, fab)
    assert (
        warm.racks.equals(cold.racks) and warm.rows.equals(cold.rows) and warm.violations == cold.violations
    )
