"""Media by routed length, stock lengths, transceivers, switch power and tray fill; ``cable()`` runs the
whole cabling stage (trays -> routes -> media -> fill) for layout.design.

Every threshold comes from the catalog (``[media.*].reach_m``, prices): a link gets the cheapest medium
that carries its speed and whose reach covers its routed length, priced as the whole link at that
medium's next stock length up (``MediaTable.link_price_usd``: module ends + cable, as layout.bom bills
them; media without stock lengths, such as coherent spliced on site, round up to the next
``UNSTOCKED_ROUND_M``). Equal prices go to the medium listed first. So single-mode FR4 (dearer modules,
cheaper fibre, stock from 600 m) takes over from DR4 once DR4's cable costs more than the difference:
beyond 300 m on the shipped catalog. A link no medium reaches is a ``reach`` violation.

Jumpers: a link inside one rack is always a jumper; a link between neighbouring racks of a row is a
jumper through the side panels when its jumper length gets a copper (non-optical) medium, otherwise it
is routed along the trays like every other link.

Transceivers: an optical link needs a module at each end. On a switch a module carries
``switch.ports_per_cage`` links (twin-port OSFP: 2) of one medium; on a server a backend (gpu_leaf)
module carries ``nic.ports_per_module`` links (Cedar-7: 2), other server ports one each.

Module power (``module_w`` per device, ``module_power_w``): each module at its medium's figure for its
width (single-port, or twin-port per two links: ``Catalog.module_power_w``), plus each active-cable
(AEC) end at its medium's ``module_power_w``; passive copper draws nothing. A switch draws
``power_w_copper`` (all ports on passive copper) + its modules' watts, never above ``power_w_optics``
(its catalog maximum): layout.power.switch_power_kw. So a QM9700 with 64 links on twin-port DR4 modules
draws 747 + 32 x 17 = 1,291 W, and a Q3400 leaf its 144 800G ports (288 400G links on 72 cages) at
2,500 + 144 x 17 = 4,948 W, not 400G links counted against 800G ports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from layout import ports as portlib
from layout import power as powerlib
from layout import route as routing
from layout import trays as traylib
from layout.arrays import unique_counts, unique_inverse
from layout.kept import Content, Kept
from layout.load import Inputs
from layout.model import Catalog
from layout.model.catalog import MEDIA_CLASSES
from layout.violations import Violation

UNSTOCKED_ROUND_M = 10.0
STATUS = ("ok", "unplaced", "no_tray", "no_path", "reach")
ROUTES = ("", "rack", "adjacent", "tray")  # no route, in-rack jumper, adjacent-rack jumper, along the trays


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

    def pick(self, length_m: np.ndarray, speed_gbps: np.ndarray | int = 400) -> np.ndarray:
        """Index of the cheapest medium (``link_price_usd``) that carries the link's speed and whose reach
        covers its length, the first listed on equal prices; -1 where none does (or the length is NaN).

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
            out[m] = self._cheapest(np.asarray(uniq, dtype=float), int(sp))[codes]
        return out

    def _cheapest(self, length: np.ndarray, speed: int) -> np.ndarray:
        """``pick`` for links of one speed (lengths finite or inf)."""
        out = np.full(len(length), -1, dtype=np.int64)
        best = np.full(len(length), np.inf)
        for k in range(len(self.ids)):
            if speed not in self.speeds[k]:
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
class Cabling:
    """Everything the cabling stage decides. Tables are aligned with the fabric's and placement's.

    ``links``: the fabric's links plus rack_a, rack_b, route (``rack``/``adjacent`` jumper, ``tray``,
    or ``""`` without a route), tray_m (run along the trays), length_m (routed, before rounding), media,
    media_class, stock_length_m, status (STATUS).
    ``edge_fill``: per tray edge (trays.edges order): cables, peak_area_mm2, capacity_mm2, fill (peak
    over width x depth), over (bool), and ``cables_<media id>``.
    ``link_optical``: per link, True when its medium is optical (links without a medium: True when they
    leave the rack), for ``power.check(..., link_optical=...)``.
    ``switch_power_kw``/``optical_ports``: per device (NaN / 0 for devices that are not catalog switches).
    ``module_w``: per device, watts of its transceiver modules and active-cable ends (``module_power_w``).
    ``modules``: transceiver modules per device and medium (device, end ``switch``/``server``, media,
    links, links_per_module, modules). ``cables``: cables to buy per medium and stock length (media, stock_length_m, count).
    """

    trays: traylib.Trays
    links: pd.DataFrame
    edge_fill: pd.DataFrame
    link_optical: np.ndarray
    switch_power_kw: np.ndarray
    optical_ports: np.ndarray
    modules: pd.DataFrame
    cables: pd.DataFrame
    violations: list[Violation] = field(default_factory=list)
    module_w: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ports: portlib.PortMap | None = None  # every link end's port and cage (layout.ports)

    def backend_copper(self) -> tuple[int, int]:
        """(copper, all) links of the GPU fabric that have a medium: see :func:`backend_copper`."""
        return backend_copper(self.links)

    def media_counts(self) -> dict[str, int]:
        """Links per media class (summary.json ``media``)."""
        by = self.links["media_class"].value_counts()
        return {c: int(by.get(c, 0)) for c in MEDIA_CLASSES}

    def transceivers(self) -> dict[str, int]:
        """Transceiver modules per medium id (both ends)."""
        by = self.modules.groupby("media", sort=True)["modules"].sum()
        return {str(k): int(v) for k, v in by.items()}

    def node_optics(self) -> int:
        """Server-side modules on backend (GPU-to-leaf) links: seed 000's 'node-side optics'."""
        m = self.modules
        return int(m.loc[(m["end"] == "server") & m["backend"], "modules"].sum())

    def cable_length_m(self) -> dict[str, Any]:
        """Cable to buy (stock lengths), total, longest and per medium (summary.json ``cable_length_m``)."""
        s = self.links["stock_length_m"]
        by = self.links.groupby("media", sort=True, observed=True)["stock_length_m"].sum()
        return {
            "total": round(float(np.nansum(s)), 3),
            "max": round(float(np.nanmax(s)) if s.notna().any() else 0.0, 3),
            "by_media": {str(k): round(float(v), 3) for k, v in by.items() if str(k)},
        }

    def summary(self) -> dict[str, Any]:
        copper, backend = self.backend_copper()
        return {
            "media": self.media_counts(),
            "copper_share_pct": copper_share_pct(copper, backend),
            "cable_length_m": self.cable_length_m(),
            "transceivers": self.transceivers(),
            "node_optics": self.node_optics(),
            "tray_m": self.trays.tray_m(),
            **({"ports": self.ports.summary()} if self.ports is not None else {}),
        }


COPPER_LINK_CLASSES = ("dac", "aec")  # copper of the copper share: the twinax cables of the GPU fabric


def backend_copper(links: pd.DataFrame) -> tuple[int, int]:
    """The copper share's two counts: links of the GPU (backend) fabric on copper (DAC or AEC), and all
    backend links that have a medium (a link without a route has none). The frontend, storage and
    management networks do not count: their copper (UTP, short DAC) says nothing of the GPU fabric."""
    backend = _is_in(links["network"], ("backend",))
    with_medium = backend & ~_is_in(links["media_class"], ("",))
    return int((with_medium & _is_in(links["media_class"], COPPER_LINK_CLASSES)).sum()), int(
        with_medium.sum()
    )


def _is_in(column: pd.Series, values: tuple[str, ...]) -> np.ndarray:
    """Whether each value of a column is one of ``values``; a categorical column by its codes (not as
    450,000 strings: ~0.1 s per campus summary), a missing value never."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        names = np.asarray(column.cat.categories, dtype=object)
        hit = np.r_[np.isin(names, values), False]  # code -1 (missing): the appended False
        return hit[column.cat.codes.to_numpy()]
    return np.isin(column.to_numpy(), values)


def copper_share_pct(copper: int, links: int) -> float:
    """The one copper share every output shows (summary.json ``copper_share_pct``, the PDF, ``compare``):
    per cent of the GPU fabric's links with a medium that are copper, to 2 decimals; 0 without links."""
    return round(100.0 * copper / links, 2) if links else 0.0


def cable(inputs: Inputs, fabric: Any, placement: Any, cache: CableCache | None = None) -> Cabling:
    """Lay the trays, route every link, pick its medium and stock length, count modules, switch power
    and tray fill, and report what breaks the rules. ``cache``: what earlier runs kept for later ones
    (:class:`CableCache`); the cabling is the same with or without it."""
    if cache is None:
        return _cable(inputs, fabric, placement, None)
    key = tuple(cabling_key(inputs, fabric, placement).values())
    return cache.cablings.take(key, lambda: _cable(inputs, fabric, placement, cache))


def cabling_key(inputs: Inputs, fabric: Any, placement: Any) -> dict[str, Any]:
    """Everything the cabling stage reads, by name (a cache keeps a Cabling by all of it): the fabric
    (the very object: immutable), the catalog, the rack heights, where the buildings, their entries and
    the halls' trays are (polygon, tray spec, cross aisle), the ducts and tray edits, and the placement's
    tables. Not the halls' power, cooling or floor load, which the cabling never reads: an edit of those
    re-cables nothing."""
    site = inputs.site
    return {
        "fabric": fabric,
        "catalog": inputs.catalog,
        "rack_heights": sorted((t, tpl.height_ru) for t, tpl in inputs.templates.items()),
        "buildings": [(b.id, b.footprint, b.entry) for b in site.building],
        "halls": [(b.id, h.id, h.polygon, h.tray, h.cross_aisle_m) for b, h in site.halls()],
        "ducts": list(site.duct),
        "tray_block": list(site.tray_block),
        "tray_add": list(site.tray_add),
        "placement": Content(placement.racks, placement.rows, placement.device_rack, placement.device_ru),
    }


def _cable(inputs: Inputs, fabric: Any, placement: Any, cache: CableCache | None) -> Cabling:
    catalog = inputs.catalog
    trays = traylib.build(inputs, placement, cache.tray_halls if cache is not None else None)
    mt = MediaTable.of(catalog)
    links: pd.DataFrame = fabric.links
    devices: pd.DataFrame = fabric.devices
    racks: pd.DataFrame = placement.racks
    rack_h = traylib.rack_height_ru(racks, inputs) if len(racks) else np.zeros(0)
    ends = routing.link_ends(links, placement, rack_h)
    n = len(links)

    # jumpers: in-rack always; neighbouring racks when the jumper gets copper
    speed = links["speed_gbps"].to_numpy()
    jcode = np.full(n, -1, dtype=np.int64)
    cand = ends.jumper != routing.JUMPER_NONE
    jcode[cand] = mt.pick(ends.jumper_length_m[cand], speed[cand])
    copper = np.r_[~mt.optical, False][jcode]  # a medium that is not optical (code -1: none, not copper)
    is_jumper = (ends.jumper == routing.JUMPER_RACK) | ((ends.jumper == routing.JUMPER_ADJACENT) & copper)
    placed = ends.placed
    need = placed & ~is_jumper
    ti = np.nonzero(need)[0]
    ra, rb = ends.rack_a[ti], ends.rack_b[ti]
    paths = routing.tray_paths(trays, ra, rb)
    run = paths.dist_m[paths.pair]
    # the drop from the tray to the port at each end, once per device (a placed device's rack's tray)
    dev_drop = np.abs(trays.rack_z_m[ends.device_rack] - ends.device_z_m) if len(trays.rack_z_m) else None
    drops = (
        dev_drop[ends.device_a[ti]] + dev_drop[ends.device_b[ti]]
        if dev_drop is not None
        else np.zeros(len(ti))
    )
    tray_len = run + drops + routing.SLACK_M["tray"]

    length = np.full(n, np.nan)
    tray_m = np.full(n, np.nan)
    length[is_jumper] = ends.jumper_length_m[is_jumper]
    tray_m[is_jumper] = 0.0
    length[ti] = np.where(np.isfinite(tray_len), tray_len, np.nan)
    tray_m[ti] = np.where(np.isfinite(paths.dist_m), paths.dist_m, np.nan)[paths.pair]
    length = np.round(length, 6)  # no float dust at stock-length and reach boundaries
    earlier = cache.picks.get(link_memo_key(fabric, catalog)) if cache is not None else None
    picked = pick_again(mt, length, speed, earlier.pick if earlier is not None else None)
    code = picked.copy()
    status = np.zeros(n, dtype=np.int8)
    status[~placed] = STATUS.index("unplaced")
    no_tray = np.zeros(n, dtype=bool)
    # per rack pair, then per link (a pair's two racks are its links' two ends)
    pair_no_tray = (trays.rack_edge[paths.src_rack] < 0) | (trays.rack_edge[paths.dst_rack] < 0)
    no_tray[ti] = pair_no_tray[paths.pair]
    status[no_tray] = STATUS.index("no_tray")
    no_path = np.zeros(n, dtype=bool)
    no_path[ti] = (~np.isfinite(paths.dist_m) & ~pair_no_tray)[paths.pair]
    status[no_path] = STATUS.index("no_path")
    reach = np.isfinite(length) & (code < 0)
    status[reach] = STATUS.index("reach")
    code[status != 0] = -1
    code.flags.writeable = length.flags.writeable = False  # kept by the port map (ports.finish)
    # ports and cages: one medium per cage (the longest link sharing it decides), copper assemblies
    rack_ids = racks["rack_id"].to_numpy() if len(racks) else np.zeros(0, dtype=object)
    runs = cache.ports.get(link_memo_key(fabric, catalog)) if cache is not None else None
    port_map = portlib.finish(
        port_skeleton(fabric, catalog, cache),
        devices,
        code,
        length,
        ends.rack_a,
        ends.rack_b,
        mt,
        rack_ids,
        earlier=runs.port_map if runs is not None else None,
    )
    code = port_map.code
    stock = stock_again(mt, port_map.stock_basis_m, code, earlier.stock if earlier is not None else None)
    stock.flags.writeable = False  # kept (the links table, the counts): nothing may change it
    counts = cable_counts_again(code, stock, earlier.counts if earlier is not None else None)
    if cache is not None:
        cache.picks.put(
            link_memo_key(fabric, catalog),
            LinkPicks(
                pick=ElementMemo((length, speed), picked),
                stock=ElementMemo((port_map.stock_basis_m.copy(), code.copy()), stock),
                counts=counts,
            ),
        )

    route_code = np.zeros(n, dtype=np.int8)  # ROUTES
    route_code[is_jumper & (ends.jumper == routing.JUMPER_RACK)] = 1
    route_code[is_jumper & (ends.jumper == routing.JUMPER_ADJACENT)] = 2
    route_code[ti if np.isfinite(paths.dist_m).all() else ti[np.isfinite(run)]] = 3
    none = len(mt.ids)
    mcode = np.where(code >= 0, code, none)
    classes = sorted(set(mt.classes)) + [""]
    for arr in (ends.rack_a, ends.rack_b, tray_m, length, stock):
        arr.flags.writeable = False  # the table holds these very arrays (below): nothing may change them
    # one table, built once and not copied: one block per column (consolidating the 450,000-row columns
    # into 2-D blocks copied ~35 MB into fresh pages, ~20 ms a design on the campus)
    out = pd.DataFrame(
        {
            **{c: links[c] for c in links.columns},
            "rack_a": ends.rack_a,
            "rack_b": ends.rack_b,
            "route": pd.Categorical.from_codes(route_code, categories=pd.Index(ROUTES), validate=False),
            "tray_m": tray_m,
            "length_m": length,
            "media": pd.Categorical.from_codes(mcode, categories=pd.Index([*mt.ids, ""]), validate=False),
            "media_class": pd.Categorical.from_codes(
                np.array([classes.index(c) for c in (*mt.classes, "")])[mcode], categories=pd.Index(classes)
            ),
            "stock_length_m": stock,
            "status": pd.Categorical.from_codes(status, categories=pd.Index(STATUS), validate=False),
        },
        copy=False,
    )

    # tray fill (cables on trays only; media index len(ids) = links without a medium)
    k = len(mt.ids) + 1
    tcode = code[ti]
    tcode = np.where(tcode >= 0, tcode, len(mt.ids))
    area = np.r_[mt.area_mm2, 0.0][tcode]
    load = routing.edge_loads(trays, paths, area, tcode, k)
    edge_fill = _edge_fill(trays, load, mt)

    module_rows = port_map.module_rows(mt, runs.module_rows if runs is not None else None)
    modules = module_rows.table(devices, mt)  # as plugged: one per optical cage
    if cache is not None:
        cache.ports.put(link_memo_key(fabric, catalog), PortRuns(port_map, module_rows))
    module_w = module_power_w(devices, links, code, mt, catalog, modules)
    optical_ports = _optical_ports(devices, links, code, mt)
    power_kw = powerlib.switch_power_kw(catalog, devices, module_w)
    cables = _cable_table(counts, mt)
    violations = [
        *trays.violations,
        *_link_violations(out, racks, devices, placement, inputs),
        *_fill_violations(trays, edge_fill),
        *port_map.violations,
    ]
    return Cabling(
        trays=trays,
        links=out,
        edge_fill=edge_fill,
        link_optical=np.where(code >= 0, mt.is_optical(code), ends.rack_a != ends.rack_b),
        switch_power_kw=power_kw,
        optical_ports=optical_ports,
        modules=modules,
        cables=cables,
        violations=violations,
        module_w=module_w,
        ports=port_map,
    )


@dataclass(frozen=True)
class ElementMemo:
    """One run's inputs and outputs of a per-link function (aligned arrays): the next run takes the
    output of every link whose inputs are bitwise the same, and computes the rest."""

    inputs: tuple[np.ndarray, ...]
    output: np.ndarray

    def same(self, inputs: tuple[np.ndarray, ...]) -> np.ndarray | None:
        """Per link, whether its inputs equal this memo's (None: not comparable, e.g. another fabric's
        links). NaN is never the same, so it is computed again."""
        moved = self.moved(inputs)
        return None if moved is None else ~moved

    def moved(self, inputs: tuple[np.ndarray, ...]) -> np.ndarray | None:
        """Per link, whether some input differs from this memo's (NaN always does); None as ``same``."""
        if len(inputs) != len(self.inputs) or any(
            a.shape != b.shape or a.dtype != b.dtype for a, b in zip(inputs, self.inputs, strict=True)
        ):
            return None
        if not inputs:
            return np.zeros(len(self.output), dtype=bool)
        moved = np.asarray(inputs[0] != self.inputs[0])
        for a, b in zip(inputs[1:], self.inputs[1:], strict=True):
            moved |= a != b
        return moved


@dataclass(frozen=True)
class LinkPicks:
    """A cabling's per-link media picks and stock lengths, and its cable counts, for the next run of the
    same catalog."""

    pick: ElementMemo  # (length_m, speed_gbps) -> medium index (MediaTable.pick)
    stock: ElementMemo  # (stock_basis_m, medium index after cage sharing) -> stock length
    counts: CableCounts  # (medium index, stock length) -> cables per medium and stock length


def pick_again(
    mt: MediaTable, length_m: np.ndarray, speed_gbps: np.ndarray, earlier: ElementMemo | None
) -> np.ndarray:
    """``mt.pick(length_m, speed_gbps)``, taking each link's medium from ``earlier`` (the same catalog's
    last picks) where its length and speed are the same: ``pick`` is a function of each link's own
    length and speed, so the result is the same; a one-hall edit re-picks only the links it moved."""
    return _again(lambda m: mt.pick(length_m[m], speed_gbps[m]), (length_m, speed_gbps), earlier)


def stock_again(
    mt: MediaTable, basis_m: np.ndarray, code: np.ndarray, earlier: ElementMemo | None
) -> np.ndarray:
    """``mt.stock_length(basis_m, code)`` with ``earlier``'s stock length wherever basis and medium are
    the same (a function of each link's own two values, as ``pick_again``)."""
    return _again(lambda m: mt.stock_length(basis_m[m], code[m]), (basis_m, code), earlier)


def _again(
    compute: Callable[[np.ndarray | slice], np.ndarray],
    inputs: tuple[np.ndarray, ...],
    earlier: ElementMemo | None,
) -> np.ndarray:
    moved = earlier.moved(inputs) if earlier is not None else None
    if earlier is None or moved is None:
        return compute(slice(None))
    out = earlier.output.copy()
    todo = np.flatnonzero(moved)
    if len(todo):
        out[todo] = compute(todo)
    return out


@dataclass(frozen=True)
class PortRuns:
    """The last run's port map and module rows of one fabric, for the next run's ``ports.finish`` and
    ``PortMap.module_rows`` (``earlier``): they take whatever the links and cages the run did not
    change give (each checks it was made from the very same port skeleton)."""

    port_map: portlib.PortMap
    module_rows: portlib.ModuleRows


def link_memo_key(fabric: Any, catalog: Catalog) -> tuple[Any, Catalog]:
    """What a run's per-link memos (:class:`LinkPicks`, :class:`PortRuns`) are kept by: the fabric (the
    very object: its links are the memos' rows) and the catalog (its media)."""
    return (fabric, catalog)


# the last run's picks and port map of each of the last two fabrics: an edit compares with the design it
# changes, also after a fabric toggled and undone (rail -> middle-of-rack -> undo -> an edit of a hall:
# with one memo, that edit found the other fabric's and priced and ported all 450,000 links again)
PICKS_KEPT = 2
PORT_RUNS_KEPT = 2
PORT_SKELETONS_KEPT = 4  # as many as the fabrics a DesignCache keeps
CABLINGS_KEPT = 2  # the design shown and the one before (undo and redo show a recent design anyway)


@dataclass(eq=False)
class CableCache:
    """What the cabling stage keeps from one run for the next when given a cache (the TUI's
    :class:`layout.cache.DesignCache`): the last cablings, by all they are made from
    (:func:`cabling_key`: an edit of a hall's power or cooling that moves no rack re-cables nothing), and
    each fabric's port skeleton (layout.ports: every end's port and cage, which links share a cage), by
    the fabric (compared as the very object: a fabric is immutable), the catalog and the NIC; and the
    last run's media picks and stock lengths per link (:class:`LinkPicks`, by the fabric and catalog: the
    last two fabrics'), which the
    next run takes for every link whose length and speed (basis and medium) are bitwise the same: both
    are functions of a link's own values, so only the links an edit moved are priced again; and the
    last run's port map and module rows (:class:`PortRuns`, likewise), from which
    ``ports.finish`` takes every cage-sharing component whose links' codes and lengths are the same and
    ``PortMap.module_rows`` every device whose cages' media are; and each hall's piece of the tray
    network (layout.trays.HallTrays, by all it is made from: ``trays.hall_trays_key``), so an edit of
    one hall lays that hall's trays alone. Without one, a cabling keeps nothing."""

    cablings: Kept[tuple[Any, ...], Cabling] = field(default_factory=lambda: Kept(CABLINGS_KEPT))
    skeletons: Kept[tuple[Any, Catalog, str], portlib.PortSkeleton] = field(
        default_factory=lambda: Kept(PORT_SKELETONS_KEPT)
    )
    picks: Kept[tuple[Any, Catalog], LinkPicks] = field(default_factory=lambda: Kept(PICKS_KEPT))
    ports: Kept[tuple[Any, Catalog], PortRuns] = field(default_factory=lambda: Kept(PORT_RUNS_KEPT))
    tray_halls: Kept[tuple[Any, ...], traylib.HallTrays] = field(
        default_factory=lambda: Kept(traylib.HALL_TRAYS_KEPT)
    )


def port_skeleton(fabric: Any, catalog: Catalog, cache: CableCache | None = None) -> portlib.PortSkeleton:
    """The fabric's port skeleton, kept in ``cache`` (if given) by the fabric, catalog and NIC."""
    nic = getattr(fabric, "nic", "")
    if cache is None:
        return portlib.skeleton(fabric.devices, fabric.links, catalog, nic)
    key = (fabric, catalog, nic)
    return cache.skeletons.take(key, lambda: portlib.skeleton(fabric.devices, fabric.links, catalog, nic))


def _edge_fill(trays: traylib.Trays, load: routing.EdgeLoad, mt: MediaTable) -> pd.DataFrame:
    e = trays.edges
    # the whole cross-section (every stacked level; a duct's conduit bores): fill is over it, so
    # ``over`` is exactly ``fill > fill_limit``
    gross = (e["capacity_mm2"] / e["fill_limit"]).to_numpy(float)
    peak = np.round(load.peak_area_mm2, 3)
    capacity = e["capacity_mm2"].to_numpy()
    # one table made at once (adding the ~10 columns one by one re-made its blocks each time)
    fill = pd.DataFrame(
        {
            "kind": e["kind"],
            "hall": e["hall"],
            "where": e["where"],
            "length_m": e["length_m"],
            "cables": load.cables[:, : len(mt.ids)].sum(axis=1).round().astype(np.int64),
            "peak_area_mm2": peak,
            "peak_at_m": np.round(load.peak_at_m, 3),
            "capacity_mm2": e["capacity_mm2"],
            "fill": np.round(load.peak_area_mm2 / gross, 6),
            "fill_limit": e["fill_limit"],
            "over": peak > capacity + 1e-6,
            **{f"cables_{mid}": load.cables[:, i].round().astype(np.int64) for i, mid in enumerate(mt.ids)},
        }
    )
    return fill


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


def cable_counts_again(code: np.ndarray, stock: np.ndarray, earlier: CableCounts | None) -> CableCounts:
    """The cable counts of links with these media and stock lengths. ``earlier``: the counts of an
    earlier run's links (same catalog), or None: the counts are sums over links, so only the links whose
    medium or stock length differ are taken out of ``earlier``'s counts (at their old key) and put in
    again (at their new one); whole numbers, so the result is exactly a fresh count."""
    if (
        earlier is None
        or earlier.code.shape != code.shape
        or earlier.stock.shape != stock.shape
        or earlier.code.dtype != code.dtype
    ):
        keys, counts = unique_counts(_cable_keys(code, stock))
        return CableCounts(code, stock, keys, counts)
    # a link without a medium (on both runs) is counted in neither, whatever its stock length (NaN)
    moved = np.flatnonzero((code != earlier.code) | ((code >= 0) & ~(stock == earlier.stock)))
    if not len(moved):
        return CableCounts(code, stock, earlier.keys, earlier.counts)
    k_out, c_out = unique_counts(_cable_keys(earlier.code[moved], earlier.stock[moved]))
    k_in, c_in = unique_counts(_cable_keys(code[moved], stock[moved]))
    keys, at = unique_inverse(np.r_[earlier.keys, k_in, k_out])
    counts = np.bincount(at, weights=np.r_[earlier.counts, c_in, -c_out], minlength=len(keys))
    counts = np.round(counts).astype(np.int64)
    left = counts > 0
    return CableCounts(code, stock, keys[left], counts[left])


def _cable_counts(code: np.ndarray, stock: np.ndarray, mt: MediaTable) -> pd.DataFrame:
    return _cable_table(cable_counts_again(code, stock, None), mt)


def _cable_table(c: CableCounts, mt: MediaTable) -> pd.DataFrame:
    keys, counts = c.keys, c.counts
    return pd.DataFrame(
        {
            "media": np.array(mt.ids, dtype=object)[keys >> 40],
            "stock_length_m": (keys & ((1 << 40) - 1)) / 1000.0,
            "count": counts.astype(np.int64),
        }
    )


def _optical_ports(
    devices: pd.DataFrame, links: pd.DataFrame, code: np.ndarray, mt: MediaTable
) -> np.ndarray:
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


def _link_violations(
    out: pd.DataFrame, racks: pd.DataFrame, devices: pd.DataFrame, placement: Any, inputs: Inputs
) -> list[Violation]:
    """One violation per (problem, row of the a end) so every link without a route is accounted for."""
    res: list[Violation] = []
    bad = out[out["status"] != "ok"]
    if bad.empty:
        return res
    rows = racks["row"].to_numpy() if len(racks) else np.zeros(0, dtype=object)
    bldg = racks["building"].to_numpy() if len(racks) else np.zeros(0, dtype=object)
    ducts = {frozenset((d.from_, d.to)) for d in inputs.site.duct}
    for status, grp in bad.groupby("status", observed=True, sort=True):
        if status == "unplaced":
            for kind, kg in grp.groupby("kind", sort=True):
                devs = np.unique(np.r_[kg["a"][kg["rack_a"] < 0], kg["b"][kg["rack_b"] < 0]])
                res.append(
                    Violation(
                        "no_path",
                        "site",
                        f"{len(kg)} {kind} links have an end on a device that is not placed "
                        f"({len(devs)} devices, e.g. {devices['device_id'].iloc[int(devs[0])]})",
                        "give the placer room for every rack (see the placement's violations)",
                        {"links": len(kg), "devices": len(devs)},
                    )
                )
            continue
        ra = grp["rack_a"].to_numpy()
        rb = grp["rack_b"].to_numpy()
        row_a = rows[ra]
        for r in sorted(set(row_a.tolist())):
            m = row_a == r
            n = int(m.sum())
            far = sorted(set(rows[rb[m]].tolist()))
            if status == "no_tray":
                msg = f"{n} links from row {r} reach racks with no tray above them (a tray_block removed it)"
                kind, tip = "no_path", "move the tray_block or add a tray_add over the row"
            elif status == "no_path":
                b1, b2 = bldg[ra[m][0]], bldg[rb[m][0]]
                why = (
                    f"no [[duct]] joins buildings {b1} and {b2}"
                    if b1 != b2 and frozenset((b1, b2)) not in ducts and not _campus_connected(b1, b2, ducts)
                    else "tray_block lines cut every tray path"
                )
                msg = f"{n} links from row {r} to {len(far)} row(s) (first {far[0]}) have no tray path: {why}"
                kind, tip = "no_path", "add a tray_add or a [[duct]] that joins them, or move the tray_block"
            else:
                longest = float(np.nanmax(grp["length_m"].to_numpy()[m]))
                msg = f"{n} links from row {r} (up to {longest:,.1f} m) are longer than any medium reaches"
                kind, tip = "reach", "place the two ends closer or add a longer-reach medium to the catalog"
            res.append(
                Violation(kind, r, msg, tip, {"links": n, "far_rows": len(far), "status": str(status)})
            )
    return res


def _campus_connected(b1: str, b2: str, ducts: set[frozenset[str]]) -> bool:
    seen, todo = {b1}, [b1]
    while todo:
        cur = todo.pop()
        for d in ducts:
            if cur in d:
                for o in d - {cur}:
                    if o not in seen:
                        seen.add(o)
                        todo.append(o)
    return b2 in seen


def _fill_violations(trays: traylib.Trays, fill: pd.DataFrame) -> list[Violation]:
    res: list[Violation] = []
    over = np.nonzero(fill["over"].to_numpy())[0]
    if over.size == 0:
        return res
    e = trays.edges
    x, y = trays.nodes["x_m"].to_numpy(), trays.nodes["y_m"].to_numpy()
    u, v = e["u"].to_numpy()[over], e["v"].to_numpy()[over]
    length = e["length_m"].to_numpy()[over]
    t = np.where(length > 0, fill["peak_at_m"].to_numpy()[over] / np.where(length > 0, length, 1), 0.0)
    px, py = x[u] + (x[v] - x[u]) * t, y[u] + (y[v] - y[u]) * t
    cols = {
        c: fill[c].to_numpy()[over]
        for c in ("kind", "hall", "where", "cables", "peak_area_mm2", "capacity_mm2", "fill", "fill_limit")
    }
    for j in range(len(over)):
        kind, hall, where = cols["kind"][j], cols["hall"][j], cols["where"][j]
        res.append(
            Violation(
                "tray_fill",
                str(where) or str(hall),
                f"{kind} tray in {hall or 'the campus'} from ({x[u[j]]:.1f}, {y[u[j]]:.1f}) to ({x[v[j]]:.1f}, {y[v[j]]:.1f}) "
                f"is {cols['fill'][j]:.0%} full (limit {cols['fill_limit'][j]:.0%}) at ({px[j]:.1f}, {py[j]:.1f}): {cols['peak_area_mm2'][j]:,.0f} mm2 of cable "
                f"({int(cols['cables'][j]):,} cables), {cols['capacity_mm2'][j]:,.0f} mm2 allowed",
                "widen the tray or stack levels (the hall's tray.width_mm / depth_mm / levels / trunk_*), a bigger duct bank (duct.conduits), or a parallel [[tray_add]]",
                {
                    "cables": int(cols["cables"][j]),
                    "peak_area_mm2": round(float(cols["peak_area_mm2"][j]), 3),
                    "capacity_mm2": round(float(cols["capacity_mm2"][j]), 3),
                    "x_m": round(float(px[j]), 3),
                    "y_m": round(float(py[j]), 3),
                },
            )
        )
    return res
