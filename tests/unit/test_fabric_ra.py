"""The fabric against the design points NVIDIA's reference architectures tabulate for the current
generation (pages cited in rack_templates/catalog.toml), and the scalable units of each system."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from layout.fabric import Fabric, size
from layout.fabric.clos import rank_in_runs
from layout.load import InputError, load_catalog

ROOT = Path(__file__).resolve().parents[2]
CATALOG = load_catalog()


# DGX SuperPOD B200 RA, "larger SuperPOD component counts" (QM9700, SU = 32 DGX B200):
# SU count -> (leaf, spine, core); node-leaf, leaf-spine and spine-core cables = GPUs
SUPERPOD_B200 = {
    2: (16, 8, 0),
    4: (32, 16, 0),
    8: (64, 32, 0),
    16: (128, 128, 64),
    32: (256, 256, 128),
    64: (512, 512, 256),
}


@pytest.mark.parametrize("sus", sorted(SUPERPOD_B200))
def test_superpod_b200_table(sus: int) -> None:
    gpus = sus * 32 * 8
    s = size(gpus, "dgx-b200", "qm9700", catalog=CATALOG).summary()
    sw = s["switches"]
    assert (sw["leaf"], sw["spine"], sw["core"]) == SUPERPOD_B200[sus]
    assert s["links"]["gpu_leaf"] == s["links"]["leaf_spine"] == gpus
    assert s["links"]["spine_core"] == (gpus if sus >= 16 else 0)
    assert s["scalable_unit"] == {"gpus": 256, "servers": 32, "racks": 16, "nvlink_gpus": 8}


# DGX SuperPOD B300 XDR RA, table 3 (Quantum-X800 Q3400, SU = 72 DGX B300 = 576 GPUs, 800G per GPU):
# SU count -> (leaf, spine); node-leaf = leaf-spine cables = GPUs. (Its 18-SU row gives 9216 GPUs
# beside 1,296 nodes and 10,368 cables: 1,296 x 8 = 10,368, the GPU figure is a typo on the page.)
SUPERPOD_B300_XDR = {1: (8, 4), 2: (16, 8), 4: (32, 18), 8: (64, 36), 18: (144, 72)}


@pytest.mark.parametrize("sus", sorted(SUPERPOD_B300_XDR))
def test_superpod_b300_xdr_table(sus: int) -> None:
    gpus = sus * 576
    s = size(gpus, "dgx-b300", "q3400", nic="cx8", catalog=CATALOG).summary()
    assert s["tiers"] == 2 and s["radix"] == 144
    assert (s["switches"]["leaf"], s["switches"]["spine"]) == SUPERPOD_B300_XDR[sus]
    assert s["links"]["gpu_leaf"] == s["links"]["leaf_spine"] == gpus
    # four DGX B300 per rack: an SU is 18 racks
    assert s["scalable_unit"] == {"gpus": 576, "servers": 72, "racks": 18, "nvlink_gpus": 8}


def test_nvl72_packed_scalable_unit_is_eight_racks_and_its_rails_are_tray_positions() -> None:
    """DGX SuperPOD GB200 RA: an SU is 8 DGX GB200 racks (576 GPUs). Packed (the named option): rail i is
    compute tray i of every rack: each of an SU's 18 rail leaves takes 4 links (the tray's 4 GPUs) from
    each of its racks."""
    fab = size(576, "gb200-nvl72", "qm9700", nvl72_wiring="packed", catalog=CATALOG)
    s = fab.summary()
    assert s["nvl72_wiring"] == "packed"
    assert s["scalable_unit"] == {"gpus": 576, "servers": 8, "racks": 8, "nvlink_gpus": 72}
    assert s["switches"]["leaf"] == 18  # 576 ports over 32-down QM9700 leaves
    lk = fab.links
    g = lk[lk["kind"] == "gpu_leaf"]
    a, b = g["a"].to_numpy(), g["b"].to_numpy()
    port = np.tile(np.arange(72), 8)
    assert (a == np.repeat(np.arange(8), 72)).all()
    leaf_of = b - b.min()
    assert (leaf_of == port // 4).all()  # tray position = rail
    per = np.bincount(leaf_of * 8 + a, minlength=18 * 8).reshape(18, 8)
    assert (per == 4).all()


def test_gb200_superpod_scales_to_128_racks() -> None:
    """'DGX SuperPOD can scale to ... 128 racks with 9216 GPUs' (SuperPOD GB200 RA): 16 SUs on QM9700,
    the most the RA's three tiers hold: a spine's 24 links up go one to each of the 24 cores of its
    plane, 64 rail groups (16 SUs x 4) down each core. One rack more needs a fourth tier."""
    s = size(9216, "gb200-nvl72", "qm9700", catalog=CATALOG).summary()
    assert s["servers"] == 128 and s["servers"] // s["scalable_unit"]["servers"] == 16
    assert s["tiers"] == 3 and s["switches"]["leaf"] == 16 * 32 and s["links"]["gpu_leaf"] == 9216
    assert size(9288, "gb200-nvl72", "qm9700", catalog=CATALOG).tiers == 4


def test_an_800g_port_as_two_400g_links_doubles_the_links_not_the_cages() -> None:
    one = size(576, "dgx-b300", "q3400", nic="cx8", catalog=CATALOG)
    two = size(576, "dgx-b300", "q3400", nic="cx8-2x400", catalog=CATALOG)
    assert one.summary()["links"]["gpu_leaf"] == 576 and two.summary()["links"]["gpu_leaf"] == 1152
    assert set(two.links.loc[two.links["kind"] == "gpu_leaf", "speed_gbps"]) == {400}
    assert one.node_optics == two.node_optics == 576  # one module per GPU cage either way


def test_an_800g_server_needs_an_800g_switch() -> None:
    with pytest.raises(InputError, match=r"qm9700 ports \(400 Gb/s\) are slower than the dgx-b300"):
        size(576, "dgx-b300", "qm9700", nic="cx8", catalog=CATALOG)
    # SN5600's 64 OSFP cages run 800G links: radix 64 at 800G
    assert size(576, "gb300-nvl72", "sn5600", nic="cx8", catalog=CATALOG).radix == 64


def test_a_pod_never_splits_an_nvlink_domain() -> None:
    with pytest.raises(InputError, match="whole number of gb200-nvl72 servers"):
        size(1152, "gb200-nvl72", "qm9700", pod_gpus=612, catalog=CATALOG)


def test_the_gb200_hall_scalable_unit_is_8_racks() -> None:
    from layout.design import run
    from layout.load import load_site

    s = json.loads(json.dumps(run(load_site(ROOT / "sites" / "gb200-hall.toml")).summary()))
    assert s["scalable_unit"] == {"gpus": 576, "servers": 8, "racks": 8, "nvlink_gpus": 72}
    assert s["gpus"] == 4608 and s["racks"]["by_template"]["gb200-nvl72"] == 64


def test_gb200_hall_keeps_within_the_superpod_budget_of_1_2_mw_per_su() -> None:
    """'Each SU requires a Thermal Design Power of 1.2 MW' (SuperPOD GB200 RA): the GB200 hall's IT,
    networks, storage and CPU nodes included, stays under 1.2 MW per SU of 8 racks."""
    from layout.design import run
    from layout.load import load_site

    s = run(load_site(ROOT / "sites" / "gb200-hall.toml")).summary()
    sus = s["gpus"] // s["scalable_unit"]["gpus"]
    assert sus == 8
    assert 8 * 1.056 < s["power"]["it_mw"] < sus * 1.2  # above the racks' own 8 x 132 kW, below the RA's


@pytest.mark.parametrize(("racks", "gpus"), [(2, 144), (4, 288), (8, 576)])
def test_nvl72_enterprise_design_points(racks: int, gpus: int) -> None:
    """NVL72 AI Factory ERA: 2-, 4- and 8-rack GB300 NVL72 designs (144 / 288 / 576 GPUs), each GPU's
    ConnectX-8 800G port as two 400G planes on Spectrum-X: a leaf per rail (tray position) and plane,
    two tiers, non-blocking (at least as many links up as down, spread evenly over the spines: a few
    more where the links do not divide). The ERA's switch counts are not in the pages cited."""
    fab = size(gpus, "gb300-nvl72", "sn5600", nic="cx8-2x400", catalog=CATALOG)
    s = fab.summary()
    assert s["servers"] == racks and s["tiers"] == 2 and s["radix"] == 128
    assert s["switches"]["leaf"] == 36  # 18 tray rails x 2 planes, within one SU
    assert s["links"]["gpu_leaf"] == 2 * gpus
    built = {b["role"]: b for b in s["built"]}
    assert 2 * gpus <= built["leaf"]["links_up"] <= 2 * gpus * 1.15
    assert s["switches"]["spine"] >= -(-2 * gpus // 128) and built["spine"]["max_ports_used"] <= 128


@pytest.mark.parametrize("nodes", [32, 64, 128])
def test_hgx_enterprise_design_points(nodes: int) -> None:
    """HGX AI Factory ERA (2-8-9-400): 8 GPU NICs at 400G and one north/south NIC with 2 ports per
    node, at the 32, 64 and 128 node design points on Spectrum-X: 8 rails, two tiers, non-blocking,
    the converged north/south network on its own Ethernet switches with the CPU nodes beside."""
    fab = size(nodes * 8, "hgx-b200", "sn5600", frontend=True, catalog=CATALOG)
    s = fab.summary()
    assert s["tiers"] == 2 and s["links"]["gpu_leaf"] == s["links"]["leaf_spine"] == nodes * 8
    assert s["switches"]["leaf"] == 8 * -(-nodes // 64)  # 128 x 400G: 64 nodes per rail leaf
    d = fab.devices
    fe = fab.links[fab.links["kind"] == "frontend"]
    assert (np.bincount(fe["a"], minlength=len(d))[:nodes] == 2).all()  # 2 ports per node
    assert set(d.loc[d["network"] == "frontend", "model"]) >= {"sn5600", "cpu-node"}
    assert "storage_node" in set(d["role"])  # storage rides the converged network (no storage ports)


# ------------------------------------------------------------------------------ NVL72 as the GB200 RA
# DGX SuperPOD GB200 RA [SPOD-GB200], network-fabrics.html, "Compute Fabric" (Figure 9: the compute fabric
# of one SU of 8 DGX GB200 racks, QM9700 NDR 400G): per SU one rail group per NIC position of a compute
# tray (4), each of one leaf per rack (the NICs at that position of the rack's 18 trays: 18 links down, 18
# up) and 6 spines (3 links from each of its 8 leaves: 24 down, 24 up), the groups joined by a core tier.
# The page's table of switch and cable counts per SU count is not in the copy of the page this project
# could read (the stored copy ends at the section's opening), so the counts below are worked by hand from
# that structure; the RA's own limit, "128 racks with 9216 GPUs" (dgx-superpod-architecture.html), is
# where the structure fills its three tiers (test_gb200_superpod_scales_to_128_racks):
#   per SU: 4 x 8 = 32 leaves, 4 x 6 = 24 spines; 576 cables per tier (one per GPU);
#   cores: 576 x S spine links up over 64-port cores: 576 S / 64 = 9 S.
RA_NVL72 = {sus: (32 * sus, 24 * sus, 9 * sus) for sus in (1, 2, 4, 8, 16)}


@pytest.mark.parametrize("sus", sorted(RA_NVL72))
def test_nvl72_ra_switches_and_cables_per_tier(sus: int) -> None:
    s = size(sus * 576, "gb200-nvl72", "qm9700", catalog=CATALOG).summary()
    assert s["nvl72_wiring"] == "ra" and s["tiers"] == 3
    sw = s["switches"]
    assert (sw["leaf"], sw["spine"], sw["core"]) == RA_NVL72[sus]
    assert s["links"]["gpu_leaf"] == s["links"]["leaf_spine"] == s["links"]["spine_core"] == sus * 576
    leaf, spine, core = s["built"]
    assert leaf["links_down"] == leaf["links_up"] == 18 * leaf["switches"]  # 18 down and 18 up each
    assert leaf["max_ports_used"] == 36
    assert (
        spine["links_down"] == spine["links_up"] == 24 * spine["switches"] and spine["max_ports_used"] == 48
    )
    assert core["links_down"] == 64 * core["switches"]  # every core port used


def _gpu_links(fab: Fabric) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(server, port, leaf) of every GPU link, in server port order."""
    lk = fab.link_arrays
    g = np.flatnonzero(lk["kind"] == 0)
    a, b = lk["a"][g], lk["b"][g]
    return a, rank_in_runs(a), b


def test_nvl72_ra_rail_groups_of_one_leaf_per_rack() -> None:
    """Two SUs: every leaf takes the NIC at one position of each of one rack's 18 trays; the 8 leaves of
    one (SU, NIC position) send 3 links to each of their group's 6 spines and to no other spine."""
    fab = size(1152, "gb200-nvl72", "qm9700", catalog=CATALOG)
    d = fab.device_arrays
    srv, port, leaf = _gpu_links(fab)
    assert (port == np.tile(np.arange(72), 16)).all()
    tray, position = port // 4, port % 4
    for lf in np.unique(leaf).tolist():
        mine = leaf == lf
        assert len(set(srv[mine].tolist())) == 1, "one rack per leaf"
        assert len(set(position[mine].tolist())) == 1, "one NIC position per leaf"
        assert sorted(tray[mine].tolist()) == list(range(18)), "each of the rack's 18 trays once"
        assert d["rail"][lf] == position[mine][0]
    assert d["device_id"][leaf[0]] == "be-leaf-p0-u0-r0-s0"
    lk = fab.link_arrays
    up = np.flatnonzero(lk["kind"] == 1)
    a, b = lk["a"][up], lk["b"][up]
    group = d["su"][a] * 4 + d["rail"][a]  # (SU, NIC position) of each lower leaf
    spines = np.unique(b)
    assert len(spines) == 48
    for sp in spines.tolist():
        assert len(set(group[b == sp].tolist())) == 1, "a spine serves one rail group"
    pairs = np.unique(np.stack([a, b]), axis=1, return_counts=True)[1]
    assert (pairs == 3).all() and len(pairs) == 64 * 6  # each leaf: 3 links to each of 6 spines
    # the groups meet at the cores only: every core reaches spines of all 8 groups
    core = np.flatnonzero(lk["kind"] == 2)
    sp_group = np.full(len(d["tier"]), -1)
    sp_group[b] = group
    for c in np.unique(lk["b"][core]).tolist():
        assert len(set(sp_group[lk["a"][core][lk["b"][core] == c]].tolist())) == 8


def test_nvl72_a_leaf_failure_cuts_18_gpus_on_the_ra_and_32_packed() -> None:
    """The issue's count: packed puts the 4 NICs of a tray on one leaf (4 GPUs x 8 racks = 32 GPUs behind
    one leaf); the RA one NIC of 18 trays of one rack (18 GPUs)."""
    for wiring, gpus_per_leaf, racks_per_leaf in (("ra", 18, 1), ("packed", 32, 8)):
        fab = size(576, "gb200-nvl72", "qm9700", nvl72_wiring=wiring, catalog=CATALOG)
        srv, _, leaf = _gpu_links(fab)
        assert np.bincount(leaf)[np.unique(leaf)].max() == gpus_per_leaf
        assert max(len(set(srv[leaf == lf].tolist())) for lf in np.unique(leaf).tolist()) == racks_per_leaf


@pytest.mark.parametrize(
    ("server", "switch", "nic", "wiring"),
    [
        ("gb200-nvl72", "qm9700", "cx7", "ra"),  # InfiniBand: the SuperPOD RA
        ("gb200-nvl72", "sn5600", "cx7", "packed"),  # Spectrum-X: the NVL72 enterprise RA's rails
        ("gb300-nvl72", "q3400", "cx8", "ra"),
        ("dgx-b200", "qm9700", "cx7", None),  # not an NVL72 rack system
    ],
)
def test_nvl72_wiring_default(server: str, switch: str, nic: str, wiring: str | None) -> None:
    gpus = CATALOG.server[server].gpus * 8
    assert size(gpus, server, switch, nic=nic, catalog=CATALOG).nvl72_wiring == wiring


def test_nvl72_wiring_asked_for_on_ethernet() -> None:
    fab = size(1152, "gb200-nvl72", "sn5600", nvl72_wiring="ra", catalog=CATALOG)
    s = fab.summary()
    # 128 x 400G ports: a rail group's 8 leaves x 18 over 3 spines (6 from each leaf: 48 down, 48 up),
    # 1152 spine links up over 128-port cores: 9
    sw = s["switches"]
    assert s["nvl72_wiring"] == "ra" and (sw["leaf"], sw["spine"], sw["core"]) == (64, 24, 9)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        (
            {"server": "dgx-h100", "gpus": 1024, "nvl72_wiring": "ra"},
            "--nvl72-wiring: applies to NVL72 rack systems only, not to dgx-h100 (allowed: leave it out, "
            "or a server of gb200-nvl72, gb300-nvl72)",
        ),
        (
            {
                "server": "gb200-nvl72",
                "gpus": 576,
                "design": "mor",
                "switch": "q3400",
                "nvl72_wiring": "packed",
            },
            "--nvl72-wiring: applies to the rail-optimized design, not to middle-of-rack",
        ),
        (
            {"server": "gb200-nvl72", "gpus": 576, "nvl72_wiring": "tight"},
            "--nvl72-wiring: unknown NVL72 wiring 'tight' (allowed: ra, packed)",
        ),
    ],
)
def test_nvl72_wiring_refused_where_it_does_not_apply(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError) as e:
        size(catalog=CATALOG, **kw)
    assert message in str(e.value)
    assert len(e.value.problems) == 1


MAXFLOW_NVL72 = [
    (576, {}),  # one SU: 32 leaves, 24 spines, 9 cores by slots
    (2304, {}),
    (1944, {}),  # 3 SUs and a partial one of 3 racks
    (72, {}),  # one rack
    (2376, {"pod_gpus": 1152, "oversubscription": 3.0, "keep_pods": True}),  # pods, a partial last SU
    (576, {"nvl72_wiring": "packed"}),
    (2304, {"nvl72_wiring": "packed"}),
    (1944, {"nvl72_wiring": "packed"}),
    (2376, {"nvl72_wiring": "packed", "pod_gpus": 1152, "oversubscription": 3.0, "keep_pods": True}),
]


@pytest.mark.parametrize(("gpus", "kw"), MAXFLOW_NVL72)
def test_nvl72_both_wirings_are_non_blocking(gpus: int, kw: dict[str, Any]) -> None:
    """The project's valley-free max-flow check (test_fabric_maxflow.py): every pair of rail groups, the
    first and last blocks of each tier, single leaves, the partial SU and random halves."""
    from test_fabric_maxflow import check_non_blocking

    fab = size(gpus, "gb200-nvl72", "qm9700", catalog=CATALOG, **kw)
    assert fab.nvl72_wiring == kw.get("nvl72_wiring", "ra")
    check_non_blocking(fab)


def _planes(fab: Fabric) -> np.ndarray:
    """Connected component of each backend switch's fabric (servers left out), -1 elsewhere."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    d, lk = fab.device_arrays, fab.link_arrays
    n = len(d["tier"])
    sw = (d["network"] == "backend") & (d["tier"] > 0)
    keep = (lk["network"] == 0) & sw[lk["a"]] & sw[lk["b"]]
    g = coo_matrix((np.ones(int(keep.sum())), (lk["a"][keep], lk["b"][keep])), shape=(n, n))
    comp = connected_components(g, directed=False)[1]
    _, dense = np.unique(comp[sw], return_inverse=True)
    out = np.full(n, -1)
    out[sw] = dense
    return out


@pytest.mark.parametrize(
    ("switch", "wiring", "per_plane"),
    [
        # 2304 GB300 = 32 racks = 4 SUs; 400G links: q3400 has 288, sn5600 128 ports
        # RA on q3400: 4 SUs x 4 groups x 8 leaves; a group's 8 x 18 on 1 spine (144 down); 2304 / 288 = 8 cores
        ("q3400", "ra", (128, 16, 8)),
        # packed on sn5600: 18 tray-rail leaves per leaf group of 2 SUs (64 down each); 2 tiers, the
        # spines the fewest the top's slot wiring finds with full bisection (the port bound is 18)
        ("sn5600", "packed", (36, 22, 0)),
    ],
)
def test_dual_plane_nics_get_a_fabric_per_plane(
    switch: str, wiring: str, per_plane: tuple[int, int, int]
) -> None:
    """NVL72 enterprise RA [ERA-NVL72], networking-physical-topologies.html, "Multi-Plane Topology
    Approach": "Each compute networking plane forms a separate fabric". A ConnectX-8 run as 2 x 400G: the
    two links of a GPU's twin-port cage go to the two planes, the planes share no switch, and each is the
    same Clos (half the switches and links)."""
    from test_fabric_maxflow import ValleyFree

    fab = size(2304, "gb300-nvl72", switch, nic="cx8-2x400", catalog=CATALOG)
    s = fab.summary()
    assert s["planes"] == 2 and s["nvl72_wiring"] == wiring
    sw = s["switches"]
    assert (sw["leaf"], sw["spine"], sw["core"]) == tuple(2 * x for x in per_plane)
    assert s["links"]["gpu_leaf"] == 2 * 2304
    plane = _planes(fab)
    assert set(plane[plane >= 0].tolist()) == {0, 1}  # two fabrics, no switch in both
    d = fab.device_arrays
    for p in (0, 1):
        roles = d["role"][plane == p]
        assert [int((roles == r).sum()) for r in ("leaf", "spine", "core")] == list(per_plane)
    srv, port, leaf = _gpu_links(fab)
    cage_planes = plane[leaf].reshape(-1, 2)  # links 2g and 2g+1 share GPU g's cage
    assert (cage_planes[:, 0] == 0).all() and (cage_planes[:, 1] == 1).all()
    assert d["device_id"][leaf[0]].startswith("be-leaf-x0-") and d["device_id"][leaf[1]].startswith(
        "be-leaf-x1-"
    )
    # non-blocking inside each plane (valley-free max-flow), nothing between the planes
    vf = ValleyFree(fab)
    rng = np.random.default_rng(0)
    for p in (0, 1):
        mine = vf.leaves[plane[vf.leaves] == p]
        for _ in range(3):
            perm = rng.permutation(mine)
            vf.check(np.sort(perm[: len(perm) // 2]), np.sort(perm[len(perm) // 2 :]), 1.0)
        vf.check(mine[:1], mine[-1:], 1.0)
    assert vf.flow(vf.leaves[plane[vf.leaves] == 0][:4], vf.leaves[plane[vf.leaves] == 1][:4]) == 0
