"""Building a fabric: from a site's cluster (`build`) or from options (`size`), the request checked,
then the backend sized and wired, and the side networks added."""

from __future__ import annotations

import math

import numpy as np

from layout.errors import InputError, Problem
from layout.fabric.clos import clos, fewest_tiers, rank_by, rank_in_runs
from layout.fabric.model import (
    CLUSTER_KEYS,
    DEFAULT_LINK_MTBF_YEARS,
    FRONTEND_LEAF_OVERSUBSCRIPTION,
    MAX_TIERS,
    STORAGE_LEAF_OVERSUBSCRIPTION,
    TIER_LINKS,
    TIER_ROLES,
    Fabric,
    Spec,
)
from layout.fabric.side import Segment, add_nodes, oob_network, side_network, side_switch
from layout.fabric.tables import Tables, device_ids
from layout.model import Catalog, Cluster
from layout.model.site import Networks


def build(
    cluster: Cluster, catalog: Catalog, servers_per_rack: int | None = None, source: str = "site"
) -> Fabric:
    """The fabric of a site's cluster. ``servers_per_rack`` (from the rack template) sets the
    middle-of-rack leaf groups; without it a leaf takes as many whole servers as fill ``k/2`` ports."""
    mtbf = cluster.link_mtbf_years if "link_mtbf_years" in cluster.model_fields_set else None
    net = cluster.networks
    return size(
        cluster.gpus,
        cluster.server,
        cluster.switch,
        cluster.design,
        cluster.pod_gpus,
        cluster.oversubscription,
        cluster.nic,
        mtbf,
        catalog,
        tiers=cluster.tiers,
        servers_per_rack=servers_per_rack,
        storage=net.storage,
        frontend=net.frontend,
        oob=net.oob,
        networks=net,
        source=source,
        keys=CLUSTER_KEYS,
    )


def size(
    gpus: int,
    server: str = "dgx-h100",
    switch: str = "qm9700",
    design: str = "rail",
    pod_gpus: int = 0,
    oversubscription: float = 1.0,
    nic: str = "cx7",
    link_mtbf_years: float | None = None,
    catalog: Catalog | None = None,
    *,
    tiers: int | None = None,
    servers_per_rack: int | None = None,
    storage: bool = False,
    frontend: bool = False,
    oob: bool = False,
    networks: Networks | None = None,
    source: str = "dclayout fabric",
    keys: dict[str, str] | None = None,
) -> Fabric:
    """The backend fabric for a GPU count, without a site (`dclayout fabric`); ``storage``, ``frontend``
    and ``oob`` add those networks (:func:`build` passes a site's ``cluster.networks``). Bad values raise
    InputError naming ``source`` and the option (``--switch`` ...). ``link_mtbf_years=None``: the NIC's
    own figure if the catalog has one (Cedar-7: 4 years), else 5 years."""
    if catalog is None:
        from layout.load import load_catalog

        catalog = load_catalog()
    names = keys or {k: f"--{k.replace('_', '-')}" for k in CLUSTER_KEYS}
    return _build(
        Spec(
            gpus=gpus,
            server=server,
            switch=switch,
            design=design,
            pod_gpus=pod_gpus,
            oversubscription=oversubscription,
            nic=nic,
            link_mtbf_years=link_mtbf_years,
            tiers=tiers,
            servers_per_rack=servers_per_rack,
            storage=storage,
            frontend=frontend,
            oob=oob,
            networks=networks or Networks(storage=storage, frontend=frontend, oob=oob),
            source=source,
            keys=names,
        ),
        catalog,
    )


def _check(spec: Spec, catalog: Catalog) -> None:
    p: list[Problem] = []
    for key, table, what in (
        ("server", catalog.server, "server"),
        ("switch", catalog.switch, "switch"),
        ("nic", catalog.nic, "NIC"),
    ):
        value = getattr(spec, key)
        if value not in table:
            p.append(spec.problem(key, f"unknown {what} {value!r}", ", ".join(sorted(table))))
    if spec.design not in ("rail", "mor"):
        p.append(spec.problem("design", f"unknown design {spec.design!r}", "rail, mor"))
    if spec.gpus <= 0:
        p.append(
            spec.problem(
                "gpus", f"need at least one GPU (got {spec.gpus})", "a positive multiple of the server's GPUs"
            )
        )
    if spec.pod_gpus < 0:
        p.append(
            spec.problem(
                "pod_gpus",
                f"negative pod size (got {spec.pod_gpus})",
                "0 (one pod) or a positive multiple of the server's GPUs",
            )
        )
    if not 1.0 <= spec.oversubscription <= 64.0:
        p.append(
            spec.problem(
                "oversubscription",
                f"oversubscription {spec.oversubscription:g} is out of range",
                ">= 1, <= 64",
            )
        )
    if spec.link_mtbf_years is not None and not 0 < spec.link_mtbf_years <= 100:
        p.append(
            spec.problem(
                "link_mtbf_years", f"link MTBF {spec.link_mtbf_years:g} years is out of range", "> 0, <= 100"
            )
        )
    if spec.server in catalog.server and spec.gpus > 0:
        per = catalog.server[spec.server].gpus
        if spec.gpus % per:
            lo, hi = spec.gpus // per * per, (spec.gpus // per + 1) * per
            p.append(
                spec.problem(
                    "gpus",
                    f"{spec.gpus} GPUs is not a whole number of {spec.server} servers ({per} GPUs each)",
                    f"a multiple of {per}, e.g. {lo or hi} or {hi}",
                )
            )
        dom = catalog.server[spec.server].nvlink_gpus or per
        if spec.pod_gpus > 0 and spec.pod_gpus % dom and not spec.pod_gpus % per:
            p.append(
                spec.problem(
                    "pod_gpus",
                    f"a pod of {spec.pod_gpus} GPUs would split an NVLink domain of {dom} GPUs",
                    f"a multiple of {dom}, or 0 for one pod",
                )
            )
        if spec.pod_gpus > 0 and spec.pod_gpus % per:
            p.append(
                spec.problem(
                    "pod_gpus",
                    f"{spec.pod_gpus} GPUs is not a whole number of {spec.server} servers",
                    f"a multiple of {per}, or 0 for one pod",
                )
            )
        elif spec.pod_gpus > spec.gpus:
            p.append(
                spec.problem(
                    "pod_gpus",
                    f"pod of {spec.pod_gpus} GPUs is larger than the cluster ({spec.gpus})",
                    f"0 (one pod) up to {spec.gpus}",
                )
            )
    if spec.server in catalog.server and spec.switch in catalog.switch:
        sw = catalog.switch[spec.switch]
        _, gbps = catalog.backend(spec.server, spec.nic)
        if sw.fastest_gbps < gbps:
            fast = catalog.fabric_switches(spec.server, spec.nic)
            p.append(
                spec.problem(
                    "switch",
                    f"{spec.switch} ports ({sw.fastest_gbps} Gb/s) are slower than the "
                    f"{spec.server} backend ports ({gbps} Gb/s)",
                    ", ".join(fast),
                )
            )
    if p:
        raise InputError(p)


def _build(spec: Spec, catalog: Catalog) -> Fabric:
    _check(spec, catalog)
    srv = catalog.server[spec.server]
    sw = catalog.switch[spec.switch]
    nic = catalog.nic[spec.nic]
    ports, speed = catalog.backend(spec.server, spec.nic)
    radix = sw.ports * sw.port_gbps // speed
    half = radix // 2
    n_srv = spec.gpus // srv.gpus
    per_pod = spec.pod_gpus // srv.gpus if spec.pod_gpus else n_srv
    pods = -(-n_srv // per_pod)
    ratio = spec.oversubscription
    top_down = radix if pods == 1 else math.floor(radix * ratio / (ratio + 1) + 1e-9)

    def top_up(down: np.ndarray) -> np.ndarray:
        return np.ceil(down / ratio - 1e-9).astype(np.int64)

    # leaf groups: servers of a scalable unit (rail) or of a rack / rack pair (mor)
    if spec.design == "rail":
        # rails: one per backend link, or the server's own (an NVL72's 72 links over 18 rails of 4,
        # tray position i of every rack on rail i); a leaf group takes whole scalable units of the
        # reference design when one fits on a leaf (32 DGX H100; 8 NVL72 racks), else what fills k/2
        rails = srv.rails * (ports // srv.backend_ports) if srv.rails else ports
        fill = max(1, half // (ports // rails))
        su = srv.su_servers
        group_servers = su * (fill // su) if su and su <= fill else fill
    else:
        rack = spec.servers_per_rack or max(1, half // ports)
        if rack * ports > half:
            raise InputError(
                [
                    spec.problem(
                        "design",
                        f"middle-of-rack: a rack of {rack} {spec.server} has {rack * ports} backend "
                        f"ports, more than half of {spec.switch}'s radix ({radix})",
                        f"rail, or a switch with at least {2 * rack * ports} ports at {speed}G",
                    )
                ]
            )
        group_servers = 2 * rack if 2 * rack * ports <= half else rack
        rails = 1
    leaves_per_pod = -(-per_pod // group_servers) * rails
    block_leaves = half // rails * rails if rails <= half else half
    needed = fewest_tiers(leaves_per_pod, block_leaves, half, top_down) + int(pods > 1)
    tiers = spec.tiers or needed
    if tiers < needed:
        raise InputError(
            [
                spec.problem(
                    "tiers",
                    f"{tiers} tier(s) cannot hold {per_pod * srv.gpus:,} GPUs per pod on "
                    f"{spec.switch} (radix {radix}) non-blocking; {needed} needed",
                    f">= {needed}",
                )
            ]
        )
    if tiers > MAX_TIERS:
        join = " and one more to join the pods" if pods > 1 else ""
        raise InputError(
            [
                spec.problem(
                    "switch",
                    f"a pod of {per_pod * srv.gpus:,} GPUs needs {tiers - int(pods > 1)} tiers of "
                    f"{spec.switch} (radix {radix}){join}; at most {MAX_TIERS} are supported",
                    "a switch with more ports (e.g. sn5600, tomahawk5), or smaller pods (--pod-gpus / cluster.pod_gpus)",
                )
            ]
        )
    if pods > radix:
        raise InputError(
            [
                spec.problem(
                    "pod_gpus",
                    f"{pods} pods cannot be joined by one tier of {spec.switch} (radix {radix})",
                    f"pods of at least {-(-n_srv // radix) * srv.gpus} GPUs",
                )
            ]
        )
    pod_tiers = tiers - int(pods > 1)

    # servers and their backend ports
    s = np.arange(n_srv, dtype=np.int64)
    srv_pod, srv_local = s // per_pod, s % per_pod
    srv_su = srv_local // group_servers
    pod_leaf0 = np.arange(pods, dtype=np.int64) * leaves_per_pod  # leaves of a partial last pod follow
    port = np.tile(np.arange(ports, dtype=np.int64), n_srv)
    port_srv = np.repeat(s, ports)
    per_rail = ports // rails
    leaf_of_port = (
        pod_leaf0[srv_pod[port_srv]] + srv_su[port_srv] * rails + (port // per_rail if rails > 1 else 0)
    )
    # renumber leaves densely (a partial last pod has fewer)
    used_leaves, leaf_of_port = np.unique(leaf_of_port, return_inverse=True)
    leaf_pod = used_leaves // leaves_per_pod
    leaf_in_pod = used_leaves % leaves_per_pod
    leaf_down = np.bincount(leaf_of_port, minlength=len(used_leaves))

    net = clos(leaf_pod, leaf_pod, leaf_down, pod_tiers, pods > 1, radix, block_leaves, top_down, top_up)

    t = Tables()
    # server group = the 2-tier block of its rail-0 leaf; index = position inside (pod, group)
    leaf_block_local = net.local_block(1)
    srv_group = leaf_block_local[leaf_of_port[::ports]]
    t.add_devices(
        [f"srv-{i:05d}" for i in s.tolist()],
        "server",
        "compute",
        0,
        spec.server,
        srv_pod,
        srv_group,
        srv_su,
        index=rank_in_runs(srv_pod * (n_srv + 1) + srv_group),
    )
    leaf_rail = leaf_in_pod % rails if spec.design == "rail" else np.full(len(leaf_pod), -1)
    leaf_su = leaf_in_pod // rails
    leaf_first = t.add_devices(
        device_ids("be-leaf", ("p", leaf_pod), ("u", leaf_su), ("r", leaf_rail)),
        "leaf",
        "backend",
        1,
        spec.switch,
        leaf_pod,
        leaf_block_local,
        leaf_su,
        leaf_rail,
        rank_in_runs(leaf_pod * (len(leaf_pod) + 1) + leaf_block_local),
    )
    firsts = [leaf_first]
    for tier in range(2, tiers + 1):
        layer = net.layers[tier - 1]
        role = TIER_ROLES[tier - 1]
        if tier == 2:
            grp = net.local_block(2)
            ids = device_ids(f"be-{role}", ("p", layer.pod), ("g", grp), ("", layer.pos))
            firsts.append(
                t.add_devices(
                    ids,
                    role,
                    "backend",
                    tier,
                    spec.switch,
                    layer.pod,
                    grp,
                    index=layer.pos,
                    planes=layer.hi - layer.lo,
                )
            )
        else:
            num = rank_by(layer.pod)
            firsts.append(
                t.add_devices(
                    device_ids(f"be-{role}", ("p", layer.pod), ("", num)),
                    role,
                    "backend",
                    tier,
                    spec.switch,
                    layer.pod,
                    index=num,
                    planes=layer.hi - layer.lo,
                )
            )
    pod_of = t.pods()
    t.add_links(port_srv, leaf_first + leaf_of_port, "gpu_leaf", "backend", speed, pod_of)
    for tier in range(2, tiers + 1):
        a, b = net.links[tier - 2]
        t.add_links(
            firsts[tier - 2] + a, firsts[tier - 1] + b, TIER_LINKS[tier - 1], "backend", speed, pod_of
        )

    nodes = add_nodes(t, catalog, spec, srv_pod, n_srv, sw.protocol)
    st_net = "storage" if spec.storage else "frontend"
    for name, flag, per_server, over in (
        ("frontend", spec.frontend, srv.frontend_ports, FRONTEND_LEAF_OVERSUBSCRIPTION),
        ("storage", spec.storage, srv.storage_ports, STORAGE_LEAF_OVERSUBSCRIPTION),
    ):
        if not flag:
            continue
        side = side_switch(catalog, spec, name)
        segs: list[Segment] = []
        if per_server:
            srv_idx = np.arange(n_srv, dtype=np.int64)
            gbps = srv.frontend_port_gbps if name == "frontend" else srv.storage_port_gbps
            pods_n = int(srv_pod.max()) + 1
            segs += [Segment(srv_idx[srv_pod == p], per_server, p, gbps) for p in range(pods_n)]
        for seg in nodes:
            if seg.network == name or (seg.network == "storage" and name == st_net):
                segs.append(seg)
        if segs:
            side_network(t, name, segs, over, catalog.switch[side].ports, catalog.switch[side], side, spec)
    if spec.oob:
        oob_network(t, catalog, srv.oob_ports, n_srv, spec)

    devices, links = t.arrays()
    if spec.link_mtbf_years is not None:
        mtbf = spec.link_mtbf_years
    else:
        mtbf = nic.link_mtbf_years or DEFAULT_LINK_MTBF_YEARS
    node_optics = n_srv * -(-ports // nic.ports_per_module) if spec.design == "rail" else 0
    su_servers = srv.su_servers or group_servers
    return Fabric(
        gpus=spec.gpus,
        servers=n_srv,
        tiers=tiers,
        pods=pods,
        pod_gpus=per_pod * srv.gpus,
        oversubscription=float(ratio),
        design=spec.design,
        switch=spec.switch,
        server=spec.server,
        nic=spec.nic,
        radix=radix,
        link_mtbf_years=float(mtbf),
        node_optics=int(node_optics),
        su_servers=int(su_servers),
        su_racks=-(-int(su_servers) // srv.servers_per_rack),
        nvlink_gpus=srv.nvlink_gpus or srv.gpus,
        device_arrays=devices,
        link_arrays=links,
    )
