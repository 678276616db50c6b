"""Media by routed length, stock lengths, transceivers and module power: the catalog's media as arrays
(:class:`MediaTable`) and the per-device and per-medium counts the cabling stage makes with them.

Every threshold comes from the catalog (``[media.*].reach_m``, prices): a link gets the cheapest medium
that carries its speed and whose reach covers its routed length, priced as the whole link at that
medium's next stock length up (``MediaTable.link_price_usd``: module ends + cable, as layout.bom bills
them; media without stock lengths, such as coherent spliced on site, round up to the next
``UNSTOCKED_ROUND_M``). Equal prices go to the medium listed first. So single-mode FR4 (dearer modules,
cheaper fibre, stock from 600 m) takes over from DR4 once DR4's cable costs more than the difference:
beyond 300 m on the shipped catalog. A link no medium reaches is a ``reach`` violation.

Transceivers: an optical link needs a module at each end. On a switch a module carries
``switch.ports_per_cage`` links (twin-port OSFP: 2) of one medium; on a server a backend (gpu_leaf)
module carries ``nic.ports_per_module`` links (Cedar-7: 2), other server ports one each.

Module power (``module_w`` per device, ``module_power_w``): each module at its medium's figure for its
width (single-port, or twin-port per two links: ``Catalog.module_power_w``), plus each active-cable
(AEC) end at its medium's ``module_power_w``; passive copper draws nothing. A switch draws
``power_w_copper`` (all ports on passive copper) + its modules' watts, never above ``power_w_optics``
(its catalog maximum): layout.power.loads.switch_power_kw. So a QM9700 with 64 links on twin-port DR4 modules
draws 747 + 32 x 17 = 1,291 W, and a Q3400 leaf its 144 800G ports (288 400G links on 72 cages) at
2,500 + 144 x 17 = 4,948 W, not 400G links counted against 800G ports.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from layout.arrays import unique_counts
from layout.model import Catalog

UNSTOCKED_ROUND_M = 10.0


@dataclass(frozen=True)
class MediaTable:
    """The catalog's media as arrays, in catalog order."""

    ids: tuple[str, ...]
    classes: tuple[str, ...]
    reach_m: np.ndarray
    optical: np.ndarray
    area_mm2: np.ndarray
    stock: tuple[np.ndarray, ...]
    speeds: tuple[frozenset[int], ...]
    price_usd: np.ndarray
    price_usd_per_m: np.ndarray

    @classmethod
    def of(cls, catalog: Catalog) -> MediaTable:
        items = catalog.media_by_reach()
        return cls(
            ids=tuple(k for k, _ in items),
            classes=tuple(m.media_class for _, m in items),
            reach_m=np.array([m.reach_m for _, m in items], dtype=float),
            optical=np.array([m.optical for _, m in items], dtype=bool),
            area_mm2=np.array([np.pi * (m.diameter_mm / 2) ** 2 for _, m in items], dtype=float),
            stock=tuple(np.asarray(m.stock_lengths_m, dtype=float) for _, m in items),
            speeds=tuple(frozenset(m.speeds_gbps) for _, m in items),
            price_usd=np.array([m.price_usd for _, m in items], dtype=float),
            price_usd_per_m=np.array([m.price_usd_per_m for _, m in items], dtype=float),
        )

    def is_optical(self, code: np.ndarray) -> np.ndarray:
        """Per medium code (an index into ``ids``; -1: no medium, not optical): whether it is optical."""
        return np.r_[self.optical, False][code]

    def pick(
        self, length_m: np.ndarray, speed_gbps: np.ndarray | int = 400, optical_only: bool = False
    ) -> np.ndarray:
        """Index of the cheapest medium (``link_price_usd``) that carries the link's speed and whose reach
        covers its length, the first listed on equal prices; -1 where none does (or the length is NaN).
        ``optical_only``: among the optical media alone (links that have no copper assembly).

        Each distinct (speed, length) is priced once: a campus routes ~450,000 links over ~10,000 lengths.
        """
        length = np.asarray(length_m, dtype=float)
        length = np.where(np.isfinite(length), length, np.inf)
        speed = np.broadcast_to(np.asarray(speed_gbps), length.shape)
        out = np.full(len(length), -1, dtype=np.int64)
        speeds = pd.unique(speed.ravel())
        for sp in speeds:
            m = speed == sp if len(speeds) > 1 else slice(None)
            codes, uniq = pd.factorize(length[m])
            out[m] = self._cheapest(np.asarray(uniq, dtype=float), int(sp), optical_only)[codes]
        return out

    def _cheapest(self, length: np.ndarray, speed: int, optical_only: bool = False) -> np.ndarray:
        """``pick`` for links of one speed (lengths finite or inf)."""
        out = np.full(len(length), -1, dtype=np.int64)
        best = np.full(len(length), np.inf)
        for k in range(len(self.ids)):
            if speed not in self.speeds[k] or (optical_only and not self.optical[k]):
                continue
            ok = np.flatnonzero(length <= self.reach_m[k])
            if not len(ok):
                continue
            price = self.link_price_usd(length[ok], k)
            cheaper = price < best[ok]
            best[ok[cheaper]] = price[cheaper]
            out[ok[cheaper]] = k
        return out

    def link_price_usd(self, length_m: np.ndarray, k: int) -> np.ndarray:
        """What one link of medium ``k`` costs at each length: the catalog ``price_usd`` (the cable
        assembly, or both module ends) + ``price_usd_per_m`` x the next stock length up."""
        return self.price_usd[k] + self.price_usd_per_m[k] * self._stock_of(np.asarray(length_m, float), k)

    def _stock_of(self, length_m: np.ndarray, k: int) -> np.ndarray:
        """Medium ``k``'s next stock length at or above each length; beyond its longest stock length (or
        without any), the next ``UNSTOCKED_ROUND_M``."""
        stock = self.stock[k]
        longer = np.ceil(length_m / UNSTOCKED_ROUND_M) * UNSTOCKED_ROUND_M
        if not len(stock):
            return longer
        i = np.searchsorted(stock, length_m, side="left")
        return np.where(i < len(stock), stock[np.minimum(i, len(stock) - 1)], longer)

    def stock_length(self, length_m: np.ndarray, code: np.ndarray) -> np.ndarray:
        """The medium's next stock length at or above each length (NaN where there is no medium)."""
        out = np.full(len(length_m), np.nan)
        for k in range(len(self.stock)):
            m = code == k
            if m.any():
                out[m] = self._stock_of(length_m[m], k)
        return out


@dataclass(frozen=True)
class CableCounts:
    """Cables to buy as numbers: per (medium, stock length in mm) key (medium x 2^40 + mm, sorted), the
    count; and the per-link medium and stock length they were counted from, for the next run."""

    code: np.ndarray
    stock: np.ndarray
    keys: np.ndarray
    counts: np.ndarray


def _cable_keys(code: np.ndarray, stock: np.ndarray) -> np.ndarray:
    ok = code >= 0
    return code[ok].astype(np.int64) * (1 << 40) + np.round(stock[ok] * 1000).astype(np.int64)


def cable_counts(code: np.ndarray, stock: np.ndarray) -> CableCounts:
    """The cable counts of links with these media and stock lengths (links without a medium: none)."""
    keys, counts = unique_counts(_cable_keys(code, stock))
    return CableCounts(code, stock, keys, counts)


def _cable_counts(code: np.ndarray, stock: np.ndarray, mt: MediaTable) -> pd.DataFrame:
    return cable_table(cable_counts(code, stock), mt)


def cable_table(c: CableCounts, mt: MediaTable) -> pd.DataFrame:
    keys, counts = c.keys, c.counts
    return pd.DataFrame(
        {
            "media": np.array(mt.ids, dtype=object)[keys >> 40],
            "stock_length_m": (keys & ((1 << 40) - 1)) / 1000.0,
            "count": counts.astype(np.int64),
        }
    )


def optical_ports(devices: pd.DataFrame, links: pd.DataFrame, code: np.ndarray, mt: MediaTable) -> np.ndarray:
    """Optical link ends per device."""
    opt = mt.is_optical(code)
    n = len(devices)
    a = np.bincount(links["a"].to_numpy(np.int64)[opt], minlength=n)
    return (a + np.bincount(links["b"].to_numpy(np.int64)[opt], minlength=n)).astype(np.int64)


def module_power_w(
    devices: pd.DataFrame,
    links: pd.DataFrame,
    code: np.ndarray,
    mt: MediaTable,
    catalog: Catalog,
    modules: pd.DataFrame,
) -> np.ndarray:
    """Watts per device of its transceiver modules (each at its medium and width) and of its
    active-cable ends (a copper medium's ``module_power_w`` per link end; passive DAC: 0)."""
    n = len(devices)
    out = np.zeros(n)
    if len(modules):
        mcode, mids = pd.factorize(modules["media"])
        width = modules["links_per_module"].to_numpy(np.int64)
        span = int(width.max()) + 1
        key = mcode * span + width
        watts = np.zeros(len(mids) * span)  # per (medium, width) present: Catalog.module_power_w
        for k in np.flatnonzero(np.bincount(key, minlength=len(watts))).tolist():
            watts[k] = catalog.module_power_w(str(mids[k // span]), k % span)
        per = watts[key] * modules["modules"].to_numpy(float)
        out += np.bincount(modules["device"].to_numpy(np.int64), weights=per, minlength=n)
    # active copper ends: a copper medium's figure per end (code -1, no medium: the appended 0)
    end_tab = np.array(
        [0.0 if o else catalog.media[m].module_power_w for m, o in zip(mt.ids, mt.optical, strict=True)]
    )
    end_w = np.r_[end_tab, 0.0][code]
    cu = np.flatnonzero(end_w > 0)
    if len(cu):
        for end in ("a", "b"):
            out += np.bincount(links[end].to_numpy(np.int64)[cu], weights=end_w[cu], minlength=n)
    return out
