"""The 100k campus (seed 000) cabled three ways, once per session: as shipped (rail-optimized, CX-7; the
session's shared design), middle-of-rack, and rail-optimized with Cedar-7."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from layout.cable import CableInput, Cabling, cable
from layout.design import build_fabric
from layout.load import DEFAULT_TEMPLATES_DIR, load_catalog, load_templates, site_from_data
from layout.place import place

ROOT = Path(__file__).resolve().parents[2]
CAMPUS = ROOT / "sites" / "campus-100k.toml"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def campus(design_of: Callable[[str], Any]) -> dict[str, tuple[Any, Any, Cabling]]:
    """The shipped campus (the session's shared design: rail, CX-7) and two variants of its cluster."""
    d = design_of("campus-100k")
    out = {"rail": (d.inputs, d.fabric, cable(CableInput.of(d.inputs), d.fabric, d.placement))}
    for name, design, nic in (("mor", "mor", "cx7"), ("cedar7", "rail", "cedar7")):
        data = tomllib.loads(CAMPUS.read_text(encoding="utf-8"))
        data["cluster"]["design"] = design
        data["cluster"]["nic"] = nic
        inputs = site_from_data(data, CAMPUS, load_catalog(), load_templates(), DEFAULT_TEMPLATES_DIR)
        fab = build_fabric(inputs)
        out[name] = (inputs, fab, cable(CableInput.of(inputs), fab, place(inputs, fab)))
    return out


def test_every_link_has_a_route_or_a_violation(campus: dict[str, tuple[Any, Any, Cabling]]) -> None:
    for _, _, c in campus.values():
        links = c.links
        routed = links["status"] == "ok"
        assert links.loc[routed, "route"].isin(["rack", "adjacent", "tray"]).all()
        assert links.loc[routed, "length_m"].notna().all() and links.loc[routed, "media"].ne("").all()
        reported = sum(v.figures["links"] for v in c.violations if v.kind in ("no_path", "reach"))
        assert reported == int((~routed).sum())


def test_middle_of_rack_gpu_links_are_all_copper(campus: dict[str, tuple[Any, Any, Cabling]]) -> None:
    _, _, c = campus["mor"]
    links = c.links
    gpu = links[links["kind"] == "gpu_leaf"]
    assert len(gpu) == 98_304
    assert gpu["media_class"].isin(["dac", "aec"]).all()
    assert c.node_optics() == 0
    backend = links[links["network"] == "backend"]
    share = float(backend["media_class"].isin(["dac", "aec"]).mean())
    assert 0.25 <= share <= 0.33  # seed 000: 25-33 % of the GPU fabric is copper


def test_rail_optimized_gpu_links_leave_the_rack_and_are_nearly_all_optical(
    campus: dict[str, tuple[Any, Any, Cabling]],
) -> None:
    inputs, _, c = campus["rail"]
    gpu = c.links[c.links["kind"] == "gpu_leaf"]
    assert len(gpu) == 98_304
    assert (gpu["rack_a"] != gpu["rack_b"]).all()
    optical = gpu["media_class"].isin(["mmf", "smf", "coherent"])
    assert optical.mean() >= 0.75
    # the copper ones are exactly those whose routed length a copper medium reaches
    copper_reach = max(
        m.reach_m for m in inputs.catalog.media.values() if not m.optical and 400 in m.speeds_gbps
    )
    assert (gpu.loc[~optical, "length_m"] <= copper_reach).all()
    # an optical link is beyond copper reach, or shares its leaf's twin-port cage with one that is
    pm = c.ports
    assert pm is not None
    n = len(c.links)
    leaf_cage = c.links["b"].to_numpy() * 1000 + pm.cage[n:]
    longest = pd.Series(c.links["length_m"].to_numpy()).groupby(leaf_cage).transform("max").to_numpy()
    g = (c.links["kind"] == "gpu_leaf").to_numpy()
    opt = optical.to_numpy()
    assert (longest[g][opt] > copper_reach).all()
    alone = gpu["length_m"].to_numpy() > copper_reach
    assert 0 < int((opt & ~alone).sum()) < 0.1 * len(gpu)  # only a cage mate makes a short link optical
    # one node-side module per optical GPU link with CX-7
    assert c.node_optics() == int(optical.sum())


def test_cedar7_halves_the_node_side_modules(campus: dict[str, tuple[Any, Any, Cabling]]) -> None:
    _, _, rail = campus["rail"]
    _, _, c7 = campus["cedar7"]
    gpu = c7.links[
        (c7.links["kind"] == "gpu_leaf") & c7.links["media_class"].isin(["mmf", "smf", "coherent"])
    ]
    per_server = gpu.groupby(["a", "media"], observed=True).size().to_numpy()
    assert c7.node_optics() == int(np.sum(-(-per_server // 2)))
    # seed 000: 98,304 -> 49,152. Every Cedar-7 GPU link is optical (a twin-port server cage to two
    # leaves has no copper cable), so exactly half of the 98,304; with PCIe ConnectX-7 the links to a
    # leaf in reach of copper go on copper, and the rest are one module each
    assert c7.node_optics() == 49_152
    rail_gpu = rail.links[rail.links["kind"] == "gpu_leaf"]
    copper = int((~rail_gpu["media_class"].isin(["mmf", "smf", "coherent"])).sum())
    assert rail.node_optics() + copper == 98_304


def test_switch_power_follows_each_switch_s_modules(
    campus: dict[str, tuple[Any, Any, Cabling]],
) -> None:
    for name in ("rail", "mor"):
        inputs, fab, c = campus[name]
        ends = np.r_[c.links["a"].to_numpy(), c.links["b"].to_numpy()]
        optical = np.r_[c.link_optical, c.link_optical]
        assert (c.optical_ports == np.bincount(ends[optical], minlength=len(fab.devices))).all()
        # module watts by hand: every module at its medium's single/twin-port figure, AEC ends 6 W each
        cat = inputs.catalog
        mods = c.modules
        watt = np.array(
            [cat.module_power_w(m, w) for m, w in zip(mods["media"], mods["links_per_module"], strict=True)]
        )
        expected_w = np.bincount(mods["device"], weights=mods["modules"] * watt, minlength=len(fab.devices))
        aec = (c.links["media"] == "aec").to_numpy()
        expected_w += 6.0 * np.bincount(ends[np.r_[aec, aec]], minlength=len(fab.devices))
        assert np.allclose(c.module_w, expected_w)
        models = fab.devices["model"].to_numpy()
        for model in sorted(set(models.tolist()) & set(cat.switch)):
            sw = cat.switch[model]
            m = models == model
            expected = np.minimum(sw.power_w_copper + expected_w[m], sw.power_w_optics) / 1000
            assert np.allclose(c.switch_power_kw[m], expected)
            assert (c.switch_power_kw[m] <= sw.power_w_optics / 1000 + 1e-12).all()
        assert np.isnan(c.switch_power_kw[fab.devices["role"].to_numpy() == "server"]).all()
    # middle-of-rack leaves talk copper to their GPUs: the same switches draw less
    rail_leaf = campus["rail"][2].switch_power_kw[campus["rail"][1].devices["role"].to_numpy() == "leaf"]
    mor_leaf = campus["mor"][2].switch_power_kw[campus["mor"][1].devices["role"].to_numpy() == "leaf"]
    assert float(np.mean(mor_leaf)) < float(np.mean(rail_leaf))


def test_q3400_leaves_draw_their_800g_ports_within_the_catalog_maximum() -> None:
    data = tomllib.loads(CAMPUS.read_text(encoding="utf-8"))
    data["cluster"]["switch"] = "q3400"
    inputs = site_from_data(data, CAMPUS, load_catalog(), load_templates(), DEFAULT_TEMPLATES_DIR)
    fab = build_fabric(inputs)
    c = cable(CableInput.of(inputs), fab, place(inputs, fab))
    q = inputs.catalog.switch["q3400"]
    role = fab.devices["role"].to_numpy()
    leaf = role == "leaf"
    # a leaf takes whole SUs of 32 DGX H100: 4 of them (128 down, 128 up) of its 288 400G links (144
    # 800G ports, 4 x 400G per 1.6T cage): 2,500 W + its modules' worth (17 W per twin-port pair)
    be = c.links[c.links["network"] == "backend"]
    links = np.bincount(np.r_[be["a"], be["b"]], minlength=len(fab.devices))[leaf]
    assert links.max() == 2 * 4 * 32 and q.ports * q.port_gbps // 400 == 288
    kw = c.switch_power_kw[leaf]
    assert kw.max() <= q.power_w_optics / 1000  # was 7.5 kW: 288 links counted against 144 ports
    # at least a twin-port module (17 W) per two optical links (more when media split a pair)
    opt = be[be["media"].isin(["mmf", "smf-dr", "smf-fr"])]
    n_opt = np.bincount(np.r_[opt["a"], opt["b"]], minlength=len(fab.devices))[leaf]
    assert (kw >= (q.power_w_copper + 17.0 * n_opt / 2) / 1000 - 1e-9).all() and n_opt.max() >= 240
    sw = (role != "server") & (fab.devices["model"] == "q3400").to_numpy()
    assert (c.switch_power_kw[sw] <= q.power_w_optics / 1000).all()
    # no cap needed: the modules alone keep every Q3400 within its maximum
    assert (q.power_w_copper + c.module_w[sw] <= q.power_w_optics).all()


def test_the_tray_graph_stays_small(campus: dict[str, tuple[Any, Any, Cabling]]) -> None:
    _, _, c = campus["rail"]
    assert len(c.trays.nodes) < 5_000
    assert (c.trays.rack_edge >= 0).all()
    # three ducts (460 + 270 + 460 m) sharing two 10 m stubs at the B1 and B3 entries
    assert c.trays.tray_m()["duct"] == pytest.approx(460 + 270 + 460 - 10 - 10, abs=0.01)


def test_fill_is_over_every_level_so_over_means_above_the_limit(
    campus: dict[str, tuple[Any, Any, Cabling]],
) -> None:
    """The campus stacks three tray levels: a segment is over-full exactly when its fill (over all
    levels, or a duct's conduit bores) passes the fill limit, and the fullest segment is within it."""
    _, _, c = campus["rail"]
    f = c.edge_fill
    assert (c.trays.edges["levels"] > 1).any()
    assert (f["over"] == (f["fill"] > f["fill_limit"] + 1e-6)).all()
    assert not f["over"].any() and f["fill"].max() > 0.2


def test_every_campus_link_gets_the_cheapest_medium_that_reaches(
    campus: dict[str, tuple[Any, Any, Cabling]],
) -> None:
    inputs, fab, c = campus["rail"]
    media = inputs.catalog.media
    # links whose cages no copper assembly builds take the cheapest optical medium instead (test_ports):
    # the 40 the README names are left out here
    from layout.cable.cages import ASSEMBLIES
    from layout.cable.media import MediaTable
    from layout.cable.stage import port_skeleton

    sk = port_skeleton(fab, inputs.catalog)
    mt = MediaTable.of(inputs.catalog)
    by_length = mt.pick(c.ports.medium_for_m, sk.speed)
    moved = (sk.copper_assembly == ASSEMBLIES.index("split")) & (by_length >= 0) & ~mt.is_optical(by_length)
    keep = (c.links["status"] == "ok").to_numpy() & ~moved
    ok = c.links[keep]
    # the length the medium is chosen for: the link's own, or the longest link it shares cages with
    assert c.ports is not None
    length = c.ports.medium_for_m[keep]
    speed = ok["speed_gbps"].to_numpy()

    def price(mid: str) -> np.ndarray:  # one link of medium mid at its stock length; inf where it cannot
        m = media[mid]
        stock = np.asarray(m.stock_lengths_m, float)
        i = np.searchsorted(stock, length) if len(stock) else np.full(len(length), 0)
        at = np.where(i < len(stock), stock[np.minimum(i, max(len(stock) - 1, 0))] if len(stock) else 0,
                      np.ceil(length / 10) * 10)  # fmt: skip
        can = (length <= m.reach_m) & np.isin(speed, m.speeds_gbps)
        return np.where(can, m.price_usd + m.price_usd_per_m * at, np.inf)

    every = {mid: price(mid) for mid in media}
    code = ok["media"].astype(str).map({m: i for i, m in enumerate(media)}).to_numpy(np.int64)
    chosen = np.stack([every[m] for m in media])[code, np.arange(len(code))]
    assert np.array_equal(chosen, np.min(np.stack(list(every.values())), axis=0))
    # single-mode: DR4 up to 300 m, FR4 beyond (FR4's 600 m stock beats DR4's 400 m and 500 m)
    smf = ok["media"].astype(str).to_numpy()
    assert length[smf == "smf-dr"].max() <= 300.0 < length[smf == "smf-fr"].min()
    # against "the first listed medium that reaches": the campus saves ~$2-3 M (more since the storage
    # servers' and the frontend's long links reach the MDF)
    first = np.full(len(length), np.inf)
    for mid in media:  # catalog order: the first finite price is the old rule's pick
        first = np.where(np.isinf(first), every[mid], first)
    saved = float(first.sum() - chosen.sum())
    assert 1.5e6 < saved < 3.0e6
