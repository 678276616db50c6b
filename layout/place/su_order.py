"""``hall.su_order``: the order a hall's SUs are laid in (written by ``dclayout optimize``'s assignment
step, layout.engine.assign; a user may set it too). Without it, a hall lays its SUs in SU order.

An SU is named by its pod and number, ``"p0-u03"`` (as in the leaf ids ``be-leaf-p0-u03-r0``; the
number is the fabric's ``su``, or its ``group`` for middle-of-rack, where a group of rack leaves is the
placement block). The hall's SUs (those the placer gives it, and any that spilled over from the hall
before) are laid in the order of the list; SUs not listed follow in their own order; listed SUs that
stand in another hall are passed over. The loader refuses an SU listed twice (layout.load); the fabric
check refuses an SU the cluster does not have (:func:`problems`, called by layout.design.check, so
``validate`` and ``design`` agree).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from layout.errors import InputError, Problem
from layout.model.site import su_number

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.load import Inputs
    from layout.model import Hall


def block_column(fabric: Fabric) -> str:
    """The devices column that numbers the placement blocks: ``su`` (rail), else ``group``."""
    return "su" if fabric.design == "rail" and "su" in fabric.devices.columns else "group"


def su_keys(fabric: Fabric) -> list[tuple[int, int]]:
    """(pod, SU number) of every placement block, in the placer's SU order (pod, then number)."""
    dev = fabric.devices
    srv = (dev["role"] == "server").to_numpy()
    pod = dev["pod"].to_numpy(np.int64)[srv]
    num = dev[block_column(fabric)].to_numpy(np.int64)[srv]
    if not len(pod):
        return []
    pairs = np.unique(np.stack([pod, num], axis=1), axis=0)
    return [(int(p), int(u)) for p, u in pairs.tolist()]


def su_label(key: tuple[int, int], width: int = 2) -> str:
    """``(0, 3)`` as ``"p0-u03"`` (the SU number zero-padded to ``width`` digits, as in device ids)."""
    return f"p{key[0]}-u{key[1]:0{width}d}"


def label_width(keys: list[tuple[int, int]]) -> int:
    """Digits of the SU numbers in the device ids (the widest number)."""
    return len(str(max((u for _, u in keys), default=0)))


def order_of(hall: Hall, keys: list[tuple[int, int]]) -> dict[int, int] | None:
    """The rank of each listed SU (placer SU index -> place in the hall's list), or None without an
    order; SUs the cluster does not have are left out (:func:`problems` refuses them first)."""
    if not hall.su_order:
        return None
    index = {k: i for i, k in enumerate(keys)}
    out: dict[int, int] = {}
    for rank, text in enumerate(hall.su_order):
        i = index.get(su_number(text))
        if i is not None:
            out.setdefault(i, rank)
    return out


def ordered(sus: list[int], rank: dict[int, int] | None) -> list[int]:
    """``sus`` with the listed ones first, in the list's order, then the rest as they were."""
    if rank is None:
        return sus
    listed = sorted((s for s in sus if s in rank), key=lambda s: rank[s])
    return listed + [s for s in sus if s not in rank]


def problems(inputs: Inputs, fabric: Fabric) -> None:
    """Refuse (InputError) an ``su_order`` that names an SU the cluster does not have."""
    keys: list[tuple[int, int]] | None = None
    p: list[Problem] = []
    for bi, b in enumerate(inputs.site.building):
        for hi, h in enumerate(b.hall):
            if not h.su_order:
                continue
            if keys is None:
                keys = su_keys(fabric)
            have = set(keys)
            for k, text in enumerate(h.su_order):
                if su_number(text) not in have:
                    p.append(
                        Problem(
                            str(inputs.path),
                            f"building[{bi}].hall[{hi}].su_order[{k}]",
                            f'the cluster has no SU "{text}"',
                            _known(keys),
                        )
                    )
    if p:
        raise InputError(p)


def _known(keys: list[tuple[int, int]]) -> str:
    """The cluster's SUs, one range per pod (the first four pods)."""
    w = label_width(keys)
    pods: dict[int, list[int]] = {}
    for pod, u in keys:
        pods.setdefault(pod, []).append(u)
    parts = [
        su_label((p, min(u)), w) + (f"..{su_label((p, max(u)), w)}" if max(u) > min(u) else "")
        for p, u in sorted(pods.items())
    ]
    more = ", ..." if len(parts) > 4 else ""
    return ", ".join(parts[:4]) + more if parts else "none: the cluster has no SUs"
