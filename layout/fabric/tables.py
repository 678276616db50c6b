"""The device and link tables of a fabric, accumulated as column arrays while building, and device ids."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from layout.fabric.model import DEVICE_COLUMNS, LINK_COLUMNS, LINK_KINDS, NETWORKS


@dataclass
class Tables:
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


def device_ids(prefix: str, *parts: tuple[str, np.ndarray]) -> list[str]:
    """Zero-padded ids such as be-leaf-p0-u012-r5 (parts with value -1 are left out)."""
    cols = []
    for tag, values in parts:
        width = len(str(max(int(values.max()), 0))) if len(values) else 1
        cols.append([f"-{tag}{v:0{width}d}" if v >= 0 else "" for v in values.tolist()])
    return [prefix + "".join(p) for p in zip(*cols, strict=True)] if cols else []
