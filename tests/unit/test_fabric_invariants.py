"""Invariants every generated fabric must satisfy, checked over a sweep of sizes, switches and designs.

The checks re-derive the rules from the tables alone (not from the builder's internals): ports within
the radix, every server port wired once, rail i to leaf i of its scalable unit, mor racks on one leaf,
every lower switch spreading its links evenly over the upper switches it reaches (counts differ by at
most one), at least as many links up as down inside a pod and the requested oversubscription above it.
The sweep also checks non-blocking by max-flow (test_fabric_maxflow.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from layout.fabric import Fabric, size
from layout.load import InputError, load_catalog
from layout.model import Catalog, ServerSpec, SwitchSpec

BASE = load_catalog()
ROLES = ["leaf", "spine", "core", "super"]
KINDS = ["gpu_leaf", "leaf_spine", "spine_core", "core_super"]


def small_catalog() -> Catalog:
    """The shipped catalog plus tiny switches and servers, so 3- and 4-tier trees stay small."""
    sw = {
        "name": "test",
        "port_gbps": 400,
        "height_ru": 1,
        "weight_kg": 1,
        "power_w_copper": 1,
        "power_w_optics": 1,
        "price_usd": 0,
    }
    srv = {
        "name": "test",
        "height_ru": 1,
        "depth_mm": 800,
        "weight_kg": 10,
        "power_kw": 1,
        "cooling": "air",
        "backend_port_gbps": 400,
        "frontend_ports": 1,
        "storage_ports": 1,
        "oob_ports": 1,
        "price_usd": 0,
    }
    switches = dict(BASE.switch)
    switches["tiny8"] = SwitchSpec(ports=8, **sw)
    switches["tiny12"] = SwitchSpec(ports=12, **sw)
    switches["tiny6x800"] = SwitchSpec(**{**sw, "ports": 6, "port_gbps": 800})  # 12 lanes of 400G
    servers = dict(BASE.server)
    servers["gpu1"] = ServerSpec(gpus=1, backend_ports=1, **srv)
    servers["gpu4"] = ServerSpec(gpus=4, backend_ports=4, **srv)
    servers["gpu2x3"] = ServerSpec(gpus=2, backend_ports=3, **srv)  # more rails than a tiny8 leaf group
    return BASE.model_copy(update={"switch": switches, "server": servers})


SMALL = small_catalog()


def _down_capacity(fab: Fabric, tier: int) -> int:
    """Links down a switch of ``tier`` may take: the rules of DESIGN (non-blocking pods, R above)."""
    pod_top = fab.tiers - 1 if fab.pods > 1 else fab.tiers
    if tier > pod_top or (tier == pod_top and fab.pods == 1):
        return fab.radix
    if tier == pod_top:
        r = fab.oversubscription
        return math.floor(fab.radix * r / (r + 1) + 1e-9)
    return fab.radix // 2


def check_fabric(fab: Fabric, catalog: Catalog, servers_per_rack: int | None = None) -> None:
    dev, links = fab.devices, fab.links
    srv = catalog.server[fab.server]
    sw = catalog.switch[fab.switch]
    n_srv = fab.gpus // srv.gpus
    assert fab.servers == n_srv
    assert fab.radix == sw.ports * sw.port_gbps // catalog.backend(fab.server, fab.nic)[1]  # at link speed
    assert list(dev.columns) == [
        "device_id",
        "role",
        "network",
        "tier",
        "model",
        "pod",
        "group",
        "su",
        "rail",
        "index",
        "ports_used",
        "planes",
    ]
    assert list(links.columns) == ["a", "b", "kind", "network", "speed_gbps", "pod"]
    assert dev["device_id"].is_unique
    assert (dev["role"].iloc[:n_srv] == "server").all() and (dev["role"].iloc[n_srv:] != "server").all()
    assert links["a"].between(0, len(dev) - 1).all() and links["b"].between(0, len(dev) - 1).all()

    # ports never exceed the radix (backend at NIC speed; frontend/storage at port speed; oob 48)
    be = dev[dev["network"] == "backend"]
    assert len(be) > 0 and (be["ports_used"] <= fab.radix).all()
    side = dev[dev["network"].isin(["frontend", "storage"]) & (dev["tier"] > 0)]
    side_ports = np.array([catalog.switch[str(m)].ports for m in side["model"]])  # their own switch model
    assert (side["ports_used"].to_numpy() <= side_ports).all()
    oob = dev[dev["network"] == "oob"]
    if len(oob):
        assert (oob["ports_used"] <= catalog.switch["sn2201"].ports).all()
        managed = np.bincount(links.loc[links["kind"] == "oob", "a"], minlength=len(dev))
        expect = np.where(dev["role"] == "server", srv.oob_ports, 1)
        expect[oob.index] = 0
        assert (managed == expect).all(), "every management port wired once"

    # link pod: -1 exactly when the two ends are in different pods
    pa, pb = dev["pod"].to_numpy()[links["a"]], dev["pod"].to_numpy()[links["b"]]
    assert (links["pod"].to_numpy() == np.where(pa == pb, pa, -1)).all()

    # every server backend link connected exactly once, to a leaf of its own pod (a dual-plane NIC:
    # link l of a server is plane l % planes of its port l // planes, on that plane's own fabric)
    links_per, _ = catalog.backend(fab.server, fab.nic)
    gl = links[links["kind"] == "gpu_leaf"]
    assert len(gl) == n_srv * links_per
    assert (np.bincount(gl["a"], minlength=n_srv)[:n_srv] == links_per).all()
    assert (dev["role"].to_numpy()[gl["b"]] == "leaf").all()
    assert (pa[gl.index] == pb[gl.index]).all()
    leaf_of_port = gl["b"].to_numpy().reshape(n_srv, links_per)
    servers = dev.iloc[:n_srv]
    port, plane = np.arange(links_per) // fab.planes, np.arange(links_per) % fab.planes
    if fab.design == "rail" and fab.nvl72_wiring == "ra":
        # DGX SuperPOD GB200 RA: NIC position j of a tray -> the leaf of rail group j for the server's rack
        rails = dev["rail"].to_numpy()[leaf_of_port]
        assert (rails == plane * srv.ports_per_rail + port % srv.ports_per_rail).all()
        assert (
            pd.Series(np.repeat(np.arange(n_srv), links_per)).groupby(leaf_of_port.ravel()).nunique().max()
            == 1
        )
    elif fab.design == "rail":  # rail i of a server -> the leaf of rail i in the server's scalable unit
        rails = dev["rail"].to_numpy()[leaf_of_port]
        per_plane = srv.rails or srv.backend_ports
        assert (rails == plane * per_plane + port // srv.ports_per_rail).all()  # NVL72: 4 per tray
    if fab.design == "rail":
        assert (dev["su"].to_numpy()[leaf_of_port] == servers["su"].to_numpy()[:, None]).all()
        assert fab.node_optics == n_srv * math.ceil(links_per / catalog.backend_per_cage(fab.server, fab.nic))
    else:  # middle-of-rack: every port of a rack's servers on that rack's leaf
        assert (leaf_of_port == leaf_of_port[:, :1]).all()
        per_pod = fab.pod_gpus // srv.gpus
        rack = servers["pod"].to_numpy() * per_pod + (np.arange(n_srv) % per_pod) // (servers_per_rack or 1)
        if servers_per_rack:
            assert pd.Series(leaf_of_port[:, 0]).groupby(rack).nunique().max() == 1
        assert fab.node_optics == 0

    # tiers: each switch's links up and down; complete, uniform and minimal groups between tiers
    n = len(dev)
    tier = dev["tier"].to_numpy()
    backend = links[links["network"] == "backend"]
    up = np.bincount(backend["a"], minlength=n)
    down = np.bincount(backend["b"], minlength=n)
    pod_top = fab.tiers - 1 if fab.pods > 1 else fab.tiers
    for t in range(1, fab.tiers + 1):
        ids = np.flatnonzero((dev["role"] == ROLES[t - 1]).to_numpy())
        assert len(ids) > 0 and (tier[ids] == t).all()
        assert (down[ids] <= _down_capacity(fab, t)).all()
        if t < pod_top:
            assert (up[ids] >= down[ids]).all(), "non-blocking inside the pod"
        elif t == pod_top and fab.pods > 1:
            assert (up[ids] * fab.oversubscription >= down[ids] - 1e-9).all(), (
                "oversubscription above the pods"
            )
        else:
            assert (up[ids] == 0).all()
    assert set(dev.loc[dev["network"] == "backend", "role"]) == set(ROLES[: fab.tiers])
    for t in range(2, fab.tiers + 1):
        lk = backend[backend["kind"] == KINDS[t - 1]]
        assert (tier[lk["a"]] == t - 1).all() and (tier[lk["b"]] == t).all()
        pairs = lk.groupby(["a", "b"]).size()
        mult = pairs.groupby(level="a").agg(["min", "max"])
        lower = mult.index.to_numpy()
        # the rule that replaces "the same number to each upper of its group" (partial blocks make that
        # impossible): a switch serving one plane spreads its links evenly, counts differing by at most one
        one = dev["planes"].to_numpy()[lower] == 1
        assert (mult["max"] - mult["min"] <= 1)[one].all(), "a lower switch spreads its links evenly"
        if t - 1 < pod_top:  # non-blocking: at least as many links up as down
            assert (up[lower] >= down[lower]).all()

    # frontend / storage: every server port once
    for net, per_server in (("frontend", srv.frontend_ports), ("storage", srv.storage_ports)):
        nl = links[links["kind"] == net]
        if len(nl):
            at_server = nl[nl["a"] < n_srv]
            assert (np.bincount(at_server["a"], minlength=n_srv) == per_server).all()


def _formula_tiers(ports: int, k: int) -> int:
    """Smallest t with k**t / 2**(t-1) >= ports (non-blocking folded Clos capacity)."""
    t = 1
    while k**t // 2 ** (t - 1) < ports:
        t += 1
    return t


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    server=st.sampled_from(["gpu1", "gpu4", "gpu2x3", "dgx-h100"]),
    switch=st.sampled_from(["tiny8", "tiny12", "tiny6x800", "qm9700"]),
    design=st.sampled_from(["rail", "mor"]),
    n_servers=st.integers(1, 700),
    pods=st.integers(1, 5),
    ratio=st.sampled_from([1.0, 1.5, 3.0, 7.0]),
    rack=st.sampled_from([None, 1, 2]),
)
def test_invariants_over_a_sweep(
    server: str, switch: str, design: str, n_servers: int, pods: int, ratio: float, rack: int | None
) -> None:
    per = SMALL.server[server].gpus
    pod_servers = -(-n_servers // pods)
    try:
        fab = size(
            n_servers * per,
            server,
            switch,
            design,
            pod_gpus=pod_servers * per if pods > 1 else 0,
            oversubscription=ratio if pods > 1 and pod_servers < n_servers else 1.0,  # only between pods
            catalog=SMALL,
            servers_per_rack=rack,
            keep_pods=True,  # the pods as asked, even where one non-blocking fabric takes fewer switches
        )
    except InputError as e:
        text = str(e)
        assert any(w in text for w in ("at most 4 are supported", "cannot be joined", "more than half of")), (
            text
        )
        assume(False)
        return
    check_fabric(fab, SMALL, rack)
    from test_fabric_maxflow import check_non_blocking  # it imports SMALL from here

    # several pods too: the partial scalable units of every pod together to a pod's first leaves
    check_non_blocking(fab, seed=n_servers)


@settings(max_examples=40, deadline=None)
@given(
    switch=st.sampled_from(["tiny8", "tiny12", "tiny6x800", "qm9700", "sn5600", "q3400"]),
    n_servers=st.integers(1, 5000),
    design=st.sampled_from(["rail", "mor"]),
)
def test_tiers_follow_the_clos_capacity(switch: str, n_servers: int, design: str) -> None:
    """One pod of 1-port servers: tiers = smallest t with k^t/2^(t-1) >= ports (a single leaf: 1)."""
    k = SMALL.switch[switch].ports * SMALL.switch[switch].port_gbps // 400
    assume(_formula_tiers(n_servers, k) <= 4)
    fab = size(n_servers, "gpu1", switch, design, catalog=SMALL)
    expected = 1 if n_servers <= k // 2 else max(2, _formula_tiers(n_servers, k))
    assert fab.tiers == expected


@pytest.mark.parametrize(
    ("server", "switch", "gpus", "design", "pod_gpus", "ratio", "rack", "kw"),
    [
        ("dgx-h100", "qm9700", 1024, "rail", 0, 1.0, None, None),
        ("dgx-h100", "qm9700", 20_000, "rail", 0, 1.0, None, None),  # partial last SU, 3 tiers
        ("dgx-h100", "sn5600", 32_000, "rail", 0, 1.0, None, None),  # seed 002
        ("dgx-h100", "qm9700", 4096, "mor", 0, 1.0, 2, None),  # rack pairs
        ("dgx-h100", "qm9700", 6144, "rail", 2048, 3.0, None, None),  # 2-tier pods joined 3:1
        (
            "gb200-nvl72",
            "sn5600",
            4608,
            "rail",
            0,
            1.0,
            None,
            None,
        ),  # packed on Ethernet: 18 rails per server
        ("gb200-nvl72", "qm9700", 2304, "rail", 1152, 2.0, None, {"nvl72_wiring": "packed"}),  # rails > k/2
        ("gb200-nvl72", "qm9700", 4608, "rail", 0, 1.0, None, None),  # the GB200 RA: a leaf per rack and NIC
        ("gb200-nvl72", "qm9700", 2376, "rail", 1152, 3.0, None, {"keep_pods": True}),  # RA pods, partial SU
        ("gb300-nvl72", "sn5600", 2304, "rail", 0, 1.0, None, {"nic": "cx8-2x400"}),  # two planes, packed
        ("gb300-nvl72", "q3400", 2304, "rail", 0, 1.0, None, {"nic": "cx8-2x400"}),  # two planes, RA
        ("dgx-b300", "q3400", 1152, "rail", 0, 1.0, None, {"nic": "cx8-2x400"}),  # two planes of 8 rails
        ("dgx-h100", "q3400", 8192, "rail", 0, 1.0, None, None),  # 800G ports, 2 lanes each
    ],
)
def test_invariants_on_reference_shapes(
    server: str,
    switch: str,
    gpus: int,
    design: str,
    pod_gpus: int,
    ratio: float,
    rack: int | None,
    kw: dict[str, Any] | None,
) -> None:
    fab = size(
        gpus, server, switch, design, pod_gpus, ratio, catalog=BASE, servers_per_rack=rack, **(kw or {})
    )
    check_fabric(fab, BASE, rack)


def test_full_units_link_counts_match_the_formula() -> None:
    """Whole scalable units, one pod: every tier below the top carries one link per GPU port."""
    for gpus, switch, tiers in (
        (2048, "qm9700", 2),
        (16_384, "qm9700", 3),
        (131_072, "qm9700", 4),
        (65_536, "sn5600", 3),
    ):
        s = size(gpus, switch=switch, catalog=BASE).summary()
        assert s["tiers"] == tiers
        kinds = ["gpu_leaf", "leaf_spine", "spine_core", "core_super"][:tiers]
        assert all(s["links"][k] == gpus for k in kinds), s["links"]
        assert s["links"]["total"] == gpus * tiers
        k = BASE.switch[switch].ports
        # leaves: one per k/2 ports; each tier below the top as many switches; the top tier half as many
        assert s["switches"]["leaf"] == gpus // (k // 2)
        below_top = ["leaf", "spine", "core", "super"][: tiers - 1]
        assert all(s["switches"][r] == gpus // (k // 2) for r in below_top)
        assert s["switches"][["leaf", "spine", "core", "super"][tiers - 1]] == gpus // k
