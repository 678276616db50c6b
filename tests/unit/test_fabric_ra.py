"""The fabric against the design points NVIDIA's reference architectures tabulate for the current
generation (pages cited in rack_templates/catalog.toml), and the scalable units of each system."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from layout.fabric import size
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


def test_nvl72_scalable_unit_is_eight_racks_and_its_rails_are_tray_positions() -> None:
    """DGX SuperPOD GB200 RA: an SU is 8 DGX GB200 racks (576 GPUs). Rail i is compute tray i of every
    rack: each of an SU's 18 rail leaves takes 4 links (the tray's 4 GPUs) from each of its racks."""
    fab = size(576, "gb200-nvl72", "qm9700", catalog=CATALOG)
    s = fab.summary()
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
    """'DGX SuperPOD can scale to ... 128 racks with 9216 GPUs' (SuperPOD GB200 RA): 16 SUs on QM9700."""
    s = size(9216, "gb200-nvl72", "qm9700", catalog=CATALOG).summary()
    assert s["servers"] == 128 and s["servers"] // s["scalable_unit"]["servers"] == 16
    assert s["switches"]["leaf"] == 16 * 18 and s["links"]["gpu_leaf"] == 9216


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
