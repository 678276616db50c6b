"""The networks beside the backend: storage and CPU nodes, the frontend and storage Clos, and
out-of-band management with its aggregation in the MDF."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from layout.errors import InputError, Problem
from layout.fabric.clos import clos, fewest_tiers, rank_in_runs
from layout.fabric.model import (
    GPUS_PER_LOGIN_NODE,
    MAX_TIERS,
    NETWORK_SWITCH,
    NODE_ROLES,
    OOB_AGGREGATION,
    OOB_SWITCH,
    TIER_ROLES,
    Spec,
)
from layout.fabric.tables import Tables, device_ids
from layout.model import Catalog
from layout.model.catalog import SwitchSpec


@dataclass(frozen=True)
class Segment:
    """Devices of one side network that share leaves (never with another segment): the servers of a
    pod, a pod's storage nodes, the CPU nodes; ``ports`` each, links at ``gbps`` (0: the switch's)."""

    dev: np.ndarray
    ports: int
    pod: int
    gbps: int = 0
    network: str = ""


def side_switch(catalog: Catalog, spec: Spec, name: str) -> str:
    """The switch model of the frontend or storage network: the site's, else Spectrum-X SN5600 when the
    catalog has it, else the cluster's switch."""
    nets = spec.networks
    given = nets.frontend_switch if name == "frontend" else (nets.storage_switch or nets.frontend_switch)
    if given is not None:
        if given not in catalog.switch:
            key = "frontend_switch" if name == "frontend" or nets.storage_switch is None else "storage_switch"
            raise InputError(
                [
                    Problem(
                        spec.source,
                        f"cluster.networks.{key}",
                        f"unknown switch {given!r}",
                        ", ".join(sorted(catalog.switch)),
                    )
                ]
            )
        return given
    return NETWORK_SWITCH if NETWORK_SWITCH in catalog.switch else spec.switch


def add_nodes(
    t: Tables, catalog: Catalog, spec: Spec, srv_pod: np.ndarray, n_srv: int, protocol: str
) -> list[Segment]:
    """Storage servers (sized by read bandwidth per GPU, or the site's count; spread over the pods in
    proportion to their servers) and CPU nodes (head, login, management, UFM on InfiniBand), as devices
    of the storage and frontend networks. None where the network is off or the catalog lacks the node."""
    nets = spec.networks
    out: list[Segment] = []
    problems: list[Problem] = []
    for key, model in (
        ("storage_node", nets.storage_node),
        ("cpu_node", nets.cpu_node),
        ("ufm_node", nets.ufm_node),
    ):
        if model not in catalog.node and key in nets.model_fields_set:
            problems.append(
                Problem(
                    spec.source,
                    f"cluster.networks.{key}",
                    f"unknown node {model!r}",
                    ", ".join(sorted(catalog.node)) or "a [node.ID] of the catalog",
                )
            )
    if problems:
        raise InputError(problems)
    st = catalog.node.get(nets.storage_node)
    if (spec.storage or spec.frontend) and st is not None:
        if nets.storage_nodes is not None:
            n = nets.storage_nodes
        else:
            n = math.ceil(
                spec.gpus
                * nets.storage_gbps_per_gpu
                / (st.throughput_gbps or st.data_ports * st.data_port_gbps)
                - 1e-9
            )
        if n:
            pod = srv_pod[np.arange(n, dtype=np.int64) * n_srv // n]
            rank = rank_in_runs(pod)
            first = t.add_devices(
                device_ids("stor", ("p", pod), ("", rank)),
                "storage_node",
                "storage",
                0,
                nets.storage_node,
                pod,
                index=rank,
            )
            idx = first + np.arange(n, dtype=np.int64)
            for p in np.unique(pod).tolist():
                out.append(Segment(idx[pod == p], st.data_ports, int(p), st.data_port_gbps, "storage"))
    cpu = catalog.node.get(nets.cpu_node)
    if spec.frontend and cpu is not None:
        login = (
            nets.login_nodes
            if nets.login_nodes is not None
            else max(2, math.ceil(spec.gpus / GPUS_PER_LOGIN_NODE))
        )
        ufm = catalog.node.get(nets.ufm_node)
        n_ufm = nets.ufm_nodes if nets.ufm_nodes is not None else (2 if protocol == "infiniband" else 0)
        segs = []
        for tag, count, model in (
            ("head", nets.head_nodes, nets.cpu_node),
            ("login", login, nets.cpu_node),
            ("mgmt", nets.management_nodes, nets.cpu_node),
            ("ufm", n_ufm if ufm is not None else 0, nets.ufm_node),
        ):
            if count:
                num = np.arange(count, dtype=np.int64)
                first = t.add_devices(
                    device_ids(tag, ("", num)),
                    "cpu_node",
                    "frontend",
                    0,
                    model,
                    np.full(count, -1),
                    index=num,
                )
                segs.append(first + num)
        if segs:
            idx = np.concatenate(segs)
            out.append(Segment(idx, cpu.data_ports, -1, cpu.data_port_gbps, "frontend"))
    return out


def side_network(
    t: Tables,
    name: str,
    segs: list[Segment],
    over: float,
    radix: int,
    sw: SwitchSpec,
    model: str,
    spec: Spec,
) -> None:
    """A frontend or storage Clos: every port of a device on one leaf (leaves never span two
    segments: pods, storage nodes, CPU nodes), leaves ``over``:1, non-blocking above, one network."""
    prefix = "fe" if name == "frontend" else "st"
    leaf_cap = math.floor(radix * over / (over + 1) + 1e-9)
    seg_leaves, seg_first, dev_leaf, dev_ports = [], [], [], []
    n_leaf = 0
    for seg in segs:
        per_leaf = max(1, leaf_cap // seg.ports)
        k = -(-len(seg.dev) // per_leaf)
        seg_first.append(n_leaf)
        seg_leaves.append(k)
        dev_leaf.append(n_leaf + np.arange(len(seg.dev), dtype=np.int64) // per_leaf)
        dev_ports.append(np.full(len(seg.dev), seg.ports, dtype=np.int64))
        n_leaf += k
    leaf_pod = np.repeat(np.asarray([seg.pod for seg in segs], dtype=np.int64), seg_leaves)
    all_leaf = np.concatenate(dev_leaf)
    leaf_down = np.bincount(all_leaf, weights=np.concatenate(dev_ports), minlength=n_leaf).astype(np.int64)
    half = radix // 2
    n_dev = sum(len(seg.dev) for seg in segs)

    def leaf_up(down: np.ndarray) -> np.ndarray:
        return np.ceil(down / over - 1e-9).astype(np.int64)

    tiers = fewest_tiers(n_leaf, half, half, radix)
    if tiers > MAX_TIERS:
        raise InputError(
            [
                spec.problem(
                    "switch",
                    f"the {name} network of {n_dev:,} devices needs {tiers} tiers of "
                    f"{model}; at most {MAX_TIERS} are supported",
                    "a switch with more ports",
                )
            ]
        )
    spod = np.zeros(n_leaf, dtype=np.int64)
    net = clos(
        spod,
        leaf_pod,
        leaf_down,
        tiers,
        False,
        radix,
        half,
        radix,
        lambda d: np.zeros(len(d), dtype=np.int64),
        leaf_up=leaf_up if tiers > 1 else None,
    )
    firsts = []
    for tier, layer in enumerate(net.layers, start=1):
        role = f"{prefix}_{TIER_ROLES[tier - 1]}"
        ids = device_ids(f"{prefix}-{TIER_ROLES[tier - 1]}", ("", np.arange(len(layer.up))))
        firsts.append(t.add_devices(ids, role, name, tier, model, layer.pod))
    pod_of = t.pods()
    for seg, leaf in zip(segs, dev_leaf, strict=True):
        a = np.repeat(seg.dev, seg.ports)
        t.add_links(
            a,
            firsts[0] + np.repeat(leaf, seg.ports),
            name,
            name,
            min(seg.gbps or sw.port_gbps, sw.port_gbps),
            pod_of,
        )
    for tier in range(2, len(net.layers) + 1):
        a, b = net.links[tier - 2]
        t.add_links(firsts[tier - 2] + a, firsts[tier - 1] + b, name, name, sw.port_gbps, pod_of)


def oob_network(t: Tables, catalog: Catalog, oob_ports: int, n_srv: int, spec: Spec) -> None:
    """One 48-port management switch per 48 management ports of a pod (those above the pods last)."""
    if OOB_SWITCH not in catalog.switch:
        raise InputError(
            [
                Problem(
                    spec.source,
                    "cluster.networks.oob",
                    f"the catalog has no {OOB_SWITCH!r} switch for out-of-band management",
                    f"add [switch.{OOB_SWITCH}] to the catalog, or oob = false",
                )
            ]
        )
    oob = catalog.switch[OOB_SWITCH]
    pod = t.pods()
    n = len(pod)
    mgmt = np.ones(n, dtype=np.int64)
    mgmt[:n_srv] = oob_ports
    roles = np.concatenate(t.dev["role"])
    models = np.concatenate(t.dev["model"])
    for m in np.unique(models[np.isin(roles, NODE_ROLES)].astype(str)).tolist():
        mgmt[(models == m) & np.isin(roles, NODE_ROLES)] = catalog.node[m].oob_ports
    key = np.where(pod < 0, int(pod.max()) + 1, pod)  # devices above the pods after the last pod
    order = np.argsort(key, kind="stable")
    port_dev = np.repeat(order, mgmt[order])
    port_key = key[port_dev]
    rank = rank_in_runs(port_key)
    per_key = np.bincount(port_key)
    switches = -(-per_key // oob.ports)
    first_sw = np.concatenate(([0], np.cumsum(switches)[:-1]))
    port_sw = first_sw[port_key] + rank // oob.ports
    sw_key = np.repeat(np.arange(len(switches)), switches)
    sw_pod = np.where(sw_key > int(pod.max()), -1, sw_key) if len(sw_key) else sw_key
    first = t.add_devices(
        device_ids("oob", ("p", sw_pod), ("", rank_in_runs(sw_key))),
        "oob",
        "oob",
        1,
        OOB_SWITCH,
        sw_pod,
        index=rank_in_runs(sw_key),
    )
    t.add_links(port_dev, first + port_sw, "oob", "oob", oob.port_gbps, t.pods())
    _oob_uplinks(t, catalog, spec, first, len(sw_key))


def _oob_uplinks(t: Tables, catalog: Catalog, spec: Spec, first: int, n_oob: int) -> None:
    """Each OOB switch's ``oob_uplinks`` to as many aggregation switches in the MDF (uplink j of switch
    i to aggregation ``(i*u + j) mod A``: a switch's uplinks land on different aggregation switches,
    each takes at most its ports)."""
    nets = spec.networks
    model = nets.oob_aggregation or (OOB_AGGREGATION if OOB_AGGREGATION in catalog.switch else None)
    u = nets.oob_uplinks
    if model is None or not u or not n_oob:
        return
    if model not in catalog.switch:
        raise InputError(
            [
                Problem(
                    spec.source,
                    "cluster.networks.oob_aggregation",
                    f"unknown switch {model!r}",
                    ", ".join(sorted(catalog.switch)),
                )
            ]
        )
    agg = catalog.switch[model]
    n_agg = max(u, -(-n_oob * u // agg.ports))
    num = np.arange(n_agg, dtype=np.int64)
    a_first = t.add_devices(
        device_ids("oob-agg", ("", num)), "oob_agg", "oob", 2, model, np.full(n_agg, -1), index=num
    )
    i = np.repeat(np.arange(n_oob, dtype=np.int64), u)
    j = np.tile(np.arange(u, dtype=np.int64), n_oob)
    speed = min(agg.port_gbps, 100)  # SN2201 uplinks: 4 x 100G QSFP28 (NVIDIA SN2201 datasheet)
    t.add_links(first + i, a_first + (i * u + j) % n_agg, "oob_uplink", "oob", speed, t.pods())
