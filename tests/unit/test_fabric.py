"""The fabric generator against the seed figures and NVIDIA's SuperPOD counts (REFERENCE.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_fabric_invariants import SMALL, check_fabric

from layout.fabric import Fabric, build, size
from layout.load import InputError, Inputs, load_catalog, load_site

ROOT = Path(__file__).resolve().parents[2]
CATALOG = load_catalog()


def fabric(gpus: int, **kw: object) -> Fabric:
    return size(gpus, catalog=CATALOG, **kw)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------- tiers
def test_100k_gpus_on_64_port_switches_need_4_tiers() -> None:
    assert fabric(100_000, switch="qm9700").tiers == 4


def test_65536_gpus_fit_in_3_tiers_of_64_ports() -> None:
    assert fabric(65_536, switch="qm9700").tiers == 3
    assert fabric(65_544, switch="qm9700").tiers == 4  # one more DGX H100


def test_65537_ports_do_not_fit_in_3_tiers() -> None:
    """65,537 is not a whole number of DGX H100s: with 1-GPU servers the 65,537th port needs a 4th tier."""
    assert size(65_536, "gpu1", "qm9700", catalog=SMALL).tiers == 3
    assert size(65_537, "gpu1", "qm9700", catalog=SMALL).tiers == 4
    with pytest.raises(InputError, match="not a whole number of hgx-h100 servers"):
        fabric(65_537)


@pytest.mark.parametrize("switch", ["sn5600", "tomahawk5"])
def test_128_port_switches_hold_100k_gpus_in_3_tiers(switch: str) -> None:
    assert fabric(100_000, switch=switch).tiers == 3


def test_tiers_from_the_cluster_must_be_enough() -> None:
    site = load_site(ROOT / "sites" / "superpod-4su.toml")
    three = site.site.cluster.model_copy(update={"tiers": 3})
    assert build(three, site.catalog).tiers == 3
    one = site.site.cluster.model_copy(update={"tiers": 1})
    with pytest.raises(InputError) as e:
        build(one, site.catalog)
    assert str(e.value) == (
        "site: cluster.tiers: 1 tier(s) cannot hold 1,024 GPUs per pod on qm9700 (radix 64) "
        "non-blocking; 2 needed (allowed: >= 2)"
    )


# ------------------------------------------------------------------------------------ node optics
def test_node_optics_rail_cedar7_and_mor() -> None:
    assert fabric(98_304).node_optics == 98_304
    assert fabric(98_304, nic="cedar7").node_optics == 49_152
    assert fabric(98_304, design="mor").node_optics == 0


def test_time_to_first_failure_seed_figures() -> None:
    assert fabric(100_000).summary()["reliability"] == {
        "link_mtbf_years": 5.0,
        "time_to_first_failure_min": 26.28,
    }
    # Cedar-7 brings its own 4-year MTBF per dual-port link unless one is given
    assert fabric(100_000, nic="cedar7").summary()["reliability"] == {
        "link_mtbf_years": 4.0,
        "time_to_first_failure_min": 42.05,
    }
    assert (
        fabric(100_000, nic="cedar7", link_mtbf_years=5.0).summary()["reliability"][
            "time_to_first_failure_min"
        ]
        == 52.56
    )
    assert fabric(98_304, design="mor").summary()["reliability"]["time_to_first_failure_min"] is None


# ------------------------------------------------------------------------------- SuperPOD counts
def test_one_scalable_unit() -> None:
    s = fabric(256).summary()
    assert (s["switches"]["leaf"], s["switches"]["spine"], s["switches"]["core"]) == (8, 4, 0)
    assert (s["links"]["gpu_leaf"], s["links"]["leaf_spine"], s["links"]["spine_core"]) == (256, 256, 0)
    assert s["tiers"] == 2


def test_four_scalable_units() -> None:
    fab = fabric(1024)
    s = fab.summary()
    assert (s["switches"]["leaf"], s["switches"]["spine"]) == (32, 16)
    assert s["links"]["leaf_spine"] == 1024
    # every leaf connects to every spine with the same number of links: 32 uplinks / 16 spines = 2
    ls = fab.links[fab.links["kind"] == "leaf_spine"]
    pairs = ls.groupby(["a", "b"]).size()
    assert len(pairs) == 32 * 16 and set(pairs) == {2}


def test_seed002_pod_on_128_port_switches() -> None:
    fab = fabric(512, switch="sn5600")
    leaves = fab.devices[fab.devices["role"] == "leaf"]
    assert len(leaves) == 8
    down = np.bincount(fab.links.loc[fab.links["kind"] == "gpu_leaf", "b"], minlength=len(fab.devices))
    assert (down[leaves.index] == 64).all()
    assert sorted(leaves["rail"]) == list(range(8))


def test_scalable_units_grow_into_a_third_tier_beyond_8() -> None:
    assert fabric(8 * 256).tiers == 2
    assert fabric(8 * 256 + 8).tiers == 3


# ----------------------------------------------------------------------------------------- tables
def test_device_ids_and_rails() -> None:
    fab = fabric(1024)
    d = fab.devices
    assert d.loc[0, "device_id"] == "srv-00000"
    assert d.loc[128, "device_id"] == "be-leaf-p0-u0-r0" and d.loc[128, "rail"] == 0
    assert d.loc[135, "device_id"] == "be-leaf-p0-u0-r7" and d.loc[135, "rail"] == 7
    # server 33 is in SU 1: its rail 5 goes to leaf be-leaf-p0-u1-r5
    gl = fab.links[(fab.links["kind"] == "gpu_leaf") & (fab.links["a"] == 33)]
    assert d.loc[gl["b"], "device_id"].tolist() == [f"be-leaf-p0-u1-r{r}" for r in range(8)]


def test_mor_rack_pairs_share_a_leaf() -> None:
    """2 DGX per rack = 16 ports < 32: a rack pair (4 servers, 32 ports) shares one leaf."""
    fab = fabric(2048, design="mor", servers_per_rack=2)
    d = fab.devices
    assert (d["role"] == "leaf").sum() == 64
    gl = fab.links[fab.links["kind"] == "gpu_leaf"]
    leaf = gl["b"].to_numpy().reshape(256, 8)
    assert (leaf == leaf[:, :1]).all()
    assert (leaf[0::4, 0] == leaf[3::4, 0]).all() and (leaf[0::4, 0] != leaf[4::4, 0][:1]).any()
    check_fabric(fab, CATALOG, 2)


def test_breakout_ports_count_at_nic_speed() -> None:
    """Quantum-X800: 144 ports of 800G = 288 links of 400G."""
    fab = fabric(1024, switch="q3400")
    assert fab.radix == 288
    assert fab.tiers == 2 and (fab.devices["role"] == "leaf").sum() == 8  # one SU of 144 servers holds 128


def test_summary_has_the_contract_keys() -> None:
    s = fabric(98_304, pod_gpus=24_576, oversubscription=7).summary()
    assert {
        "gpus",
        "servers",
        "tiers",
        "pods",
        "pod_gpus",
        "oversubscription",
        "switches",
        "links",
        "node_optics",
        "reliability",
    } <= set(s)
    assert set(s["switches"]) >= {"leaf", "spine", "core", "total"} and set(s["links"]) >= {
        "gpu_leaf",
        "leaf_spine",
        "spine_core",
        "total",
    }
    assert s["switches"]["total"] == sum(v for k, v in s["switches"].items() if k != "total")
    assert s["links"]["total"] == sum(v for k, v in s["links"].items() if k != "total")
    assert (s["gpus"], s["servers"], s["pods"], s["pod_gpus"], s["oversubscription"]) == (
        98_304,
        12_288,
        4,
        24_576,
        7.0,
    )


def test_tables_are_read_only_and_built_once() -> None:
    fab = fabric(256)
    assert fab.devices is fab.devices
    with pytest.raises(ValueError):
        fab.link_arrays["a"][0] = 5


def test_same_input_same_tables() -> None:
    a, b = (
        fabric(20_000, pod_gpus=5_000, oversubscription=3),
        fabric(20_000, pod_gpus=5_000, oversubscription=3),
    )
    assert a.devices.equals(b.devices) and a.links.equals(b.links)


# ----------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("kw", "message"),
    [
        (
            {"switch": "x"},
            "dclayout fabric: --switch: unknown switch 'x' (allowed: q3400, q3450-ld, qm9700, sn2201, sn2700, sn5600, sn5610, tomahawk5)",
        ),
        (
            {"server": "h200"},
            "dclayout fabric: --server: unknown server 'h200' (allowed: dgx-b200, dgx-b300, dgx-h100, gb200-nvl72, gb300-nvl72, hgx-b200, hgx-b300, hgx-h100)",
        ),
        (
            {"nic": "cx9"},
            "dclayout fabric: --nic: unknown NIC 'cx9' (allowed: bf3, cedar7, cx7, cx8, cx8-2x400)",
        ),
        ({"design": "tor"}, "dclayout fabric: --design: unknown design 'tor' (allowed: rail, mor)"),
        (
            {"gpus": 1001},
            "dclayout fabric: --gpus: 1001 GPUs is not a whole number of hgx-h100 servers (8 GPUs each) "
            "(allowed: a multiple of 8, e.g. 1000 or 1008)",
        ),
        (
            {"pod_gpus": 2048},
            "dclayout fabric: --pod-gpus: pod of 2048 GPUs is larger than the cluster (1024) "
            "(allowed: 0 (one pod) up to 1024)",
        ),
        (
            {"oversubscription": 0.5},
            "dclayout fabric: --oversubscription: oversubscription 0.5 is out of range (allowed: >= 1, <= 64)",
        ),
        (
            {"switch": "sn2201"},
            "dclayout fabric: --switch: sn2201 ports (1 Gb/s) are slower than the hgx-h100 backend ports "
            "(400 Gb/s) (allowed: q3400, q3450-ld, qm9700, sn5600, sn5610, tomahawk5)",
        ),
        (
            {"gpus": 2_097_160},
            "dclayout fabric: --switch: a pod of 2,097,160 GPUs needs 5 tiers of qm9700 (radix 64); "
            "at most 4 are supported (allowed: a switch with more ports (e.g. sn5600, tomahawk5), or "
            "smaller pods (--pod-gpus / cluster.pod_gpus))",
        ),
        (
            {"gpus": 262_144, "pod_gpus": 131_072},
            "dclayout fabric: --switch: a pod of 131,072 GPUs needs 4 tiers of qm9700 "
            "(radix 64) and one more to join the pods; at most 4 are supported (allowed: "
            "a switch with more ports (e.g. sn5600, tomahawk5), or smaller pods "
            "(--pod-gpus / cluster.pod_gpus))",
        ),
        (
            {"gpus": 8 * 65, "pod_gpus": 8},
            "dclayout fabric: --pod-gpus: 65 pods cannot be joined by one tier of qm9700 "
            "(radix 64) (allowed: pods of at least 16 GPUs)",
        ),
    ],
)
def test_bad_input_names_the_option(kw: dict[str, object], message: str) -> None:
    args = {"gpus": 1024, **kw}
    with pytest.raises(InputError) as e:
        size(catalog=CATALOG, **args)  # type: ignore[arg-type]
    assert str(e.value) == message


def test_mor_rack_larger_than_half_the_radix_is_refused() -> None:
    with pytest.raises(
        InputError, match="a rack of 1 gb200-nvl72 has 72 backend ports, more than half of qm9700's radix"
    ):
        size(4608, "gb200-nvl72", "qm9700", "mor", catalog=CATALOG)


# --------------------------------------------------------------------------------- the 100k campus
@pytest.fixture(scope="session")
def campus() -> tuple[Fabric, Inputs]:
    inputs = load_site(ROOT / "sites" / "campus-100k.toml")
    return build(inputs.site.cluster, inputs.catalog, servers_per_rack=4), inputs


def test_campus_is_four_pods_on_four_tiers_at_7_to_1(campus: tuple[Fabric, Inputs]) -> None:
    fab, _ = campus
    s = fab.summary()
    assert (s["gpus"], s["pods"], s["pod_gpus"], s["tiers"], s["oversubscription"]) == (
        98_304,
        4,
        24_576,
        4,
        7.0,
    )
    assert s["node_optics"] == 98_304
    # inside a pod: 96 SUs x 8 leaves, non-blocking: one leaf-spine and one spine-core link per GPU
    assert s["switches"]["leaf"] == 4 * 768 and s["switches"]["spine"] == 4 * 768
    assert s["links"]["leaf_spine"] == s["links"]["spine_core"] == 98_304
    # above the pods: every core takes 48 links down and ceil(48/7) = 7 up
    d, links = fab.devices, fab.links
    cores = d.index[d["role"] == "core"]
    up = np.bincount(links.loc[links["kind"] == "core_super", "a"], minlength=len(d))[cores]
    down = np.bincount(links.loc[links["kind"] == "spine_core", "b"], minlength=len(d))[cores]
    assert set(down) == {48} and set(up) == {7}
    assert s["links"]["core_super"] == 7 * len(cores)
    assert (links.loc[links["kind"] == "core_super", "pod"] == -1).all()
    assert (links.loc[links["kind"].isin(["gpu_leaf", "leaf_spine", "spine_core"]), "pod"] >= 0).all()


def test_campus_passes_the_invariants(campus: tuple[Fabric, Inputs]) -> None:
    fab, inputs = campus
    check_fabric(fab, inputs.catalog, 4)


def test_campus_side_networks(campus: tuple[Fabric, Inputs]) -> None:
    fab, _ = campus
    d, links = fab.devices, fab.links
    s = fab.summary()
    # storage servers: 98,304 GPUs x 4 Gb/s / 400 Gb/s each = 984, 246 per pod; CPU nodes: 2 head,
    # 48 login (one per 2,048 GPUs), 3 management, 2 UFM (InfiniBand backend)
    stor, cpu = (d["role"] == "storage_node").sum(), (d["role"] == "cpu_node").sum()
    assert (stor, cpu) == (984, 55)
    assert (d.loc[d["role"] == "storage_node", "pod"].value_counts() == 246).all()
    # frontend on 128-port SN5600 at 3:1 (96 down, 32 up): 48 DGX x 2 ports per leaf, 64 per pod, and
    # 2 leaves for the 55 CPU nodes x 2 ports (96 + 14 down, 32 + 5 up); 3 tiers, non-blocking above
    assert (d["role"] == "fe_leaf").sum() == 4 * 64 + 2
    up = 256 * 32 + 32 + 5
    assert s["networks"]["frontend"]["links"] == 24_576 + 110 + 2 * up
    # storage 1:1 (64 down): 32 DGX per leaf (96 per pod), 32 storage servers x 2 ports (8 per pod)
    assert (d["role"] == "st_leaf").sum() == 4 * (96 + 8)
    st = links[links["kind"] == "storage"]
    role_a = d["role"].to_numpy()[st["a"]]
    assert (role_a == "server").sum() == 24_576 and (role_a == "storage_node").sum() == 984 * 2
    assert (role_a == "st_leaf").sum() >= 24_576 + 984 * 2  # 1:1 at the leaf (a partial block: a few more)
    assert s["networks"]["storage"]["links"] >= (24_576 + 984 * 2) * 3  # partial blocks round up above
    # oob: one 48-port switch per 48 management ports of a pod (BMCs of servers and nodes, every
    # switch's management port), 2 uplinks each to SN2700 aggregation switches in the MDF
    managed = links.loc[links["kind"] == "oob"]
    switches = ((d["tier"] > 0) & ~d["role"].isin(["oob", "oob_agg"])).sum()
    assert len(managed) == 12_288 + stor + cpu + int(switches)
    per_pod = managed.groupby(d["pod"].to_numpy()[managed["a"]]).size()
    n_oob = int(sum(-(-per_pod // 48)))
    assert int((d["role"] == "oob").sum()) == n_oob
    uplinks = links.loc[links["kind"] == "oob_uplink"]
    n_agg = int((d["role"] == "oob_agg").sum())
    assert len(uplinks) == 2 * n_oob and n_agg == -(-2 * n_oob // 32)
    assert (uplinks.groupby("a").nunique()["b"] == 2).all()  # a switch's two uplinks on two aggregators
    assert np.bincount(uplinks["b"] - uplinks["b"].min()).max() <= 32
    # backend counts stay as in the contract; the side networks only add
    assert s["switches"]["total"] == (d["network"] == "backend").sum()
    assert set(links.loc[links["network"] == "frontend", "kind"]) == {"frontend"}


@pytest.mark.parametrize("sus", [1, 2, 4, 8, 16, 32, 64])
def test_superpod_scalable_units_1_to_64(sus: int) -> None:
    """DGX SuperPOD H100 on QM9700: 8 rail leaves per SU of 32 DGX; up to 8 SU two tiers with one spine
    per 64 GPU ports (4 SU: 32 leaves, 16 spines, REFERENCE.md), beyond a third tier with one spine per
    32 and one core per 64 ports; one link per GPU port at every tier below the top."""
    gpus = sus * 256
    s = fabric(gpus).summary()
    assert s["switches"]["leaf"] == 8 * sus
    if sus <= 8:
        assert (s["tiers"], s["switches"]["spine"], s["switches"]["core"]) == (2, 4 * sus, 0)
        assert s["links"]["leaf_spine"] == gpus
    else:
        assert (s["tiers"], s["switches"]["spine"], s["switches"]["core"]) == (3, 8 * sus, 4 * sus)
        assert s["links"]["leaf_spine"] == s["links"]["spine_core"] == gpus
