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

from layout.design import build_fabric
from layout.load import DEFAULT_TEMPLATES_DIR, load_catalog, load_templates, site_from_data
from layout.media import Cabling, cable
from layout.place import place

ROOT = Path(__file__).resolve().parents[2]
CAMPUS = ROOT / "sites" / "campus-100k.toml"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def campus(design_of: Callable[[str], Any]) -> dict[str, tuple[Any, Any, Cabling]]:
    """The shipped campus (the session's shared design: rail, CX-7) and two variants of its cluster."""
    d = design_of("campus-100k")
    out = {"rail": (d.inputs, d.fabric, cable(d.inputs, d.fabric, d.placement))}
    for name, design, nic in (("mor", "mor", "cx7"), ("cedar7", "rail", "cedar7")):
        data = tomllib.loads(CAMPUS.read_text(encoding="utf-8"))
        data["cluster"]["design"] = design
        data["cluster"]["nic"] = nic
        inputs = site_from_data(data, CAMPUS, load_catalog(), load_templates(), DEFAULT_TEMPLATES_DIR)
        fab = build_fabric(inputs)
        out[name] = (inputs, fab, cable(inputs, fab, place(inputs, fab)))
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
    assert abs(c7.node_optics() / rail.node_optics() - 0.5) < 0.03


def test_switch_power_follows_each_switch_s_optical_ports(
    campus: dict[str, tuple[Any, Any, Cabling]],
) -> None:
    for name in ("rail", "mor"):
        inputs, fab, c = campus[name]
        ends = np.r_[c.links["a"].to_numpy(), c.links["b"].to_numpy()]
        optical = np.r_[c.link_optical, c.link_optical]
        ports = np.bincount(ends[optical], minlength=len(fab.devices))
        assert (c.optical_ports == ports).all()
        models = fab.devices["model"].to_numpy()
        for model in sorted(set(models.tolist()) & set(inputs.catalog.switch)):
            sw = inputs.catalog.switch[model]
            m = models == model
            share = np.minimum(ports[m] / sw.ports, 1.0)
            expected = (sw.power_w_copper + (sw.power_w_optics - sw.power_w_copper) * share) / 1000
            assert np.allclose(c.switch_power_kw[m], expected)
        assert np.isnan(c.switch_power_kw[fab.devices["role"].to_numpy() == "server"]).all()
    # middle-of-rack leaves talk copper to their GPUs: the same switches draw less
    rail_leaf = campus["rail"][2].switch_power_kw[campus["rail"][1].devices["role"].to_numpy() == "leaf"]
    mor_leaf = campus["mor"][2].switch_power_kw[campus["mor"][1].devices["role"].to_numpy() == "leaf"]
    assert float(np.mean(mor_leaf)) < float(np.mean(rail_leaf))


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
