"""The logical network as built (`Fabric`: device and link tables as arrays), its constants, and the
request it is built from (`Spec`)."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from layout.errors import Problem
from layout.model.site import Networks
from layout.reliability import time_to_first_failure_min

if TYPE_CHECKING:
    import pandas as pd

    from layout.model.catalog import ServerSpec

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
    "join_pods": "cluster.join_pods",
    "oversubscription": "cluster.oversubscription",
    "nic": "cluster.nic",
    "link_mtbf_years": "cluster.link_mtbf_years",
    "tiers": "cluster.tiers",
    "nvl72_wiring": "cluster.nvl72_wiring",
}
# How the backend ports of an NVL72 rack system (GB200 / GB300 NVL72: 18 compute trays of 4 NICs) meet
# the leaves, on the rail-optimized design:
# - "ra": as the DGX SuperPOD GB200 RA's compute fabric: per scalable unit one rail group per NIC
#   position of a compute tray, each of one leaf per rack (the rack's 18 trays: 18 links down, 18 up)
#   and the spines of that group alone (a number dividing the leaf's 18 links up), the groups joined by
#   a core tier; a leaf failure cuts one NIC of 18 trays of one rack. The default on InfiniBand.
# - "packed": tray position i of every rack of an SU on rail i (18 leaves per SU, all 4 NICs of a tray
#   on one leaf: a leaf failure cuts 32 GPUs), the spines shared by the SUs of a leaf group: fewer
#   switches on 2 tiers. The default elsewhere (the Spectrum-X NVL72 enterprise RA's rails).
NVL72_WIRINGS = ("ra", "packed")


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
    nvl72_wiring: str | None = None  # "ra" / "packed" for an NVL72 rack system on rails (NVL72_WIRINGS)
    planes: int = 1  # backend fabrics: one per plane of a dual-plane NIC (cx8-2x400: 2), each its own Clos
    # oversubscribed pods that cost more switches than one non-blocking fabric of the same GPUs: both
    # figures and which was built (see entry._build); None when the pods pay or were not asked for
    pods_cost_more: dict[str, Any] | None = None
    pods_joined: bool = True  # False: islands, no backend tier above the pods (the frontend joins them)

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
            "oversubscription": float(self.oversubscription) if self.pods > 1 and self.pods_joined else 1.0,
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
            "nvl72_wiring": self.nvl72_wiring,
            "planes": self.planes,
            "pods_cost_more": copy.deepcopy(self.pods_cost_more),
            "pods_joined_by": ("backend" if self.pods_joined else "frontend") if self.pods > 1 else "",
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


def is_nvl72(server: ServerSpec) -> bool:
    """A rack-scale NVL72 system: its backend ports spread over rails of compute trays, several NICs per
    tray (GB200 / GB300 NVL72: 18 trays of 4), so that ``nvl72_wiring`` chooses how they meet the leaves."""
    return server.rails is not None and server.ports_per_rail > 1


def is_switch_role(role: np.ndarray) -> np.ndarray:
    """True where a device role is a switch (not a GPU server, storage or CPU node)."""
    return ~np.isin(np.asarray(role).astype(str), ["server", *NODE_ROLES])


@dataclass(frozen=True)
class Spec:
    """What a fabric is asked for: the cluster's values and networks, and where a problem is reported
    (``source``, and ``keys``: the name of each value there, ``cluster.gpus`` or ``--gpus``)."""

    gpus: int
    server: str
    switch: str
    design: str
    pod_gpus: int
    oversubscription: float
    nic: str
    link_mtbf_years: float | None
    tiers: int | None
    nvl72_wiring: str | None
    keep_pods: bool  # keep oversubscribed pods that cost more than non-blocking (a site's pods per building)
    servers_per_rack: int | None
    storage: bool
    frontend: bool
    oob: bool
    networks: Networks
    source: str
    keys: dict[str, str]
    join_pods: bool = True  # False: pods are islands joined only over the frontend network

    def problem(self, key: str, problem: str, allowed: str = "") -> Problem:
        return Problem(self.source, self.keys.get(key, key), problem, allowed)
