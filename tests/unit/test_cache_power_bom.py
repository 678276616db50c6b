"""The stores of the stages after cabling (layout/cache.py): the power report's rack loads, each hall's
power chain and the whole chain, the BOM's cabling rows and the reliability figures. Each is kept by
everything its value is made from: change any one part of its key and the value is made again (as a
run without a store makes it); leave that part out of the key (``leave_out``) and the stale value of
the base is taken, which these tests catch. And along the TUI's edits, a warm run gives the cold
run's chain and liquid loop too (test_cache.py's ``same_design`` compares the rest)."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from conftest import _same, leave_out

from layout import bom, design, reliability
from layout.cache import DesignCache
from layout.kept import Kept, Same
from layout.load import Inputs
from layout.power import chain as power_chain
from layout.power import loads as power
from layout.power.facility import FacilityInput
from layout.reliability import ReliabilityInput
from layout.siteedit import AddRow, SetHall, SiteEditor

ROOT = Path(__file__).resolve().parents[2]


def same(a: Any, b: Any) -> bool:
    try:
        _same(a, b, "value")
    except AssertionError:
        return False
    return True


def _hall(**kw: Any) -> dict[str, Any]:
    return {"building": {0: {"hall": {0: kw}}}}


def _catalog(inputs: Inputs, kind: str, part: str, **changes: Any) -> Inputs:
    cat = inputs.catalog
    parts = getattr(cat, kind)
    other = cat.model_copy(update={kind: {**parts, part: parts[part].model_copy(update=changes)}})
    return dataclasses.replace(inputs, catalog=other)


@pytest.fixture(scope="module")
def base(make_inputs: Callable[..., Inputs]) -> SimpleNamespace:
    inputs = make_inputs()
    d = design.run(inputs)
    return SimpleNamespace(inputs=inputs, design=d, make=make_inputs)


# ------------------------------------------------------------------------------------------ Same
def test_same_compares_the_very_object_and_does_not_keep_it_alive() -> None:
    class Box:
        pass

    a, b = Box(), Box()
    assert Same(a) == Same(a) and Same(a) != Same(b) and Same(a) != a
    key = Same(b)
    del b
    assert key != key  # the value is gone: its key equals nothing, not even itself


def test_take_makes_a_value_once_per_key_and_keeps_the_newest_as_put_does() -> None:
    kept: Kept[str, list[str]] = Kept(2)
    made: list[str] = []

    def make(k: str) -> Callable[[], list[str]]:
        return lambda: made.append(k) or [k]

    a = kept.take("a", make("a"))
    assert kept.take("a", make("a")) is a and made == ["a"]
    kept.take("b", make("b"))
    kept.take("a", make("a"))  # a is the newest again: c pushes b out
    kept.take("c", make("c"))
    assert kept.known_keys() == ["a", "c"] and made == ["a", "b", "c"]


# ------------------------------------------------------------------------------------ rack loads
def _loads_variant(part: str, b: SimpleNamespace) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(base args, variant args) of power.rack_loads that differ in one part of rack_loads_key alone."""
    inputs, d = b.inputs, b.design
    fab, pl, mw = d.fabric, d.placement, d.cabling.module_w
    args = (inputs, fab, pl, None, None, mw)
    if part == "fabric":  # another fabric object: its NIC draws 50 W more per port
        return args, (inputs, dataclasses.replace(fab, nic="bf3"), pl, None, None, mw)
    if part == "catalog":
        srv = inputs.site.cluster.server
        return args, (_catalog(inputs, "server", srv, power_kw=11.0), fab, pl, None, None, mw)
    if part == "templates":
        tpl = inputs.templates["dgx-h100-x4"].model_copy(update={"weight_kg_empty": 400.0})
        other = dataclasses.replace(inputs, templates={**inputs.templates, "dgx-h100-x4": tpl})
        return args, (other, fab, pl, None, None, mw)
    if part == "nic":  # a fabric whose NIC the catalog lacks: the cluster's NIC is taken
        odd = dataclasses.replace(fab, nic="no-such-nic")
        bf3 = b.make({"cluster": {"nic": "bf3"}})
        return (inputs, odd, pl, None, None, mw), (bf3, odd, pl, None, None, mw)
    if part == "placement":  # the same racks twice as wide: another floor load
        wide = dataclasses.replace(pl, racks=pl.racks.assign(width_m=pl.racks["width_m"] * 2))
        return args, (inputs, fab, wide, None, None, mw)
    assert part == "given"
    return args, (inputs, fab, pl, None, None, np.asarray(mw) + 10.0)


LOADS_PARTS = ["fabric", "catalog", "templates", "nic", "placement", "given"]


@pytest.mark.parametrize("part", LOADS_PARTS)
def test_the_rack_loads_are_kept_by_all_they_are_made_from(
    part: str, base: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, other = _loads_variant(part, base)
    assert list(power.rack_loads_key(*first)) == LOADS_PARTS
    kept: Kept[Any, Any] = Kept(power.RACK_LOADS_KEPT)
    made = power.rack_loads(*first, kept=kept)
    assert power.rack_loads(*first, kept=kept) is made  # all the same: kept
    cold = power.rack_loads(*other)
    assert not same(cold, made)
    assert same(power.rack_loads(*other, kept=kept), cold)
    leave_out(monkeypatch, power, "rack_loads_key", part)
    stale: Kept[Any, Any] = Kept(power.RACK_LOADS_KEPT)
    power.rack_loads(*first, kept=stale)
    assert not same(power.rack_loads(*other, kept=stale), cold)


def test_the_power_report_with_kept_loads_is_the_cold_one_under_other_limits(base: SimpleNamespace) -> None:
    """The loads do not hold the halls' limits: a lower max kW keeps them and still finds the breach."""
    d = base.design
    kept: Kept[Any, Any] = Kept(power.RACK_LOADS_KEPT)
    power.check(base.inputs, d.fabric, d.placement, module_w=d.cabling.module_w, kept=kept)
    low = base.make(_hall(max_rack_kw=20.0, floor_load_kg_m2=500.0, it_mw=0.1))
    warm = power.check(low, d.fabric, d.placement, module_w=d.cabling.module_w, kept=kept)
    cold = power.check(low, d.fabric, d.placement, module_w=d.cabling.module_w)
    assert len(kept) == 1 and same(warm, cold)
    assert {v.kind for v in warm.violations} >= {"rack_kw", "floor_load", "hall_mw"}


# ------------------------------------------------------------------------------- the power chain
def _chain_variant(part: str, b: SimpleNamespace) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(base args, variant args) of power_chain.build differing in one part of hall_chain_key alone."""
    inputs, d = b.inputs, b.design
    pl, kw = d.placement, d.power.rack_kw
    args = (FacilityInput.of(inputs), pl, kw)
    other = {
        "power": lambda: b.make(_hall(power={"redundancy": "N+1"})),
        "it_mw": lambda: b.make(_hall(it_mw=1.0)),
        "cooling": lambda: b.make(_hall(cooling_mw=6.0)),
        "catalog": lambda: _catalog(inputs, "ups", next(iter(inputs.catalog.ups)), rating_mw=0.5),
    }
    if part == "racks":
        return args, (FacilityInput.of(inputs), pl, kw * 1.5)
    return args, (FacilityInput.of(other[part]()), pl, kw)


HALL_CHAIN_PARTS = ["power", "it_mw", "cooling", "catalog", "racks"]


@pytest.mark.parametrize("part", HALL_CHAIN_PARTS)
def test_a_halls_power_chain_is_kept_by_all_it_is_made_from(
    part: str, base: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, other = _chain_variant(part, base)
    kept: Kept[Any, Any] = Kept(power_chain.HALL_CHAINS_KEPT)
    made = power_chain.build(*first, kept)
    assert same(made, power_chain.build(*first)) and len(kept) == 1
    cold = power_chain.build(*other)
    assert not same(cold, made)
    assert same(power_chain.build(*other, kept), cold) and len(kept) == 2
    leave_out(monkeypatch, power_chain, "hall_chain_key", part)
    assert list(power_chain.hall_chain_key(*_key_args(base))) == [p for p in HALL_CHAIN_PARTS if p != part]
    stale: Kept[Any, Any] = Kept(power_chain.HALL_CHAINS_KEPT)
    power_chain.build(*first, stale)
    assert not same(power_chain.build(*other, stale), cold)


def _key_args(b: SimpleNamespace) -> tuple[Any, ...]:
    (_, hall), *_ = b.inputs.site.halls()
    return (b.inputs.catalog, hall, (np.zeros(0),))


@pytest.fixture(scope="module")
def halls4(design_of: Callable[[str], Any], inputs_of: Callable[[str], Inputs]) -> SimpleNamespace:
    """seed002-32k: four halls with racks."""
    return SimpleNamespace(inputs=inputs_of("seed002-32k"), design=design_of("seed002-32k"))


@pytest.mark.parametrize("part", ["halls", "racks"])
def test_the_whole_chain_is_kept_by_its_halls_parts_and_the_racks(
    part: str, halls4: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``halls``: other kW, so other hall parts; ``racks``: the same racks (and so the very same hall
    parts, from the hall store) listed hall by hall in the reverse order: other feed rows."""
    inputs, pl, kw = FacilityInput.of(halls4.inputs), halls4.design.placement, halls4.design.power.rack_kw
    if part == "halls":
        other = (inputs, pl, kw * 1.5)
    else:
        rank = {h: i for i, h in enumerate(reversed(list(dict.fromkeys(pl.racks["hall"].tolist()))))}
        order = np.argsort(pl.racks["hall"].map(rank).to_numpy(), kind="stable")
        racks = pl.racks.iloc[order].reset_index(drop=True)
        assert not racks.equals(pl.racks)
        other = (inputs, dataclasses.replace(pl, racks=racks), kw[order])
    halls: Kept[Any, Any] = Kept(power_chain.HALL_CHAINS_KEPT)
    whole: Kept[Any, Any] = Kept(power_chain.CHAINS_KEPT)
    made = power_chain.build(inputs, pl, kw, halls, whole)
    assert power_chain.build(inputs, pl, kw, halls, whole) is made
    cold = power_chain.build(*other)
    assert not same(cold, made)
    assert same(power_chain.build(*other, halls, whole), cold)
    leave_out(monkeypatch, power_chain, "chain_key", part)
    halls, whole = Kept(power_chain.HALL_CHAINS_KEPT), Kept(power_chain.CHAINS_KEPT)
    power_chain.build(inputs, pl, kw, halls, whole)
    assert not same(power_chain.build(*other, halls, whole), cold)


# ------------------------------------------------------------------------------------------ BOM
def _mor(b: SimpleNamespace) -> Any:
    return design.run(b.make({"cluster": {"design": "mor"}}))


@pytest.mark.parametrize("part", ["cabling", "catalog"])
def test_the_boms_cabling_rows_are_kept_by_all_they_are_made_from(
    part: str, base: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog, cabling = base.inputs.catalog, base.design.cabling
    mor = _mor(base)  # kept alive: the store's key holds its cabling by a weak reference
    if part == "cabling":
        other = (catalog, mor.cabling)
    else:
        other = (_catalog(base.inputs, "media", "mmf", price_usd_per_m=9.0).catalog, cabling)
    assert list(bom.cabling_parts_key(catalog, cabling)) == ["cabling", "catalog"]
    kept: Kept[Any, Any] = Kept(bom.CABLING_PARTS_KEPT)
    made = bom.cabling_parts(catalog, cabling, kept)
    assert bom.cabling_parts(catalog, cabling, kept) is made
    cold = bom.cabling_parts(*other, None)
    assert cold != made and bom.cabling_parts(*other, kept) == cold
    leave_out(monkeypatch, bom, "cabling_parts_key", part)
    stale: Kept[Any, Any] = Kept(bom.CABLING_PARTS_KEPT)
    bom.cabling_parts(catalog, cabling, stale)
    assert bom.cabling_parts(*other, stale) != cold


RELIABILITY_PARTS = ["fabric", "cabling", "catalog", "link_mtbf_years", "training"]


def _figures(args: tuple[Any, Any, Any], kept: Kept[Any, Any] | None = None) -> dict[str, Any]:
    """The reliability figures of (inputs, fabric, cabling), kept in ``kept`` if given."""
    return reliability.design_reliability(ReliabilityInput.of(*args), kept)


@pytest.mark.parametrize("part", RELIABILITY_PARTS)
def test_the_reliability_figures_are_kept_by_all_they_are_made_from(
    part: str, base: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs, fab, cabling = base.inputs, base.design.fabric, base.design.cabling
    mor = _mor(base)
    other = {
        "fabric": lambda: (inputs, dataclasses.replace(fab, nic="cedar7"), cabling),  # the NIC's own MTBF
        "cabling": lambda: (inputs, fab, mor.cabling),
        "catalog": lambda: (_catalog(inputs, "media", "mmf", mtbf_years=2.0), fab, cabling),
        "link_mtbf_years": lambda: (base.make({"cluster": {"link_mtbf_years": 3.0}}), fab, cabling),
        "training": lambda: (base.make({"training": {"step_s": 7.0}}), fab, cabling),
    }[part]()
    assert list(reliability.reliability_key(ReliabilityInput.of(inputs, fab, cabling))) == RELIABILITY_PARTS
    kept: Kept[Any, Any] = Kept(reliability.RELIABILITY_KEPT)
    made = _figures((inputs, fab, cabling), kept)
    again = _figures((inputs, fab, cabling), kept)
    assert again == made and again is not made  # kept, and a copy: a caller may change its own
    again["failures_per_day"] = -1.0
    assert _figures((inputs, fab, cabling), kept) == made
    cold = _figures(other)
    assert cold != made and _figures(other, kept) == cold
    leave_out(monkeypatch, reliability, "reliability_key", part)
    stale: Kept[Any, Any] = Kept(reliability.RELIABILITY_KEPT)
    _figures((inputs, fab, cabling), stale)
    assert _figures(other, stale) != cold


# ------------------------------------------------------------------------- warm == cold, in use
@pytest.mark.parametrize("stem", ["seed002-32k", "gb200-hall"])
def test_edits_of_one_hall_take_the_kept_values_and_give_the_cold_chain_and_loop(
    stem: str, tmp_path: Path
) -> None:
    """Along edits of one hall (a max kW that keeps its racks, its cooling, its power budget, a user
    row), each warm run's power chain and liquid loop equal a cold run's, and the edits that re-cable
    nothing reuse the BOM's cabling rows and the reliability figures."""
    path = tmp_path / f"{stem}.toml"
    shutil.copy(ROOT / "sites" / f"{stem}.toml", path)
    editor = SiteEditor(path)
    cache = DesignCache()
    first = design.run(editor.inputs, cache=cache)
    (b, h), *_ = editor.inputs.site.halls()
    key = f"{b.id}/{h.id}"
    x0, y0 = (min(p[i] for p in h.polygon) for i in (0, 1))
    edits = [
        SetHall(key, "max_rack_kw", h.max_rack_kw - 1),
        SetHall(key, "cooling", "rear-door" if h.cooling == "liquid" else "liquid"),
        SetHall(key, "it_mw", (h.it_mw or 10.0) - 1),
        AddRow(key, (x0 + 2.0, y0 + 2.0), 4, "net-leaf", h.row_axis),
    ]
    for edit in edits:
        assert editor.apply(edit), edit
        warm = design.run(editor.inputs, cache=cache)
        cold = design.run(editor.inputs)
        _same(warm.chain, cold.chain, "chain")
        _same(warm.liquid, cold.liquid, "liquid")
        _same(warm.power, cold.power, "power")
        _same(warm.bom, cold.bom, "bom")
        assert warm.reliability == cold.reliability
        if warm.cabling is first.cabling:
            assert warm.reliability == first.reliability
    sizes = cache.sizes()
    assert sizes["power_loads"] == power.RACK_LOADS_KEPT and sizes["hall_chains"] > len(first.chain.halls)
