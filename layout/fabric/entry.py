"""Building a fabric: from a site's cluster (`build`) or from options (`size`), the request checked,
then the backend sized and wired, and the side networks added."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from layout.errors import InputError, Problem
from layout.fabric.clos import Net, clos, fewest_tiers, rank_by, rank_in_runs
from layout.fabric.model import (
    CLUSTER_KEYS,
    DEFAULT_LINK_MTBF_YEARS,
    FRONTEND_LEAF_OVERSUBSCRIPTION,
    MAX_TIERS,
    NVL72_WIRINGS,
    STORAGE_LEAF_OVERSUBSCRIPTION,
    TIER_LINKS,
    TIER_ROLES,
    Fabric,
    Spec,
    is_nvl72,
)
from layout.fabric.side import Segment, add_nodes, oob_network, side_network, side_switch
from layout.fabric.tables import Tables, device_ids
from layout.model import Catalog, Cluster
from layout.model.site import Networks


def build(
    cluster: Cluster, catalog: Catalog, servers_per_rack: int | None = None, source: str = "site"
) -> Fabric:
    """The fabric of a site's cluster. ``servers_per_rack`` (from the rack template) sets the
    middle-of-rack leaf groups; without it a leaf takes as many whole servers as fill ``k/2`` ports.
    Oversubscribed pods that cost more switches than one non-blocking fabric are kept when the pods
    may not span buildings (each pod is then what one building holds) and built non-blocking when they
    may; either way the fabric's ``pods_cost_more`` gives both figures."""
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
        nvl72_wiring=cluster.nvl72_wiring,
        keep_pods=not cluster.pod_spans_buildings,
        join_pods=cluster.join_pods,
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
    server: str = "hgx-h100",
    switch: str = "qm9700",
    design: str = "rail",
    pod_gpus: int = 0,
    oversubscription: float = 1.0,
    nic: str = "cx7",
    link_mtbf_years: float | None = None,
    catalog: Catalog | None = None,
    *,
    tiers: int | None = None,
    nvl72_wiring: str | None = None,
    keep_pods: bool = False,
    join_pods: bool = True,
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
    own figure if the catalog has one (Cedar-7: 4 years), else 5 years. ``nvl72_wiring``: NVL72_WIRINGS
    (None: "ra" on InfiniBand, else "packed"). Oversubscribed pods (``pod_gpus``, ``oversubscription``
    > 1) that need more switches than one non-blocking fabric of the same GPUs: that fabric is built
    instead unless ``keep_pods``; ``Fabric.pods_cost_more`` gives both figures."""
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
            nvl72_wiring=nvl72_wiring,
            keep_pods=keep_pods,
            join_pods=join_pods,
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
    p += _check_wiring(spec, catalog)
    p += _check_pods(spec, catalog)
    p += _check_islands(spec)
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


def _check_wiring(spec: Spec, catalog: Catalog) -> list[Problem]:
    """``nvl72_wiring`` is one of NVL72_WIRINGS, and only given where it applies: an NVL72 rack system on
    the rail-optimized design."""
    w = spec.nvl72_wiring
    if w is None:
        return []
    if w not in NVL72_WIRINGS:
        return [spec.problem("nvl72_wiring", f"unknown NVL72 wiring {w!r}", ", ".join(NVL72_WIRINGS))]
    srv = catalog.server.get(spec.server)
    if srv is not None and not is_nvl72(srv):
        nvl72 = (
            ", ".join(sorted(k for k, v in catalog.server.items() if is_nvl72(v))) or "none in the catalog"
        )
        return [
            spec.problem(
                "nvl72_wiring",
                f"applies to NVL72 rack systems only, not to {spec.server}",
                f"leave it out, or a server of {nvl72}",
            )
        ]
    if spec.design == "mor":
        return [
            spec.problem(
                "nvl72_wiring",
                "applies to the rail-optimized design, not to middle-of-rack",
                "leave it out, or design rail",
            )
        ]
    return []


def _check_pods(spec: Spec, catalog: Catalog) -> list[Problem]:
    """An oversubscription applies between pods: refused without them (no pod size, or one pod holding
    the whole cluster), where it used to be ignored."""
    r = spec.oversubscription
    if r == 1.0 or not 1.0 <= r <= 64.0 or spec.gpus <= 0 or spec.pod_gpus < 0 or spec.pod_gpus > spec.gpus:
        return []
    if spec.pod_gpus and spec.pod_gpus < spec.gpus:
        return []
    srv = catalog.server.get(spec.server)
    dom = (srv.nvlink_gpus or srv.gpus) if srv is not None else 1
    example = max(dom, spec.gpus // 2 // dom * dom)
    pod_key, over_key = spec.keys.get("pod_gpus", "pod_gpus"), spec.keys.get("oversubscription", "")
    cli = pod_key.startswith("--")
    give = f"{pod_key} {example}" if cli else f"{pod_key} = {example}"
    one = f"{over_key} 1" if cli else f"{over_key} = 1"
    what = (
        "no pod size is given"
        if not spec.pod_gpus
        else f"a pod of {spec.pod_gpus:,} GPUs holds the whole cluster"
    )
    allowed = (
        f"pods smaller than the {spec.gpus:,} GPUs, e.g. {give}; or {one}" if example < spec.gpus else one
    )
    return [
        spec.problem("pod_gpus", f"an oversubscription of {r:g}:1 applies between pods, and {what}", allowed)
    ]


def _check_islands(spec: Spec) -> list[Problem]:
    """Pods that no backend tier joins (``join_pods`` false, seed 000's hybrid) talk over the frontend
    network: there must be pods, the frontend must be on, and no oversubscription applies."""
    if spec.join_pods:
        return []
    key = spec.keys.get("join_pods", "join_pods")
    out: list[Problem] = []
    if not 0 < spec.pod_gpus < spec.gpus:
        out.append(
            spec.problem(
                key, "pods joined over the frontend need pods smaller than the cluster", "a pod_gpus"
            )
        )
    if not spec.frontend:
        out.append(
            spec.problem(
                key,
                "pods joined over the frontend need the frontend network",
                "cluster.networks.frontend = true",
            )
        )
    if spec.oversubscription != 1.0:
        out.append(
            spec.problem(
                spec.keys.get("oversubscription", "oversubscription"),
                "no backend tier joins the pods (join_pods = false), so no oversubscription applies",
                "1",
            )
        )
    return out


def _wiring(spec: Spec, catalog: Catalog) -> str | None:
    """The NVL72 wiring that applies: the one asked for, else "ra" on InfiniBand (the DGX SuperPOD GB200
    RA's compute fabric is Quantum InfiniBand) and "packed" elsewhere; None for other servers or mor."""
    srv = catalog.server[spec.server]
    if spec.design != "rail" or not is_nvl72(srv):
        return None
    if spec.nvl72_wiring is not None:
        return spec.nvl72_wiring
    return "ra" if catalog.switch[spec.switch].protocol == "infiniband" else "packed"


@dataclass
class _Plane:
    """One plane's backend: the leaf of every server port of the plane and the Clos above the leaves
    (a dual-plane NIC has two such fabrics, alike)."""

    per_pod: int  # servers per pod
    pods: int
    tiers: int
    group_servers: int  # servers of a leaf group: the scalable unit's (rail), a rack or rack pair (mor)
    rails: int  # rails of the plane (ra: NIC positions of a compute tray)
    leaf_of_port: np.ndarray  # (servers, ports of the plane): the leaf of each port
    leaf_pod: np.ndarray
    leaf_su: np.ndarray
    leaf_rail: np.ndarray  # -1 on middle-of-rack
    leaf_rack: np.ndarray  # ra: the leaf's rack (server) inside its SU, else -1
    srv_pod: np.ndarray
    srv_su: np.ndarray
    net: Net

    @property
    def switches(self) -> int:
        return sum(len(layer.up) for layer in self.net.layers)

    @property
    def links(self) -> int:
        return int(self.leaf_of_port.size) + sum(len(a) for a, _ in self.net.links)


def _plane(
    spec: Spec, catalog: Catalog, ports: int, radix: int, per_pod: int, ratio: float, tiers_asked: int | None
) -> _Plane:
    """Leaves and Clos of one plane of ``ports`` links per server, pods of ``per_pod`` servers joined
    ``ratio``:1; InputError when the tiers cannot hold it."""
    srv = catalog.server[spec.server]
    half = radix // 2
    n_srv = spec.gpus // srv.gpus
    pods = -(-n_srv // per_pod)
    joined = pods > 1 and spec.join_pods  # islands (not joined): each pod a fabric of its own
    top_down = radix if not joined else math.floor(radix * ratio / (ratio + 1) + 1e-9)
    wiring = _wiring(spec, catalog)

    def top_up(down: np.ndarray) -> np.ndarray:
        return np.ceil(down / ratio - 1e-9).astype(np.int64)

    s = np.arange(n_srv, dtype=np.int64)
    srv_pod, srv_local = s // per_pod, s % per_pod
    port = np.tile(np.arange(ports, dtype=np.int64), n_srv)
    port_srv = np.repeat(s, ports)
    leaf_slot = None
    if wiring == "ra":
        # DGX SuperPOD GB200 RA, compute fabric: per SU one rail group per NIC position of a compute
        # tray; a group is one leaf per rack (that rack's trays: 18 links down) and its own spines
        positions = srv.ports_per_rail
        group_servers = srv.su_servers or max(1, half // (ports // positions))
        rails = positions
        srv_su = srv_local // group_servers
        per_su = positions * group_servers
        slots_per_pod = -(-per_pod // group_servers) * per_su
        slot = (
            srv_pod[port_srv] * slots_per_pod
            + srv_su[port_srv] * per_su
            + (port % positions) * group_servers
            + srv_local[port_srv] % group_servers
        )
        used, leaf_of_port = np.unique(slot, return_inverse=True)
        local = used % slots_per_pod
        leaf_pod, leaf_su = used // slots_per_pod, local // per_su
        leaf_rail, leaf_rack = local % per_su // group_servers, local % group_servers
        leaf_slot = used
        block_leaves = group_servers
        groups, needed = -(-per_pod // group_servers) * positions, 3
        while groups > top_down:
            groups, needed = -(-groups // half), needed + 1
    else:
        if spec.design == "rail":
            # rails: one per backend link, or the server's own (an NVL72's 72 links over 18 rails of 4,
            # tray position i of every rack on rail i); a leaf group takes whole scalable units of the
            # reference design when one fits on a leaf (32 DGX H100; 8 NVL72 racks), else what fills k/2
            rails = srv.rails or ports
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
                            f"rail, or a switch with at least {2 * rack * ports} ports at "
                            f"{catalog.backend(spec.server, spec.nic)[1]}G",
                        )
                    ]
                )
            group_servers = 2 * rack if 2 * rack * ports <= half else rack
            rails = 1
        srv_su = srv_local // group_servers
        leaves_per_pod = -(-per_pod // group_servers) * rails
        block_leaves = half // rails * rails if rails <= half else half
        needed = fewest_tiers(leaves_per_pod, block_leaves, half, top_down)
        pod_leaf0 = np.arange(pods, dtype=np.int64) * leaves_per_pod  # leaves of a partial last pod follow
        per_rail = ports // rails
        leaf = (
            pod_leaf0[srv_pod[port_srv]] + srv_su[port_srv] * rails + (port // per_rail if rails > 1 else 0)
        )
        # renumber leaves densely (a partial last pod has fewer)
        used, leaf_of_port = np.unique(leaf, return_inverse=True)
        leaf_pod, leaf_in_pod = used // leaves_per_pod, used % leaves_per_pod
        leaf_rail = leaf_in_pod % rails if spec.design == "rail" else np.full(len(used), -1)
        leaf_su = leaf_in_pod // rails
        leaf_rack = np.full(len(used), -1, dtype=np.int64)
    needed += int(joined)
    tiers = tiers_asked or needed
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
        join = " and one more to join the pods" if joined else ""
        raise InputError(
            [
                spec.problem(
                    "switch",
                    f"a pod of {per_pod * srv.gpus:,} GPUs needs {tiers - int(joined)} tiers of "
                    f"{spec.switch} (radix {radix}){join}; at most {MAX_TIERS} are supported",
                    "a switch with more ports (e.g. sn5600, tomahawk5), or smaller pods (--pod-gpus / cluster.pod_gpus)",
                )
            ]
        )
    if joined and pods > radix:
        raise InputError(
            [
                spec.problem(
                    "pod_gpus",
                    f"{pods} pods cannot be joined by one tier of {spec.switch} (radix {radix})",
                    f"pods of at least {-(-n_srv // radix) * srv.gpus} GPUs",
                )
            ]
        )
    leaf_down = np.bincount(leaf_of_port, minlength=len(used))
    net = clos(
        leaf_pod,
        leaf_pod,
        leaf_down,
        tiers - int(joined),
        joined,
        radix,
        block_leaves,
        top_down,
        top_up,
        leaf_slot=leaf_slot,
        divide=wiring == "ra",
    )
    return _Plane(
        per_pod=per_pod,
        pods=pods,
        tiers=tiers,
        group_servers=group_servers,
        rails=rails,
        leaf_of_port=leaf_of_port.reshape(n_srv, ports),
        leaf_pod=leaf_pod,
        leaf_su=leaf_su,
        leaf_rail=leaf_rail,
        leaf_rack=leaf_rack,
        srv_pod=srv_pod,
        srv_su=srv_su,
        net=net,
    )


def _pods_or_not(
    spec: Spec, catalog: Catalog, pods: _Plane, ports: int, radix: int, planes: int
) -> tuple[_Plane, dict[str, Any] | None]:
    """Oversubscribed pods against one non-blocking fabric of the same GPUs: the pods with no note when
    they take fewer switches (or no non-blocking fabric fits the tiers), else both figures and the
    non-blocking fabric (the pods when ``spec.keep_pods``)."""
    n_srv = spec.gpus // catalog.server[spec.server].gpus
    try:
        flat = _plane(spec, catalog, ports, radix, n_srv, 1.0, None)
    except InputError:
        return pods, None
    if flat.switches >= pods.switches:
        return pods, None
    per = catalog.server[spec.server].gpus
    note = {
        "pods": pods.pods,
        "pod_gpus": pods.per_pod * per,
        "oversubscription": float(spec.oversubscription),
        "tiers": pods.tiers,
        "switches": pods.switches * planes,
        "links": pods.links * planes,
        "non_blocking": {
            "tiers": flat.tiers,
            "switches": flat.switches * planes,
            "links": flat.links * planes,
        },
        "built": "pods" if spec.keep_pods else "non_blocking",
    }
    return (pods if spec.keep_pods else flat), note


def _build(spec: Spec, catalog: Catalog) -> Fabric:
    _check(spec, catalog)
    srv = catalog.server[spec.server]
    sw = catalog.switch[spec.switch]
    nic = catalog.nic[spec.nic]
    links_per_server, speed = catalog.backend(spec.server, spec.nic)
    # a dual-plane NIC (an 800G port run as 2 x 400G) gets one fabric per plane, as NVIDIA's NVL72
    # enterprise RA builds them ("each compute networking plane forms a separate fabric"); link l of a
    # server is plane l % planes of its cage l // planes (the twin-port module holds both planes)
    planes = max(1, nic.split)
    ports = links_per_server // planes
    radix = sw.ports * sw.port_gbps // speed
    n_srv = spec.gpus // srv.gpus
    per_pod = spec.pod_gpus // srv.gpus if spec.pod_gpus else n_srv
    ratio = spec.oversubscription
    pl = _plane(spec, catalog, ports, radix, per_pod, ratio, spec.tiers)
    cost_more = None
    if pl.pods > 1 and ratio > 1 and spec.join_pods:
        pl, cost_more = _pods_or_not(spec, catalog, pl, ports, radix, planes)
        if pl.pods == 1:
            ratio = 1.0  # as built: one non-blocking pod
    net, tiers, pods, srv_pod = pl.net, pl.tiers, pl.pods, pl.srv_pod
    wiring = _wiring(spec, catalog)

    t = Tables()
    # server group = the 2-tier block of its first leaf; index = position inside (pod, group)
    leaf_block_local = net.local_block(1)
    srv_group = leaf_block_local[pl.leaf_of_port[:, 0]]
    s = np.arange(n_srv, dtype=np.int64)
    t.add_devices(
        [f"srv-{i:05d}" for i in s.tolist()],
        "server",
        "compute",
        0,
        spec.server,
        srv_pod,
        srv_group,
        pl.srv_su,
        index=rank_in_runs(srv_pod * (n_srv + 1) + srv_group),
    )

    def each_plane(v: np.ndarray) -> np.ndarray:
        return np.tile(np.asarray(v, dtype=np.int64), planes)

    def plane_of(n: int) -> np.ndarray:
        return np.repeat(np.arange(planes, dtype=np.int64), n) if planes > 1 else np.full(n, -1, np.int64)

    n_leaf = len(pl.leaf_pod)
    rail = pl.leaf_rail if spec.design == "rail" else None
    leaf_index = rank_in_runs(pl.leaf_pod * (n_leaf + 1) + leaf_block_local)
    leaf_first = t.add_devices(
        device_ids(
            "be-leaf",
            ("x", plane_of(n_leaf)),
            ("p", each_plane(pl.leaf_pod)),
            ("u", each_plane(pl.leaf_su)),
            ("r", each_plane(pl.leaf_rail)),
            ("s", each_plane(pl.leaf_rack)),
        ),
        "leaf",
        "backend",
        1,
        spec.switch,
        each_plane(pl.leaf_pod),
        each_plane(leaf_block_local),
        each_plane(pl.leaf_su),
        None if rail is None else (np.repeat(np.arange(planes), n_leaf) * pl.rails + each_plane(rail)),
        each_plane(leaf_index),
    )
    firsts = [leaf_first]
    counts = [n_leaf]
    for tier in range(2, tiers + 1):
        layer = net.layers[tier - 1]
        role = TIER_ROLES[tier - 1]
        n = len(layer.up)
        if tier == 2:
            grp = net.local_block(2)
            ids = device_ids(
                f"be-{role}", ("x", plane_of(n)), ("p", each_plane(layer.pod)), ("g", each_plane(grp)),
                ("", each_plane(layer.pos)),
            )  # fmt: skip
            first = t.add_devices(
                ids,
                role,
                "backend",
                tier,
                spec.switch,
                each_plane(layer.pod),
                each_plane(grp),
                index=each_plane(layer.pos),
                planes=each_plane(layer.hi - layer.lo),
            )
        else:
            num = rank_by(layer.pod)
            first = t.add_devices(
                device_ids(
                    f"be-{role}", ("x", plane_of(n)), ("p", each_plane(layer.pod)), ("", each_plane(num))
                ),
                role,
                "backend",
                tier,
                spec.switch,
                each_plane(layer.pod),
                index=each_plane(num),
                planes=each_plane(layer.hi - layer.lo),
            )
        firsts.append(first)
        counts.append(n)
    pod_of = t.pods()
    # server s, link l: plane l % planes, that plane's port l // planes
    lk = np.arange(links_per_server, dtype=np.int64)
    to_leaf = (lk % planes)[None, :] * n_leaf + pl.leaf_of_port[:, lk // planes]
    t.add_links(
        np.repeat(s, links_per_server), leaf_first + to_leaf.ravel(), "gpu_leaf", "backend", speed, pod_of
    )
    for tier in range(2, tiers + 1):
        a, b = net.links[tier - 2]
        off = np.arange(planes, dtype=np.int64)[:, None]
        t.add_links(
            (firsts[tier - 2] + off * counts[tier - 2] + a[None, :]).ravel(),
            (firsts[tier - 1] + off * counts[tier - 1] + b[None, :]).ravel(),
            TIER_LINKS[tier - 1],
            "backend",
            speed,
            pod_of,
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
    per_cage = catalog.backend_per_cage(spec.server, spec.nic)
    node_optics = n_srv * -(-links_per_server // per_cage) if spec.design == "rail" else 0
    su_servers = srv.su_servers or pl.group_servers
    return Fabric(
        gpus=spec.gpus,
        servers=n_srv,
        tiers=tiers,
        pods=pods,
        pod_gpus=pl.per_pod * srv.gpus,
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
        nvl72_wiring=wiring,
        planes=planes,
        pods_cost_more=cost_more,
        pods_joined=spec.join_pods or pods == 1,
    )
