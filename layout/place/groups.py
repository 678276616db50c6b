"""The fabric's devices grouped for placement, and the racks they make.

- a scalable unit (SU: the servers of one fabric ``(pod, su)``; middle-of-rack: of one ``(pod, group)``,
  as its SUs are single racks or rack pairs) is a block of GPU racks with its network racks (template kind
  ``network``: the rail leaves, and the SU's frontend/storage leaves and out-of-band switches, found
  through their links to the SU's servers) in the middle of the block; middle-of-rack: each leaf sits in
  the GPU rack's ``leaf`` slot of the first rack of its servers;
- the spine switches of a pod (kind ``spine``) are packed into spine racks, core switches, frontend and
  storage spines and anything above the pods (kind ``core``) into MDF racks;
- out-of-band switches that manage no server stand with what they manage: in an SU's network rack when
  all of it is in that SU, in the MDF when it is all MDF gear, else beside the pod's spines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from layout.errors import InputError, Problem
from layout.estimates import estimate_switch_kw
from layout.place.templates import GpuRack, network_templates, node_templates

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.load import Inputs
    from layout.memo import Scope
    from layout.model import RackTemplate

SU_ROLES = {
    "leaf": 0,
    "fe_leaf": 1,
    "st_leaf": 2,
    "oob": 3,
}  # switches that live with their SU, in this order


@dataclass(slots=True, eq=False)
class RackItem:
    """One rack to build: template, the devices in it (device numbers) and their RU (shared by the
    placements of one fabric: see Derived)."""

    template: str
    kind: str
    width_m: float
    depth_m: float
    dev: np.ndarray
    ru: np.ndarray
    servers: int = 0
    joined: bool = False  # must stand right after the block's previous rack, in one row (a leaf's rack pair)


@dataclass(frozen=True, eq=False)
class Block:
    su: int
    items: list[RackItem]
    kw: float


class Devices:
    """The fabric's devices grouped for placement: SUs, their switches, spines per pod, MDF devices."""

    def __init__(self, inputs: Inputs, fabric: Fabric):
        dev = fabric.devices
        self.n = len(dev)
        self.role = dev["role"].to_numpy().astype(str)
        self.pod = dev["pod"].to_numpy().astype(np.int64)
        # placement block: a rail scalable unit, or (middle-of-rack) the 2-tier group of rack leaves
        col = "su" if fabric.design == "rail" and "su" in dev.columns else "group"
        group = dev[col].to_numpy().astype(np.int64)
        index = dev["index"].to_numpy().astype(np.int64)
        models = dev["model"].to_numpy().astype(str)
        self.height = np.ones(self.n, np.int64)
        self.est_kw = np.zeros(self.n)
        for m in pd.unique(models):
            sw = inputs.catalog.switch.get(str(m))
            if sw is not None:
                self.height[models == m] = sw.height_ru
                self.est_kw[models == m] = estimate_switch_kw(inputs.catalog, str(m))
            node = inputs.catalog.node.get(str(m))
            if node is not None:
                self.height[models == m] = node.height_ru
                self.est_kw[models == m] = node.power_kw
        is_server = self.role == "server"
        srv = np.flatnonzero(is_server)
        order = np.lexsort((srv, index[srv], group[srv], self.pod[srv]))
        srv = srv[order]
        keys = np.stack([self.pod[srv], group[srv]], axis=1) if len(srv) else np.zeros((0, 2), np.int64)
        new = np.ones(len(srv), bool)
        new[1:] = np.any(keys[1:] != keys[:-1], axis=1)
        su_of_sorted = np.cumsum(new) - 1
        self.su_of = np.full(self.n, -1, np.int64)
        self.su_of[srv] = su_of_sorted
        starts = np.flatnonzero(new)
        self.su_servers = np.split(srv, starts[1:]) if len(srv) else []
        self.su_pod = [int(self.pod[s[0]]) for s in self.su_servers]
        # the 2-tier group (leaves that share their spines) of each SU: kept in one hall when power allows
        spine_group = dev["group"].to_numpy().astype(np.int64)
        self.su_group = [int(spine_group[s[0]]) for s in self.su_servers]
        self.pos_in_su = np.full(self.n, -1, np.int64)
        for s in self.su_servers:
            self.pos_in_su[s] = np.arange(len(s))
        self.pods = sorted(set(self.su_pod))
        self.pod_sus = {p: [i for i, q in enumerate(self.su_pod) if q == p] for p in self.pods}

        # switches wired to servers belong to the SU of the lowest-numbered such server
        a = fabric.links["a"].to_numpy().astype(np.int64)
        b = fabric.links["b"].to_numpy().astype(np.int64)
        self.links_a, self.links_b = a, b
        to_srv = is_server[a] & ~is_server[b]
        from_srv = is_server[b] & ~is_server[a]
        sw_end = np.concatenate([b[to_srv], a[from_srv]])
        srv_end = np.concatenate([a[to_srv], b[from_srv]])
        self.first_server = np.full(self.n, -1, np.int64)
        if len(sw_end):
            by_switch = pd.Series(srv_end).groupby(sw_end)
            first, last = by_switch.min(), by_switch.max()
            self.first_server[first.index.to_numpy()] = first.to_numpy()
        self.last_server = np.full(self.n, -1, np.int64)
        if len(sw_end):
            self.last_server[last.index.to_numpy()] = last.to_numpy()
        has = self.first_server >= 0
        sw_su = np.full(self.n, -1, np.int64)
        sw_su[has] = self.su_of[self.first_server[has]]
        self.sw_su = sw_su

        # an out-of-band switch that manages no server: in the SU block of the switches it manages when
        # they are all of one SU, in the MDF when they are all MDF devices, else beside the spines of
        # its pod (the middle of the hall, in reach of both)
        self.leader = np.full(self.n, -1, np.int64)
        oob = (fabric.links["network"] == "oob").to_numpy() & (self.first_server[b] < 0)
        if oob.any():
            # MDF gear: not a server nor a pod's spine, nor a switch of an SU (a frontend or storage leaf
            # of the storage / CPU nodes is MDF gear: it is wired to no server)
            core_role = ~np.isin(self.role, ["server", "spine"]) & ~(
                np.isin(self.role, list(SU_ROLES)) & (sw_su >= 0)
            )
            managed = pd.DataFrame({"sw": b[oob], "su": sw_su[a[oob]], "core": core_role[a[oob]]})
            g = managed.groupby("sw").agg(lo=("su", "min"), hi=("su", "max"), core=("core", "all"))
            first_spine = {int(p): int(np.flatnonzero((self.role == "spine") & (self.pod == p))[0])
                           for p in np.unique(self.pod[self.role == "spine"]) if p >= 0}  # fmt: skip
            for sw_id, lo, hi, core in zip(
                g.index.tolist(), g["lo"].tolist(), g["hi"].tolist(), g["core"].tolist(), strict=True
            ):
                if lo == hi and lo >= 0:
                    sw_su[sw_id] = lo
                elif not core and int(self.pod[sw_id]) in first_spine:
                    self.leader[sw_id] = first_spine[int(self.pod[sw_id])]
        su_role = np.isin(self.role, list(SU_ROLES))
        self.in_su = su_role & (sw_su >= 0)
        self.spine = ((self.role == "spine") & (self.pod >= 0)) | (self.leader >= 0)
        self.mdf = ~is_server & ~self.in_su & ~self.spine
        self.is_server = is_server
        self.prio = np.full(self.n, 9, np.int64)
        for role, prio in SU_ROLES.items():
            self.prio[self.role == role] = prio
        # the links from a pod's spines down to the switches of SUs: each spine and its SU (spine_halls)
        down = self.spine[b] & self.in_su[a]
        self.down_spine, self.down_su = b[down], sw_su[a[down]]
        self.down_pod = self.pod[self.down_spine]
        su_dev = np.flatnonzero(self.in_su)
        su_dev = su_dev[np.lexsort((su_dev, self.prio[su_dev], sw_su[su_dev]))]
        self.su_switches: dict[int, np.ndarray] = {}
        if len(su_dev):
            cuts = np.flatnonzero(np.diff(sw_su[su_dev])) + 1
            for chunk in np.split(su_dev, cuts):
                self.su_switches[int(sw_su[chunk[0]])] = chunk

    def spine_halls(self, su_hall: np.ndarray, pod: int) -> dict[int, np.ndarray]:
        """Spines of a pod per hall: the hall of their leaves; spines wired into several halls are shared
        out in proportion to the pod's SUs per hall, in device order."""
        spines = np.flatnonzero(self.spine & (self.pod == pod))
        if not len(spines):
            return {}
        mine = self.down_pod == pod
        spine_of, hall = self.down_spine[mine], su_hall[self.down_su[mine]]
        lo_min = np.full(self.n, np.iinfo(np.int64).max, np.int64)  # per spine, the halls of its SUs
        lo_max = np.full(self.n, np.iinfo(np.int64).min, np.int64)
        np.minimum.at(lo_min, spine_of, hall)
        np.maximum.at(lo_max, spine_of, hall)
        wired = np.zeros(self.n, bool)
        wired[spine_of] = True
        sus = self.pod_sus.get(pod, [])
        pod_halls = su_hall[sus] if sus else np.zeros(0, np.int64)
        pod_halls = pod_halls[pod_halls >= 0]
        default = int(np.bincount(pod_halls).argmax()) if len(pod_halls) else -1
        hall_of: dict[int, int] = {}
        shared = []
        for s in spines[self.leader[spines] < 0].tolist():
            h = int(lo_min[s]) if wired[s] else -1
            if h >= 0 and h == lo_max[s]:
                hall_of[s] = h
            else:
                shared.append(s)
        if shared and len(pod_halls):
            halls, counts = np.unique(pod_halls, return_counts=True)
            share = largest_remainder(counts, len(shared))
            i = 0
            for h, k in zip(halls.tolist(), share, strict=True):
                hall_of.update(dict.fromkeys(shared[i : i + k], h))
                i += k
        else:
            hall_of.update(dict.fromkeys(shared, default))
        for s in spines[self.leader[spines] >= 0].tolist():  # management switches go with their spines
            hall_of[s] = hall_of.get(int(self.leader[s]), default)
        out: dict[int, list[int]] = {}
        for s, h in sorted(hall_of.items()):
            out.setdefault(h, []).append(s)
        return {h: np.asarray(v, np.int64) for h, v in out.items()}

    def piece_spines(self, pod: int, sus: tuple[int, ...]) -> np.ndarray:
        """The spines of a pod that stand with ``sus``, a run of its SUs in SU order (the pod laid across
        buildings: layout/place/zones.py Piece): every spine wired to these SUs alone, and of the spines
        wired to SUs of several runs (or to none), those whose place in device order falls in this run's
        share of the pod's SUs, so the runs of a pod share its spines out, each spine once, each run
        knowing only its own SUs. Management switches go with their spines."""
        spines = np.flatnonzero(self.spine & (self.pod == pod))
        every = self.pod_sus.get(pod, [])
        if len(sus) == len(every) or not len(spines):
            return spines
        pos = {su: i for i, su in enumerate(every)}
        lo, hi = pos[sus[0]], pos[sus[-1]] + 1
        mine = self.down_pod == pod
        spine_of, su_of = self.down_spine[mine], self.down_su[mine]
        inside = np.isin(su_of, np.asarray(sus, np.int64))
        n_in = np.bincount(spine_of[inside], minlength=self.n)
        n_out = np.bincount(spine_of[~inside], minlength=self.n)
        heads = spines[self.leader[spines] < 0]
        own = (n_in[heads] > 0) & (n_out[heads] == 0)
        shared = heads[~own & ~((n_out[heads] > 0) & (n_in[heads] == 0))]
        at = ((np.arange(len(shared)) + 0.5) * len(every) / max(len(shared), 1)).astype(np.int64)
        chosen = np.union1d(heads[own], shared[(at >= lo) & (at < hi)])
        followers = spines[self.leader[spines] >= 0]
        return np.union1d(chosen, followers[np.isin(self.leader[followers], chosen)])


def largest_remainder(weights: np.ndarray, total: int) -> list[int]:
    q = weights / weights.sum() * total
    base = np.floor(q).astype(int)
    rest = total - int(base.sum())
    order = np.argsort(-(q - base), kind="stable")
    base[order[:rest]] += 1
    return [int(x) for x in base]


def pack(
    template: RackTemplate,
    devices: np.ndarray,
    heights: np.ndarray,
    file: str,
    nodes: bool = False,
    kw: np.ndarray | None = None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Switches into racks of a network template, in order: each at a free ``switch`` slot (``nodes``:
    ``node`` slot) that clears the previous one's height and fits under the top of the rack, and (given
    ``kw``, each device's estimated draw) within the template's PDU: a device that would take the rack
    past ``pdu_kw`` starts the next rack (one alone over it still stands, and the power check says so)."""
    slots = sorted(template.node_slots() if nodes else template.switch_slots())
    draw = np.zeros(len(devices)) if kw is None else np.asarray(kw, float)
    racks: list[tuple[np.ndarray, np.ndarray]] = []
    cur_d: list[int] = []
    cur_r: list[int] = []
    si, top, load = 0, 0, 0.0
    for d, h, k in zip(devices.tolist(), heights.tolist(), draw.tolist(), strict=True):
        while True:
            while si < len(slots) and (slots[si] <= top or slots[si] + h - 1 > template.height_ru):
                si += 1
            if si < len(slots) and not (cur_d and load + k > template.pdu_kw + 1e-9):
                break
            if not cur_d:
                raise InputError(
                    [
                        Problem(
                            file,
                            "slot",
                            f"template {template.id!r} has no switch slot for a {h}U switch",
                            "switch slots with room for the switch height",
                        )
                    ]
                )
            racks.append((np.asarray(cur_d, np.int64), np.asarray(cur_r, np.int64)))
            cur_d, cur_r, si, top, load = [], [], 0, 0, 0.0
        cur_d.append(d)
        cur_r.append(slots[si])
        top = slots[si] + h - 1
        load += k
    if cur_d:
        racks.append((np.asarray(cur_d, np.int64), np.asarray(cur_r, np.int64)))
    return racks


def net_leaves(d: Devices, su: int) -> np.ndarray:
    """The backend leaves of an SU's switches (middle-of-rack: one per rack or rack pair)."""
    net = d.su_switches.get(su, np.zeros(0, np.int64))
    return net[d.role[net] == "leaf"]


def derived_of(inputs: Inputs, fabric: Fabric) -> Devices:
    """The fabric's devices grouped for placement."""
    return Devices(inputs, fabric)


class RackGroups:
    """The racks one fabric's devices make: an SU's block for the GPU rack of its hall (its GPU racks with
    its network racks in the middle; middle-of-rack: each leaf in the GPU rack of its first servers), and
    switches packed into network templates (spine racks, MDF racks). Each is built once per placement:
    trial and final layouts ask for the same blocks again."""

    def __init__(self, inputs: Inputs, fabric: Fabric, scope: Scope | None = None):
        self.inputs = inputs
        self.fabric = fabric
        self.t_net, self.t_spine, self.t_core = network_templates(inputs)
        self.t_storage, self.t_mgmt = node_templates(inputs)
        # a function of the fabric (the scope's token) and the catalog alone: kept in the memo
        self.devices = (
            Devices(inputs, fabric)
            if scope is None
            else scope.take("place.devices", (inputs.catalog,), lambda: Devices(inputs, fabric))
        )
        self._blocks: dict[tuple[int, str, int, float], Block] = {}  # (SU, GPU rack, servers, kW) -> block
        self._packs: dict[tuple[str, bytes], list[RackItem]] = {}  # (network template, devices) -> racks

    def pack_items(self, tpl: RackTemplate, devices: np.ndarray, nodes: bool = False) -> list[RackItem]:
        if not len(devices):
            return []
        key = (tpl.id, devices.tobytes())  # trial and final runs pack the same spines and MDFs again
        if key not in self._packs:
            self._packs[key] = [
                RackItem(tpl.id, tpl.kind, tpl.width_m, tpl.depth_m, d, r)
                for d, r in pack(
                    tpl,
                    devices,
                    self.devices.height[devices],
                    str(self.inputs.templates_dir),
                    nodes,
                    self.devices.est_kw[devices],
                )
            ]
        return list(self._packs[key])

    def mdf_items(self, devices: np.ndarray) -> list[RackItem]:
        """The racks of MDF devices: switches in MDF (core) racks, then storage nodes in storage racks
        and CPU nodes in management racks (in MDF racks when the templates have no such kind)."""
        items = []
        for kind, tpl in (("storage_node", self.t_storage), ("cpu_node", self.t_mgmt)):
            mask = self.devices.role[devices] == kind
            if tpl is not None and mask.any():
                items += self.pack_items(tpl, devices[mask], nodes=True)
                devices = devices[~mask]
        return self.pack_items(self.t_core, devices) + items

    def _network(self, su: int, gpu: GpuRack) -> tuple[list[tuple[int, int]], np.ndarray]:
        """An SU's switches with this GPU rack: the leaves that go into a GPU rack (middle-of-rack: the
        rack of each one's first servers, one leaf a rack) as (rack, leaf), and those left for network
        racks, in the order they are packed (priority, then device)."""
        d = self.devices
        net = d.su_switches.get(su, np.zeros(0, np.int64))
        if self.fabric.design != "mor" or not len(net):
            return [], net
        spr = max(gpu.servers, 1)
        leaf_ru = self.inputs.templates[gpu.template].leaf_slot()
        is_leaf = d.role[net] == "leaf"
        taken: set[int] = set()
        moved, stay = [], []
        for s in net[is_leaf].tolist():
            k = int(d.pos_in_su[d.first_server[s]]) // spr
            if leaf_ru is not None and k not in taken:
                taken.add(k)
                moved.append((k, s))
            else:
                stay.append(s)
        return moved, np.asarray(
            sorted(stay + net[~is_leaf].tolist(), key=lambda x: (d.prio[x], x)), np.int64
        )

    def _kw(self, su: int, gpu: GpuRack, net: np.ndarray) -> float:
        """An SU block's estimated kW: its servers at the GPU rack's kW per server, and ``net``'s."""
        return len(self.devices.su_servers[su]) * gpu.est_kw / max(gpu.servers, 1) + float(
            self.devices.est_kw[net].sum()
        )

    def block_kw(self, su: int, gpu: GpuRack | None) -> float:
        """``block(su, gpu).kw`` without building the block's racks (the power budgets ask for every SU's
        kW with the first hall's GPU rack: an edit of that hall's max kW built a block per SU of the
        campus, ~40 ms, for their kW alone)."""
        assert gpu is not None
        key = (su, gpu.template, gpu.servers, gpu.est_kw)
        if key in self._blocks:
            return self._blocks[key].kw
        return self._kw(su, gpu, self._network(su, gpu)[1])

    def block(self, su: int, gpu: GpuRack | None) -> Block:
        assert gpu is not None
        key = (su, gpu.template, gpu.servers, gpu.est_kw)  # all a block takes from the GPU rack
        if key in self._blocks:
            return self._blocks[key]
        d = self.devices
        tpl = self.inputs.templates[gpu.template]
        spr = max(gpu.servers, 1)
        slots = np.asarray(sorted(tpl.server_slots({self.fabric.server})), np.int64)
        servers = d.su_servers[su]
        n_racks = -(-len(servers) // spr)
        gpu_dev = [servers[k * spr : (k + 1) * spr] for k in range(n_racks)]  # views: never written
        gpu_ru = [slots[: len(g)] for g in gpu_dev]
        leaf_ru = tpl.leaf_slot()
        moved, net = self._network(su, gpu)
        for k, s in moved:  # only with a leaf slot (_network)
            assert leaf_ru is not None
            gpu_dev[k] = np.append(gpu_dev[k], s)
            gpu_ru[k] = np.append(gpu_ru[k], leaf_ru)
        joined = self._leaf_spans(net_leaves(d, su), spr, n_racks) if self.fabric.design == "mor" else None
        gpu_items = [
            RackItem(
                tpl.id,
                tpl.kind,
                tpl.width_m,
                tpl.depth_m,
                g,
                r,
                min(spr, len(servers) - k * spr),
                bool(joined is not None and joined[k]),
            )  # fmt: skip
            for k, (g, r) in enumerate(zip(gpu_dev, gpu_ru, strict=True))
        ]
        net_items = self.pack_items(self.t_net, net)
        half = n_racks // 2
        if joined is not None:  # the network racks go between two rack pairs, never inside one
            cuts = [k for k in range(n_racks + 1) if k == n_racks or not joined[k]]
            half = min(cuts, key=lambda k: (abs(k - n_racks // 2), k))
        items = gpu_items[:half] + net_items + gpu_items[half:]
        blk = Block(su, items, self._kw(su, gpu, net))
        self._blocks[key] = blk
        return blk

    def _leaf_spans(self, leaves: np.ndarray, spr: int, n_racks: int) -> np.ndarray:
        """Middle-of-rack: per GPU rack of an SU, True when it must stand right after the rack before it
        because one leaf serves servers in both (each leaf's racks, first to last, side by side)."""
        d = self.devices
        joined = np.zeros(n_racks, bool)
        for s in leaves.tolist():
            k0 = int(d.pos_in_su[d.first_server[s]]) // spr
            k1 = int(d.pos_in_su[d.last_server[s]]) // spr
            joined[k0 + 1 : k1 + 1] = True
        return joined
