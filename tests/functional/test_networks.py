"""The networks around the GPUs (issue 15): an Ethernet frontend on its own switch model, storage servers
and CPU nodes that the design buys, racks, powers and cables, and OOB switches with uplinks to an
aggregation in the MDF; sized by cluster.networks."""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from layout.design import run
from layout.load import DEFAULT_TEMPLATES_DIR, InputError, load_catalog, load_templates, site_from_data

ROOT = Path(__file__).resolve().parents[2]
SUPERPOD = ROOT / "sites" / "superpod-4su.toml"


def _design(**networks: Any) -> Any:
    data = tomllib.loads(SUPERPOD.read_text(encoding="utf-8"))
    data["cluster"]["networks"].update(networks)
    return run(site_from_data(data, SUPERPOD, load_catalog(), load_templates(), DEFAULT_TEMPLATES_DIR))


def test_frontend_and_storage_are_ethernet_parts(design_of: Callable[[str], Any]) -> None:
    d = design_of("superpod-4su")
    cat = d.inputs.catalog
    sw = d.bom[d.bom["category"] == "switches"]
    side = sw[sw["item"].str.contains("frontend|storage")]
    assert len(side) and {cat.switch[p].protocol for p in side["part_id"]} == {"ethernet"}
    backend = sw[sw["item"].str.contains("backend")]
    assert {cat.switch[p].protocol for p in backend["part_id"]} == {"infiniband"}


def test_storage_servers_are_bought_racked_powered_and_cabled(design_of: Callable[[str], Any]) -> None:
    d = design_of("superpod-4su")
    dev = d.fabric.devices
    stor = np.flatnonzero(dev["role"].to_numpy() == "storage_node")
    node = d.inputs.catalog.node["storage-node"]
    assert len(stor) == math.ceil(1024 * 4.0 / node.throughput_gbps)  # 4 Gb/s per GPU, 400 Gb/s each
    bom = d.bom[(d.bom["category"] == "nodes") & (d.bom["part_id"] == "storage-node")]
    assert int(bom["qty"].sum()) == len(stor)
    # in storage racks, each within its PDU
    racks = d.placement.device_rack[stor]
    assert set(d.placement.racks["kind"].to_numpy()[racks]) == {"storage"}
    assert np.allclose(d.power.device_kw[stor], node.power_kw + d.cabling.module_w[stor] / 1000)
    rack_kw = d.power.rack_kw[np.unique(racks)]
    assert (rack_kw <= d.inputs.templates["storage-rack"].pdu_kw).all() and rack_kw.sum() >= len(
        stor
    ) * node.power_kw
    # cabled: both data ports to storage leaves, the BMC to an OOB switch, each link routed and priced
    links = d.cabling.links
    role = dev["role"].to_numpy()
    st = links[np.isin(links["a"].to_numpy(), stor) & (links["kind"] == "storage").to_numpy()]
    assert len(st) == 2 * len(stor) and set(role[st["b"]]) == {"st_leaf"}
    assert (st["length_m"] > 0).all() and (st["media"].astype(str) != "").all()
    oob = links[np.isin(links["a"].to_numpy(), stor) & (links["kind"] == "oob").to_numpy()]
    assert len(oob) == len(stor) and set(role[oob["b"]]) == {"oob"}


def test_cpu_nodes_head_login_management_and_ufm(design_of: Callable[[str], Any]) -> None:
    d = design_of("superpod-4su")
    ids = d.fabric.devices.loc[d.fabric.devices["role"] == "cpu_node", "device_id"].astype(str)
    kinds = ids.str.split("-").str[0].value_counts().to_dict()
    assert kinds == {"head": 2, "login": 2, "mgmt": 3, "ufm": 2}  # UFM: the backend is InfiniBand
    racks = d.placement.device_rack[(d.fabric.devices["role"] == "cpu_node").to_numpy()]
    assert set(d.placement.racks["kind"].to_numpy()[racks]) == {"management"}
    items = d.bom.loc[d.bom["category"] == "nodes", "item"].tolist()
    assert any("head node" in i for i in items) and any("UFM" in i for i in items)


def test_oob_switches_have_uplinks_to_the_aggregation(design_of: Callable[[str], Any]) -> None:
    d = design_of("superpod-4su")
    role = d.fabric.devices["role"].to_numpy()
    links = d.cabling.links
    up = links[links["kind"] == "oob_uplink"]
    oob = np.flatnonzero(role == "oob")
    assert len(up) == 2 * len(oob) and set(up["a"]) == set(oob.tolist())
    assert set(role[up["b"]]) == {"oob_agg"}
    assert (up.groupby("a")["b"].nunique() == 2).all()
    # on the SN2201's QSFP28 uplink ports, not its 48 RJ45 ports
    assert d.summary()["ports"]["by_model"]["sn2201"]["uplink"]["used_ports"] == len(up)
    assert d.summary()["ports"]["overflows"] == 0


def test_the_rule_sizes_and_the_booleans_still_switch(tmp_path: Path) -> None:
    d = _design(storage_nodes=3, login_nodes=1, head_nodes=0, management_nodes=0, ufm_nodes=0)
    role = d.fabric.devices["role"].to_numpy()
    assert (role == "storage_node").sum() == 3 and (role == "cpu_node").sum() == 1
    off = _design(storage=False, frontend=False, oob=False)
    assert set(off.fabric.devices["network"]) == {"compute", "backend"}
    more = _design(storage_gbps_per_gpu=8.0)
    assert (more.fabric.devices["role"] == "storage_node").sum() == math.ceil(1024 * 8 / 400)
    with pytest.raises(InputError, match="cluster.networks.frontend_switch: unknown switch 'sn9999'"):
        _design(frontend_switch="sn9999")
