"""The logical network of an AI cluster: servers, switches and links of a folded Clos (fat tree).

Sizing, by the switch radix ``k`` counted at the server's NIC speed (an 800G port that breaks out into
two 400G links counts twice):

- Non-blocking inside a pod: every switch below the pod's top tier takes at most ``k/2`` links down and
  at least as many up (more only in a partial block, where rounding to whole links adds a few). Two tiers hold ``k**2/2`` ports, three ``k**3/4``, four ``k**4/8``.
- Above the pods, the requested oversubscription ``R``: the pod's top tier takes at most
  ``floor(k*R/(R+1))`` links down and ``ceil(down/R)`` up; one more tier joins the pods.
- Buildable wiring: the switches of a tier are made of *blocks* (at tier 2 consecutive leaves, whole
  scalable units when they fit; above, ``k/2`` blocks of the tier below; the pod top takes the pod).
  A block has *planes*: a full 2-tier block has one spine per plane (``k/2``), a full 3-tier block one
  core per (spine plane, core) ... A group is one plane of one block: the switches of that plane in
  each block below. Each lower switch sends ``ceil(share/C)`` links to each of the group's ``C`` upper
  switches, ``C`` the fewest whose ports hold that (a divisor of a full group's count when a tier
  above needs the planes); planes that need one switch share it while it has ports.
- Partial blocks (the last of a pod, most GPU counts): a switch of a partial block serves a range of
  the full block's planes (column ``planes``) and spreads its up links evenly over them, at least one
  into each while it has the ports, so that every leaf reaches every plane above with its bandwidth;
  a lower switch without the ports for ``ceil(share/C)`` to every upper spreads its share instead
  (counts differ by at most one). With several pods, a partial group below the pod top gets as many
  upper switches as a full one wherever its switches have the ports for a link to each (a partial
  block then has one spine per plane, its leaves taking more links up than down): the pods meet above
  their tops position by position, so the partial blocks of every pod must reach every position
  evenly. The top of a single pod may instead be wired by *slots*: the ``U``
  links a full switch takes into plane ``q`` take slots ``q*U..q*U+U-1`` and slot ``i`` goes to top
  switch ``i mod C``; every full block then reaches the top switches with the same links (what full
  bisection between two full blocks requires) with ``C`` not bound to divisors; it is used when it
  takes fewer switches. tests/unit/test_fabric_maxflow.py checks non-blocking by valley-free max-flow.
- ``rail``: a scalable unit (SU) is ``k/2`` servers and one leaf per rail (= server backend port); rail i
  of every server goes to leaf i of its SU. ``mor``: all backend ports of a rack (or of a rack pair when
  two racks together fill no more than ``k/2`` ports) go to that rack's leaf, over copper.

Frontend and storage networks reuse the same sizing on the cluster's switch model (frontend leaves 3:1,
storage leaves 1:1, non-blocking above the leaf, as many tiers as needed); out-of-band management is one
48-port ``sn2201`` per 48 management ports of a pod (server BMCs and every switch's management port).

Everything is built with numpy arrays; nothing is one Python object per link.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from layout.errors import InputError, Problem
from layout.model import Catalog, Cluster
from layout.model.catalog import SwitchSpec
from layout.model.site import Networks
from layout.reliability import time_to_first_failure_min

if TYPE_CHECKING:
    import pandas as pd

TIER_ROLES = ("leaf", "spine", "core", "super")  # backend tiers 1..4
TIER_LINKS = ("gpu_leaf", "leaf_spine", "spine_core", "core_super")  # link from tier t-1 to tier t
MAX_TIERS = len(TIER_ROLES)
FRONTEND_LEAF_OVERSUBSCRIPTION = 3.0  # frontend (business) traffic is light: 3:1 at the leaf
STORAGE_LEAF_OVERSUBSCRIPTION = 1.0  # checkpoints and data loading: non-blocking
OOB_SWITCH = "sn2201"
DEFAULT_LINK_MTBF_YEARS = 5.0  # per NIC-leaf optical link, seed 000

DEVICE_COLUMNS = [
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
    "planes",  # planes of its block the switch serves: 1, or more for a switch of a partial block
]
LINK_COLUMNS = ["a", "b", "kind", "network", "speed_gbps", "pod"]
LINK_KINDS = (*TIER_LINKS, "frontend", "storage", "oob", "oob_uplink")  # categories of links.kind
NODE_ROLES = ("storage_node", "cpu_node")  # devices that are neither GPU servers nor switches
NETWORK_SWITCH = "sn5600"  # frontend / storage switch when the site names none: Spectrum-X Ethernet
OOB_AGGREGATION = "sn2700"  # out-of-band aggregation in the MDF when the site names none
GPUS_PER_LOGIN_NODE = 2048  # unverified rule of thumb: one login node per 2,048 GPUs, at least 2
NETWORKS = ("backend", "frontend", "storage", "oob")  # categories of links.network
CLUSTER_KEYS = {
    "gpus": "cluster.gpus",
    "server": "cluster.server",
    "switch": "cluster.switch",
    "design": "cluster.design",
    "pod_gpus": "cluster.pod_gpus",
    "oversubscription": "cluster.oversubscription",
    "nic": "cluster.nic",
    "link_mtbf_years": "cluster.link_mtbf_years",
    "tiers": "cluster.tiers",
}


@dataclass(frozen=True, eq=False)
class Fabric:
    """The logical network: one row per device and one per physical link (see docs/tables.md).

    ``device_arrays`` / ``link_arrays`` hold the same columns as read-only numpy arrays (``kind`` and
    ``network`` of links as int8 codes into LINK_KINDS / NETWORKS); the DataFrames are made from them
    on first use, so that counting (``summary()``) does not need pandas.
    """

    gpus: int
    servers: int
    tiers: int  # backend tiers, including the one above the pods
    pods: int
    pod_gpus: int
    oversubscription: float
    design: str
    switch: str
    server: str
    nic: str
    radix: int  # switch ports at the NIC speed
    link_mtbf_years: float
    node_optics: int  # optical modules at the server end of GPU-leaf links
    su_servers: int  # the scalable unit: the reference design's (32 DGX H100; 8 NVL72), else a leaf group
    su_racks: int  # its racks in the reference layout (catalog servers_per_rack)
    nvlink_gpus: int  # GPUs of one NVLink domain: never split across SUs or pods
    device_arrays: dict[str, np.ndarray] = field(repr=False)
    link_arrays: dict[str, np.ndarray] = field(repr=False)

    @cached_property
    def devices(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame({c: self.device_arrays[c] for c in DEVICE_COLUMNS})

    @cached_property
    def links(self) -> pd.DataFrame:
        import pandas as pd

        cols: dict[str, Any] = {c: self.link_arrays[c] for c in LINK_COLUMNS}
        cols["kind"] = pd.Categorical.from_codes(cols["kind"], categories=pd.Index(LINK_KINDS))
        cols["network"] = pd.Categorical.from_codes(cols["network"], categories=pd.Index(NETWORKS))
        return pd.DataFrame(cols)

    def time_to_first_failure_min(self) -> float:
        """Mean minutes to the first failure of a node-side optical link (inf without any)."""
        return time_to_first_failure_min(self.link_mtbf_years, self.node_optics)

    def switches_all_networks(self) -> int:
        """Switches of every network: the backend fabric's (summary ``switches``), the frontend's, the
        storage network's and the management network's."""
        return int(is_switch_role(self.device_arrays["role"]).sum())

    def summary(self) -> dict[str, Any]:
        """The JSON object of `dclayout fabric --json` (DESIGN.md); backend counts only (a new copy each
        call, worked out once: the TUI asks again for every edit that keeps the fabric)."""
        return copy.deepcopy(self._summary)

    @cached_property
    def _summary(self) -> dict[str, Any]:
        names, counts = np.unique(self.device_arrays["role"], return_counts=True)
        roles = dict(zip(names.tolist(), counts.tolist(), strict=True))
        kinds = dict(
            zip(
                LINK_KINDS,
                np.bincount(self.link_arrays["kind"], minlength=len(LINK_KINDS)).tolist(),
                strict=True,
            )
        )
        switches = {r: roles.get(r, 0) for r in TIER_ROLES}
        links = {k: kinds[k] for k in TIER_LINKS}
        ttff = self.time_to_first_failure_min()
        nets: dict[str, Any] = {}
        for net in ("frontend", "storage", "oob"):
            if kinds[net]:
                is_switch = (self.device_arrays["network"] == net) & (self.device_arrays["tier"] > 0)
                nets[net] = {"switches": int(is_switch.sum()), "links": kinds[net]}
        return {
            "gpus": self.gpus,
            "servers": self.servers,
            "tiers": self.tiers,
            "pods": self.pods,
            "pod_gpus": self.pod_gpus,
            "oversubscription": float(self.oversubscription) if self.pods > 1 else 1.0,  # as applied
            "switches": {
                "leaf": switches["leaf"],
                "spine": switches["spine"],
                "core": switches["core"],
                "super": switches["super"],
                "total": sum(switches.values()),
            },
            "links": {
                "gpu_leaf": links["gpu_leaf"],
                "leaf_spine": links["leaf_spine"],
                "spine_core": links["spine_core"],
                "core_super": links["core_super"],
                "total": sum(links.values()),
            },
            "node_optics": self.node_optics,
            "reliability": {
                "link_mtbf_years": float(self.link_mtbf_years),
                "time_to_first_failure_min": None if math.isinf(ttff) else round(ttff, 2),
            },
            "scalable_unit": self.scalable_unit(),
            "design": self.design,
            "server": self.server,
            "switch": self.switch,
            "nic": self.nic,
            "radix": self.radix,
            "networks": nets,
            "built": self._built(),
        }

    def scalable_unit(self) -> dict[str, int]:
        """``{gpus, servers, racks, nvlink_gpus}`` of the repeated block (DESIGN.md)."""
        per = self.gpus // self.servers if self.servers else 0
        return {
            "gpus": self.su_servers * per,
            "servers": self.su_servers,
            "racks": self.su_racks,
            "nvlink_gpus": self.nvlink_gpus,
        }

    def _built(self) -> list[dict[str, Any]]:
        """Per backend tier: what was built, to check against the rules (ports within the radix, at
        least as many links up as down inside a pod, the oversubscription above it)."""
        d, lk = self.device_arrays, self.link_arrays
        n = len(d["tier"])
        be = lk["network"] == NETWORKS.index("backend")
        down = np.bincount(lk["b"][be], minlength=n)
        up = np.bincount(lk["a"][be], minlength=n)
        is_be = d["network"] == "backend"
        out = []
        for tier in range(1, self.tiers + 1):
            ids = np.flatnonzero(is_be & (d["tier"] == tier))
            dn, u = down[ids], up[ids]
            out.append(
                {
                    "tier": tier,
                    "role": TIER_ROLES[tier - 1],
                    "switches": len(ids),
                    "links_down": int(dn.sum()),
                    "links_up": int(u.sum()),
                    "max_ports_used": int((dn + u).max()),
                    "partial": int((d["planes"][ids] > 1).sum()),  # switches standing in for several
                }
            )
        return out


def is_switch_role(role: np.ndarray) -> np.ndarray:
    """True where a device role is a switch (not a GPU server, storage or CPU node)."""
    return ~np.isin(np.asarray(role).astype(str), ["server", *NODE_ROLES])


# ----------------------------------------------------------------------------------------------- entry
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
        _Spec(
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


# ------------------------------------------------------------------------------------------ validation
@dataclass(frozen=True)
class _Spec:
    gpus: int
    server: str
    switch: str
    design: str
    pod_gpus: int
    oversubscription: float
    nic: str
    link_mtbf_years: float | None
    tiers: int | None
    servers_per_rack: int | None
    storage: bool
    frontend: bool
    oob: bool
    networks: Networks
    source: str
    keys: dict[str, str]

    def problem(self, key: str, problem: str, allowed: str = "") -> Problem:
        return Problem(self.source, self.keys.get(key, key), problem, allowed)


def _check(spec: _Spec, catalog: Catalog) -> None:
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


# ------------------------------------------------------------------------------------------ the build
@dataclass
class _Layer:
    """The switches of one tier (local numbers 0..n-1) as seen by the tier above."""

    block: np.ndarray  # block (group at this tier) of each switch, numbered across the network
    pos: np.ndarray  # position inside its block
    up: np.ndarray  # links it takes up
    pod: np.ndarray  # pod label, -1 above the pods
    spod: np.ndarray  # structural pod: blocks never mix two of them until the tier that joins them
    down: np.ndarray  # links it takes down
    lo: np.ndarray  # planes it serves: [lo, hi) of its tier (a switch of a full block serves one)
    hi: np.ndarray


@dataclass
class _Net:
    """Devices and links of one network, with local device numbers per tier."""

    layers: list[_Layer] = field(default_factory=list)
    links: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)  # per tier t>=2: (lower, upper)
    parent: list[np.ndarray] = field(default_factory=list)  # per tier t>=2: block of each tier t-1 switch

    def local_block(self, tier: int) -> np.ndarray:
        """Per switch of tier 1 or 2: the number, inside its pod, of its 2-tier block (its group)."""
        if len(self.layers) < 2:
            return np.zeros(len(self.layers[0].up), dtype=np.int64)
        blocks = self.parent[0] if tier == 1 else self.layers[1].block
        spods = self.layers[0].spod if tier == 1 else self.layers[1].spod
        first = np.full(int(spods.max()) + 1, np.iinfo(np.int64).max)
        np.minimum.at(first, spods, blocks)
        return blocks - first[spods]


def _fewest_uppers(share: np.ndarray, spare: np.ndarray, down_max: int) -> int:
    """Fewest uppers ``C`` for a group whose lower switches send ``share`` links each: ``ceil(share/C)``
    to every upper must fit the uppers' ``down_max`` ports and each lower's ``spare`` ports (so a
    switch with as many links up as down takes a divisor of its share)."""
    top = int(share.max())
    for c in range(1, top + 1):
        each = -(-share // c)
        if int(each.sum()) <= down_max and bool((each * c <= spare).all()):
            return c
    return next(d for d in range(1, top + 1) if top % d == 0 and int((-(-share // d)).sum()) <= down_max)


def _plane_shares(lower: _Layer, radix: int, every: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(switch, plane, links) for every plane a switch of ``lower`` serves: its up links spread evenly
    over its planes (counts differing by at most one); with ``every``, at least one into each while it
    has the ports (below the top, so that it reaches every plane of every tier above)."""
    w = lower.hi - lower.lo
    sw = np.repeat(np.arange(len(w), dtype=np.int64), w)
    t = _rank_in_runs(sw)
    up, w_m = lower.up[sw], w[sw]
    e = (t + 1) * up // w_m - t * up // w_m
    if every:
        more = (lower.down + np.maximum(lower.up, w) <= radix) & (lower.up < w)
        e = np.where(more[sw], np.maximum(e, 1), e)
    keep = e > 0
    return sw[keep], (lower.lo[sw] + t)[keep], e[keep]


def _tier_up(
    lower: _Layer,
    new_block_of_lower: np.ndarray,
    down_max: int,
    radix: int,
    planes_above: bool,
    count_only: bool = False,
    full_fan: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | int:
    """Wire ``lower`` to a new tier. Returns (link lower, link upper, upper block, upper position,
    upper plane range lo, hi), or with ``count_only`` the number of uppers.

    A group is one plane (position ``q``) of one new block: the lower switches of that block whose plane
    range covers ``q``. A lower switch serving ``w`` planes (a switch of a partial block, standing in for
    ``w`` switches of a full one) spreads its up links evenly over them, at least one into each while it
    has the ports. The group gets the fewest uppers ``C`` whose down ports hold ``ceil(share/C)`` from
    every lower switch (and whose lower switches have the ports for it; a divisor of the full group's
    count when a tier above needs the planes); a lower switch lacking the ports spreads its share, counts
    differing by at most one (the extra links to the first uppers). Upper ``j`` of plane ``q`` serves planes
    ``[q*F + j*F//C, q*F + (j+1)*F//C)`` of the new tier, ``F`` being the most uppers any plane got."""
    n = len(lower.up)
    w = lower.hi - lower.lo
    m_sw, m_q, m_e = _plane_shares(lower, radix, every=True)
    m_nb = new_block_of_lower[m_sw]
    order = np.lexsort((lower.block[m_sw], m_q, m_nb))
    key_nb, key_q = m_nb[order], m_q[order]
    cut = np.flatnonzero((np.diff(key_nb) != 0) | (np.diff(key_q) != 0)) + 1
    starts = np.concatenate(([0], cut)).astype(np.int64)
    ends = np.concatenate((cut, [len(order)])).astype(np.int64)
    n_grp = len(starts)
    g_c = np.empty(n_grp, dtype=np.int64)  # uppers of each group
    g_base = np.empty(n_grp, dtype=np.int64)  # first upper of each group
    up_block: list[int] = []
    up_count: list[int] = []
    up_first_q: list[int] = []  # plane of the first group an upper serves
    up_last_q: list[int] = []  # plane of the last (shared single uppers serve several)
    cache: dict[bytes, int] = {}
    next_upper = 0
    shared: tuple[int, int, int] | None = None  # (block, ports used, upper) of a single-switch group
    e_sorted = m_e[order]
    spare_sorted = np.where(w[m_sw] == 1, radix - lower.down[m_sw], radix)[order]  # ports for links up
    groups = list(zip(starts.tolist(), ends.tolist(), strict=True))
    for g, (s, e) in enumerate(groups):
        u = e_sorted[s:e]
        spare = spare_sorted[s:e]
        sig = u.tobytes() + spare.tobytes()
        c = cache.get(sig)
        if c is None:
            c = _fewest_uppers(u, spare, down_max)
            cache[sig] = c
        g_c[g] = c
    if full_fan and n_grp:
        # several pods: a partial group gets as many uppers as a full one where its lower switches have
        # the ports for ceil(share/C) to each, so that each upper position (column) of every pod sees
        # the same links from the partial block as from a full one: the pods' tiers above are wired
        # column by column, and a partial block whose links pile onto the first uppers would leave the
        # partial blocks of the other pods only those columns into this pod
        fan = int(g_c.max())
        for g, (s, e) in enumerate(groups):
            if g_c[g] < fan:
                each = -(-e_sorted[s:e] // fan)
                if int(each.sum()) <= down_max and bool((each * fan <= spare_sorted[s:e]).all()):
                    g_c[g] = fan
    if planes_above and n_grp:
        # a partial group's uppers split the planes of a full one evenly: a divisor of its count
        fan = int(g_c.max())
        divs = np.array([d for d in range(1, fan + 1) if fan % d == 0])
        g_c = divs[np.searchsorted(divs, g_c)]
    for g, (s, e) in enumerate(groups):
        c = int(g_c[g])
        nb = int(key_nb[s])
        q = int(key_q[s])
        ports = int(e_sorted[s:e].sum())
        if c == 1 and shared is not None and shared[0] == nb and shared[1] + ports <= down_max:
            upper = shared[2]
            shared = (nb, shared[1] + ports, upper)
            up_last_q[-1] = q
        else:
            upper = next_upper
            next_upper += c
            up_block.append(nb)
            up_count.append(c)
            up_first_q.append(q)
            up_last_q.append(q)
            shared = (nb, ports, upper) if c == 1 else None
        g_base[g] = upper
    if count_only:
        return next_upper
    grp_of = np.empty(len(order), dtype=np.int64)
    grp_of[order] = np.repeat(np.arange(n_grp), ends - starts)
    c_m = g_c[grp_of]
    # equal links to every upper of the group (ceil), unless the lower switch lacks the ports: then spread
    equal_need = np.bincount(m_sw, weights=c_m * -(-m_e // c_m), minlength=n).astype(np.int64)
    down_of = lower.down
    spread = (down_of + equal_need > radix)[m_sw]
    # links of each membership to each of its group's uppers
    r_m = np.repeat(np.arange(len(m_sw)), c_m)
    j = _rank_in_runs(r_m)
    e_r = m_e[r_m]
    c_r = c_m[r_m]
    cnt = np.where(spread[r_m], e_r // c_r + (j < e_r % c_r), -(-e_r // c_r))
    upper_r = g_base[grp_of[r_m]] + j
    lower_r = m_sw[r_m]
    srt = np.lexsort((upper_r, lower_r))
    a = np.repeat(lower_r[srt], cnt[srt])
    b = np.repeat(upper_r[srt], cnt[srt])
    blocks = np.repeat(np.asarray(up_block, dtype=np.int64), up_count)
    pos = np.arange(len(blocks)) - np.repeat(_first_index(blocks), _run_lengths(blocks))
    # plane ranges of the uppers at the new tier
    fan = max(up_count) if up_count else 1
    cnt_u = np.repeat(np.asarray(up_count, dtype=np.int64), up_count)
    jj = _rank_in_runs(np.repeat(np.arange(len(up_count)), up_count))
    fq = np.repeat(np.asarray(up_first_q, dtype=np.int64), up_count)
    lq = np.repeat(np.asarray(up_last_q, dtype=np.int64), up_count)
    lo = fq * fan + jj * fan // cnt_u
    hi = np.where(lq > fq, (lq + 1) * fan, fq * fan + (jj + 1) * fan // cnt_u)
    return a, b, blocks, pos, lo, hi


def _top_slots(
    lower: _Layer, down_max: int, radix: int, fewer_than: int
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The top tier as one group: the ``U`` links a full switch takes into plane ``q`` take slots
    ``q*U .. q*U+U-1`` and slot ``i`` goes to top switch ``i mod C``, so every full switch of plane ``q``
    in every block reaches the same top switches with the same links. A switch with ``e < U`` links
    into the plane sends ``ceil(f*e/U)`` where a full one sends ``f`` (so any set of them gets its share
    of every top switch), or, when it lacks the ports for that, spreads its ``e`` links evenly over the
    plane's slots. ``C`` is the fewest whose down ports hold what lands on them; None when that is not
    fewer than ``fewer_than`` (the per-plane wiring then stays)."""
    n = len(lower.up)
    sw, q, e = _plane_shares(lower, radix, every=False)
    if len(e) == 0:
        return None
    unit = int(e.max())
    full = e == unit
    f_link = np.repeat(np.flatnonzero(full), unit)
    f_slot = q[f_link] * unit + _rank_in_runs(f_link)
    f_a = sw[f_link]
    thin = np.flatnonzero(~full)
    down = lower.down

    def wire(c: int) -> tuple[np.ndarray, np.ndarray] | None:
        parts_a, parts_b = [f_a], [f_slot % c]
        if len(thin):
            # a full switch of plane q sends f = U//c (+1 for the first U%c) to top switches
            # (q*U + i) mod c, i < min(U, c); a thin one ceil(f*e/U) to each
            m = min(unit, c)
            mem = np.repeat(thin, m)
            i = np.tile(np.arange(m, dtype=np.int64), len(thin))
            top = (q[mem] * unit + i) % c
            cnt = -(-(unit // c + (i < unit % c)) * e[mem] // unit)
            need = np.bincount(sw[mem], weights=cnt, minlength=n).astype(np.int64)
            lacks = down + need > radix
            ok = ~lacks[sw[mem]]
            parts_a.append(np.repeat(sw[mem[ok]], cnt[ok]))
            parts_b.append(np.repeat(top[ok], cnt[ok]))
            # lacking the ports: its e links over the plane's U slots, evenly
            few = thin[lacks[sw[thin]]]
            s_link = np.repeat(few, e[few])
            s_slot = q[s_link] * unit + _rank_in_runs(s_link) * unit // e[s_link]
            parts_a.append(sw[s_link])
            parts_b.append(s_slot % c)
        a, b = np.concatenate(parts_a), np.concatenate(parts_b)
        if int(np.bincount(b, minlength=c).max()) > down_max:
            return None
        return a, b

    # the fewest C that fits: gallop up from the port bound, then halve back (feasibility grows with C)
    lo = max(1, -(-int(e.sum()) // down_max)) - 1  # known not to fit (or 0)
    step, hi, best = 1, lo + 1, None
    while hi < fewer_than:
        best = wire(hi)
        if best is not None:
            break
        lo, hi, step = hi, hi + step, step * 2
    if best is None:
        hi = fewer_than - 1
        if hi <= lo or (best := wire(hi)) is None:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        got = wire(mid)
        if got is None:
            lo = mid
        else:
            hi, best = mid, got
    a, b = best
    srt = np.lexsort((b, a))
    return a[srt], b[srt], hi


def _first_index(sorted_keys: np.ndarray) -> np.ndarray:
    if len(sorted_keys) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))


def _run_lengths(sorted_keys: np.ndarray) -> np.ndarray:
    starts = _first_index(sorted_keys)
    return np.diff(np.concatenate((starts, [len(sorted_keys)])))


def _group_blocks(layer: _Layer, size: int | None, join_pods: bool) -> np.ndarray:
    """New block of each switch of ``layer``: ``size`` consecutive blocks of the same structural pod,
    all blocks of a structural pod (``size`` None), or everything (``join_pods``)."""
    if join_pods:
        return np.zeros(len(layer.block), dtype=np.int64)
    first_block_of_spod = np.full(int(layer.spod.max()) + 1, np.iinfo(np.int64).max)
    np.minimum.at(first_block_of_spod, layer.spod, layer.block)
    local = layer.block - first_block_of_spod[layer.spod]
    sub = local // size if size else np.zeros_like(local)
    key = layer.spod * (int(sub.max()) + 1) + sub
    _, dense = np.unique(key, return_inverse=True)
    return dense.astype(np.int64)


def _common_pod(a: np.ndarray, b: np.ndarray, pod_a: np.ndarray, n_upper: int) -> np.ndarray:
    lo = np.full(n_upper, np.iinfo(np.int64).max)
    hi = np.full(n_upper, np.iinfo(np.int64).min)
    np.minimum.at(lo, b, pod_a[a])
    np.maximum.at(hi, b, pod_a[a])
    return np.where(lo == hi, lo, -1)


def _pod_tiers(leaves: int, block_leaves: int, half: int, top_down: int) -> int:
    """Fewest tiers whose top holds ``leaves`` leaves of one pod (see _clos for the grouping)."""
    if leaves <= 1:
        return 1
    if leaves <= top_down:
        return 2
    blocks, tiers = -(-leaves // block_leaves), 3
    while blocks > top_down:
        blocks, tiers = -(-blocks // half), tiers + 1
    return tiers


def _clos(
    leaf_spod: np.ndarray,
    leaf_pod: np.ndarray,
    leaf_down: np.ndarray,
    pod_tiers: int,
    join_tier: bool,
    radix: int,
    block_leaves: int,
    top_down: int,
    top_up: Callable[[np.ndarray], np.ndarray],
    leaf_up: Callable[[np.ndarray], np.ndarray] | None = None,
) -> _Net:
    """Tiers 1..pod_tiers inside each structural pod, plus one tier joining the pods if ``join_tier``.
    Below the pod top every switch is non-blocking (up = down, at most radix/2 each); the pod top takes
    at most ``top_down`` links down and ``top_up(down)`` up; the joining tier takes all ``radix`` down."""
    half = radix // 2
    tiers = pod_tiers + int(join_tier)
    net = _Net()
    n_leaf = len(leaf_down)
    if leaf_up is not None:
        up = leaf_up(leaf_down)
    elif pod_tiers == 1:
        up = top_up(leaf_down) if join_tier else np.zeros(n_leaf, dtype=np.int64)
    else:
        up = leaf_down.copy()
    zero = np.zeros(n_leaf, dtype=np.int64)
    layer = _Layer(
        block=np.arange(n_leaf),
        pos=zero,
        up=up,
        pod=leaf_pod,
        spod=leaf_spod,
        down=leaf_down,
        lo=zero,
        hi=zero + 1,
    )
    net.layers.append(layer)
    for t in range(2, tiers + 1):
        if t > pod_tiers:  # the tier that joins the pods
            new_block = _group_blocks(layer, None, join_pods=True)
            down_max = radix
        elif t == pod_tiers:  # the pod top
            new_block = _group_blocks(layer, None, join_pods=False)
            down_max = top_down
        else:
            new_block = _group_blocks(layer, block_leaves if t == 2 else half, join_pods=False)
            down_max = half
        slots = None
        if t == tiers == pod_tiers and int(new_block.max()) == 0:  # one pod's top: fewer by slots?
            per_plane = _tier_up(layer, new_block, down_max, radix, False, count_only=True)
            assert isinstance(per_plane, int)
            slots = _top_slots(layer, down_max, radix, per_plane)
        if slots is not None:
            a, b, n_top = slots
            blocks = np.zeros(n_top, dtype=np.int64)
            pos = lo = np.arange(n_top, dtype=np.int64)
            hi = lo + 1
        else:
            wired = _tier_up(
                layer, new_block, down_max, radix, t < tiers, full_fan=join_tier and t < pod_tiers
            )
            assert not isinstance(wired, int)
            a, b, blocks, pos, lo, hi = wired
        n_up = len(blocks)
        down = np.bincount(b, minlength=n_up)
        if t > pod_tiers:
            up_links = np.zeros(n_up, dtype=np.int64)
        elif t == pod_tiers:
            up_links = top_up(down) if join_tier else np.zeros(n_up, dtype=np.int64)
        else:
            up_links = down.copy()
        block_spod = np.zeros(int(new_block.max()) + 1, dtype=np.int64)
        if t <= pod_tiers:
            block_spod[new_block] = layer.spod
        layer = _Layer(
            block=blocks,
            pos=pos,
            up=up_links,
            pod=_common_pod(a, b, layer.pod, n_up),
            spod=block_spod[blocks],
            down=down,
            lo=lo,
            hi=hi,
        )
        net.layers.append(layer)
        net.links.append((a, b))
        net.parent.append(new_block)
    return net


@dataclass
class _Tables:
    """Column arrays accumulated while building; turned into two DataFrames at the end."""

    dev: dict[str, list[np.ndarray]] = field(
        default_factory=lambda: {c: [] for c in DEVICE_COLUMNS if c != "ports_used"}
    )
    link: dict[str, list[np.ndarray]] = field(default_factory=lambda: {c: [] for c in LINK_COLUMNS})
    n_dev: int = 0

    def add_devices(
        self,
        ids: list[str],
        role: str,
        network: str,
        tier: int,
        model: str,
        pod: np.ndarray,
        group: np.ndarray | None = None,
        su: np.ndarray | None = None,
        rail: np.ndarray | None = None,
        index: np.ndarray | None = None,
        planes: np.ndarray | None = None,
    ) -> int:
        n = len(ids)
        none = np.full(n, -1, dtype=np.int64)
        self.dev["device_id"].append(np.asarray(ids, dtype=object))
        self.dev["role"].append(np.full(n, role, dtype=object))
        self.dev["network"].append(np.full(n, network, dtype=object))
        self.dev["tier"].append(np.full(n, tier, dtype=np.int64))
        self.dev["model"].append(np.full(n, model, dtype=object))
        self.dev["pod"].append(np.asarray(pod, dtype=np.int64))
        self.dev["group"].append(none if group is None else np.asarray(group, dtype=np.int64))
        self.dev["su"].append(none if su is None else np.asarray(su, dtype=np.int64))
        self.dev["rail"].append(none if rail is None else np.asarray(rail, dtype=np.int64))
        self.dev["index"].append(
            np.arange(n, dtype=np.int64) if index is None else np.asarray(index, dtype=np.int64)
        )
        self.dev["planes"].append(
            np.ones(n, dtype=np.int64) if planes is None else np.asarray(planes, dtype=np.int64)
        )
        first = self.n_dev
        self.n_dev += n
        return first

    def add_links(
        self, a: np.ndarray, b: np.ndarray, kind: str, network: str, speed_gbps: int, pod: np.ndarray
    ) -> None:
        n = len(a)
        pa, pb = pod[a], pod[b]
        self.link["a"].append(a.astype(np.int64))
        self.link["b"].append(b.astype(np.int64))
        self.link["kind"].append(np.full(n, LINK_KINDS.index(kind), dtype=np.int8))
        self.link["network"].append(np.full(n, NETWORKS.index(network), dtype=np.int8))
        self.link["speed_gbps"].append(np.full(n, speed_gbps, dtype=np.int64))
        self.link["pod"].append(np.where(pa == pb, pa, -1))

    def pods(self) -> np.ndarray:
        return np.concatenate(self.dev["pod"]) if self.dev["pod"] else np.zeros(0, dtype=np.int64)

    def arrays(self) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        dev = {c: np.concatenate(v) for c, v in self.dev.items()}
        link = {c: np.concatenate(v) if v else np.zeros(0, dtype=np.int64) for c, v in self.link.items()}
        n = self.n_dev
        # management (oob) links count on the oob switch, not on the managed device's data ports
        oob = link["network"] == NETWORKS.index("oob")
        used = np.bincount(link["a"][~oob], minlength=n) + np.bincount(link["b"], minlength=n)
        dev["ports_used"] = used.astype(np.int64)
        for arr in (*dev.values(), *link.values()):
            arr.flags.writeable = False
        return dev, link


def _ids(prefix: str, *parts: tuple[str, np.ndarray]) -> list[str]:
    """Zero-padded ids such as be-leaf-p0-u012-r5 (parts with value -1 are left out)."""
    cols = []
    for tag, values in parts:
        width = len(str(max(int(values.max()), 0))) if len(values) else 1
        cols.append([f"-{tag}{v:0{width}d}" if v >= 0 else "" for v in values.tolist()])
    return [prefix + "".join(p) for p in zip(*cols, strict=True)] if cols else []


def _build(spec: _Spec, catalog: Catalog) -> Fabric:
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
    needed = _pod_tiers(leaves_per_pod, block_leaves, half, top_down) + int(pods > 1)
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

    net = _clos(leaf_pod, leaf_pod, leaf_down, pod_tiers, pods > 1, radix, block_leaves, top_down, top_up)

    t = _Tables()
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
        index=_rank_in_runs(srv_pod * (n_srv + 1) + srv_group),
    )
    leaf_rail = leaf_in_pod % rails if spec.design == "rail" else np.full(len(leaf_pod), -1)
    leaf_su = leaf_in_pod // rails
    leaf_first = t.add_devices(
        _ids("be-leaf", ("p", leaf_pod), ("u", leaf_su), ("r", leaf_rail)),
        "leaf",
        "backend",
        1,
        spec.switch,
        leaf_pod,
        leaf_block_local,
        leaf_su,
        leaf_rail,
        _rank_in_runs(leaf_pod * (len(leaf_pod) + 1) + leaf_block_local),
    )
    firsts = [leaf_first]
    for tier in range(2, tiers + 1):
        layer = net.layers[tier - 1]
        role = TIER_ROLES[tier - 1]
        if tier == 2:
            grp = net.local_block(2)
            ids = _ids(f"be-{role}", ("p", layer.pod), ("g", grp), ("", layer.pos))
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
            num = _rank_by(layer.pod)
            firsts.append(
                t.add_devices(
                    _ids(f"be-{role}", ("p", layer.pod), ("", num)),
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

    nodes = _nodes(t, catalog, spec, srv_pod, n_srv, sw.protocol)
    st_net = "storage" if spec.storage else "frontend"
    for name, flag, per_server, over in (
        ("frontend", spec.frontend, srv.frontend_ports, FRONTEND_LEAF_OVERSUBSCRIPTION),
        ("storage", spec.storage, srv.storage_ports, STORAGE_LEAF_OVERSUBSCRIPTION),
    ):
        if not flag:
            continue
        side = _side_switch(catalog, spec, name)
        segs: list[_Segment] = []
        if per_server:
            srv_idx = np.arange(n_srv, dtype=np.int64)
            gbps = srv.frontend_port_gbps if name == "frontend" else srv.storage_port_gbps
            pods_n = int(srv_pod.max()) + 1
            segs += [_Segment(srv_idx[srv_pod == p], per_server, p, gbps) for p in range(pods_n)]
        for seg in nodes:
            if seg.network == name or (seg.network == "storage" and name == st_net):
                segs.append(seg)
        if segs:
            _side_network(t, name, segs, over, catalog.switch[side].ports, catalog.switch[side], side, spec)
    if spec.oob:
        _oob_network(t, catalog, srv.oob_ports, n_srv, spec)

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


def _rank_in_runs(keys: np.ndarray) -> np.ndarray:
    """0, 1, 2 ... restarting whenever the (sorted) key changes."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    starts = _first_index(keys)
    return np.arange(len(keys)) - np.repeat(starts, _run_lengths(keys))


def _rank_by(keys: np.ndarray) -> np.ndarray:
    """0, 1, 2 ... among the entries with the same key, in order (keys need not be sorted)."""
    order = np.argsort(keys, kind="stable")
    rank = np.empty(len(keys), dtype=np.int64)
    rank[order] = _rank_in_runs(keys[order])
    return rank


@dataclass(frozen=True)
class _Segment:
    """Devices of one side network that share leaves (never with another segment): the servers of a
    pod, a pod's storage nodes, the CPU nodes; ``ports`` each, links at ``gbps`` (0: the switch's)."""

    dev: np.ndarray
    ports: int
    pod: int
    gbps: int = 0
    network: str = ""


def _side_switch(catalog: Catalog, spec: _Spec, name: str) -> str:
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


def _nodes(
    t: _Tables, catalog: Catalog, spec: _Spec, srv_pod: np.ndarray, n_srv: int, protocol: str
) -> list[_Segment]:
    """Storage servers (sized by read bandwidth per GPU, or the site's count; spread over the pods in
    proportion to their servers) and CPU nodes (head, login, management, UFM on InfiniBand), as devices
    of the storage and frontend networks. None where the network is off or the catalog lacks the node."""
    nets = spec.networks
    out: list[_Segment] = []
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
            rank = _rank_in_runs(pod)
            first = t.add_devices(
                _ids("stor", ("p", pod), ("", rank)),
                "storage_node",
                "storage",
                0,
                nets.storage_node,
                pod,
                index=rank,
            )
            idx = first + np.arange(n, dtype=np.int64)
            for p in np.unique(pod).tolist():
                out.append(_Segment(idx[pod == p], st.data_ports, int(p), st.data_port_gbps, "storage"))
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
                    _ids(tag, ("", num)), "cpu_node", "frontend", 0, model, np.full(count, -1), index=num
                )
                segs.append(first + num)
        if segs:
            idx = np.concatenate(segs)
            out.append(_Segment(idx, cpu.data_ports, -1, cpu.data_port_gbps, "frontend"))
    return out


def _side_network(
    t: _Tables,
    name: str,
    segs: list[_Segment],
    over: float,
    radix: int,
    sw: SwitchSpec,
    model: str,
    spec: _Spec,
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

    tiers = _pod_tiers(n_leaf, half, half, radix)
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
    net = _clos(
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
        ids = _ids(f"{prefix}-{TIER_ROLES[tier - 1]}", ("", np.arange(len(layer.up))))
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


def _oob_network(t: _Tables, catalog: Catalog, oob_ports: int, n_srv: int, spec: _Spec) -> None:
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
    rank = _rank_in_runs(port_key)
    per_key = np.bincount(port_key)
    switches = -(-per_key // oob.ports)
    first_sw = np.concatenate(([0], np.cumsum(switches)[:-1]))
    port_sw = first_sw[port_key] + rank // oob.ports
    sw_key = np.repeat(np.arange(len(switches)), switches)
    sw_pod = np.where(sw_key > int(pod.max()), -1, sw_key) if len(sw_key) else sw_key
    first = t.add_devices(
        _ids("oob", ("p", sw_pod), ("", _rank_in_runs(sw_key))),
        "oob",
        "oob",
        1,
        OOB_SWITCH,
        sw_pod,
        index=_rank_in_runs(sw_key),
    )
    t.add_links(port_dev, first + port_sw, "oob", "oob", oob.port_gbps, t.pods())
    _oob_uplinks(t, catalog, spec, first, len(sw_key))


def _oob_uplinks(t: _Tables, catalog: Catalog, spec: _Spec, first: int, n_oob: int) -> None:
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
        _ids("oob-agg", ("", num)), "oob_agg", "oob", 2, model, np.full(n_agg, -1), index=num
    )
    i = np.repeat(np.arange(n_oob, dtype=np.int64), u)
    j = np.tile(np.arange(u, dtype=np.int64), n_oob)
    speed = min(agg.port_gbps, 100)  # SN2201 uplinks: 4 x 100G QSFP28 (NVIDIA SN2201 datasheet)
    t.add_links(first + i, a_first + (i * u + j) % n_agg, "oob_uplink", "oob", speed, t.pods())
