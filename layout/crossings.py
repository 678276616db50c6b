"""Links between buildings: how many a placement makes, and how few the GPU fabric could make.

A link *crosses* when its two ends stand in racks of two different buildings (it then runs through the
campus ducts: layout/cable/trays.py). :func:`of` counts them per network and, for the backend (GPU)
fabric, states a lower bound that no placement of the same GPUs in the same buildings can beat:

- inside a pod the fabric is non-blocking: any permutation of the pod's GPUs runs at full rate, so the
  cut around building ``b`` carries at least ``min(g_bp, G_p - g_bp)`` of pod ``p``'s traffic, where
  ``g_bp`` is the NIC bandwidth of pod ``p``'s GPUs in ``b`` and ``G_p`` the pod's; every pod at once;
- between pods the top tier promises ``1/o`` of that (``o`` the oversubscription between pods): the cut
  around ``b`` carries at least ``min(g_b, G - g_b) / o``;
- a crossing link is in the cuts of exactly two buildings, so the links' capacity across buildings is at
  least half the sum over buildings of the larger of the two; divided by the rate of the fabric's
  switch-to-switch links this is ``bound_links``.

With the pod's upper tiers in the building that holds most of it (layout/place/assign.py), a pod of
which one building holds at least half crosses exactly the bound; else within twice it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.place import Placement


def device_building(fabric: Fabric, placement: Placement) -> np.ndarray:
    """The building number (its order in the site) of each device's rack; -1 for a device not placed."""
    racks = placement.racks
    _, codes = np.unique(racks["building"].to_numpy().astype(str), return_inverse=True)
    rack_b = np.asarray(codes, np.int64)
    dev_rack = np.asarray(placement.device_rack, np.int64)
    out = np.full(len(fabric.devices), -1, np.int64)
    ok = (dev_rack >= 0) & (dev_rack < len(rack_b))
    out[ok] = rack_b[dev_rack[ok]]
    return out


def of(fabric: Fabric, placement: Placement) -> dict[str, Any]:
    """summary.json's ``inter_building``: links whose ends stand in two buildings, per network and in
    all, and the backend's lower bound (module docstring)."""
    b = device_building(fabric, placement)
    links = fabric.links
    a_end = links["a"].to_numpy(np.int64)
    b_end = links["b"].to_numpy(np.int64)
    ba, bb = b[a_end], b[b_end]
    cross = (ba >= 0) & (bb >= 0) & (ba != bb)
    net = links["network"].to_numpy().astype(str)
    by_net = {str(n): int(cross[net == n].sum()) for n in sorted(set(net.tolist()))}
    backend = net == "backend"
    bound, rate = backend_bound(fabric, b)
    return {
        "links": int(cross.sum()),
        "by_network": by_net,
        "backend_links": int(cross[backend].sum()),
        "backend_bound_links": bound,
        "backend_link_gbps": rate,
    }


def backend_bound(fabric: Fabric, building: np.ndarray) -> tuple[int, float]:
    """The fewest backend links across buildings any placement of these GPUs in these buildings needs
    (module docstring), and the switch-to-switch link rate it is counted in."""
    links = fabric.links
    dev = fabric.devices
    server = (dev["role"] == "server").to_numpy()
    a = links["a"].to_numpy(np.int64)
    b = links["b"].to_numpy(np.int64)
    backend = (links["network"] == "backend").to_numpy()
    speed = links["speed_gbps"].to_numpy(float)
    nic = backend & (server[a] ^ server[b])
    sw = backend & ~server[a] & ~server[b]
    rate = (
        float(pd.Series(speed[sw]).mode().iloc[0])
        if sw.any()
        else (float(speed[nic].max()) if nic.any() else 0.0)
    )
    if not nic.any() or rate <= 0:
        return 0, rate
    srv = np.where(server[a[nic]], a[nic], b[nic])
    gbps = speed[nic]
    bno = building[srv]
    pod = dev["pod"].to_numpy(np.int64)[srv]
    ok = bno >= 0
    t = pd.DataFrame({"b": bno[ok], "p": pod[ok], "g": gbps[ok]})
    per_bp = t.groupby(["b", "p"])["g"].sum()
    pod_total = t.groupby("p")["g"].sum()
    per_b = t.groupby("b")["g"].sum()
    total = float(per_b.sum())
    o = float(fabric.oversubscription or 1.0) if fabric.pods > 1 else 1.0
    intra = dict.fromkeys(per_b.index.tolist(), 0.0)
    r = per_bp.reset_index()
    for bi, p, g in zip(r["b"].tolist(), r["p"].tolist(), r["g"].tolist(), strict=True):
        intra[bi] += min(float(g), float(pod_total[p]) - float(g))
    need = 0.0
    for bi, g in per_b.items():
        inter = min(float(g), total - float(g)) / o if fabric.pods > 1 else 0.0
        need += max(intra[bi], inter)
    return int(np.ceil(need / 2.0 / rate - 1e-9)), rate
