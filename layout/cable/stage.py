"""The cabling stage: ``cable()`` lays the trays, routes every link, picks its medium and stock length,
counts modules, switch power and tray fill (trays -> routes -> media -> fill), for layout.design.

Jumpers: a link inside one rack is always a jumper; a link between neighbouring racks of a row is a
jumper through the side panels when its jumper length gets a copper (non-optical) medium, otherwise it
is routed along the trays like every other link. How a medium is picked, and the transceivers and
their power: layout/cable/media.py; the tray network: layout/cable/trays.py; the routes:
layout/cable/route.py; ports and cages: layout/cable/ports.py; the violations and tray fill:
layout/cable/checks.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout.cable import cabinets as cablib
from layout.cable import cages, checks, media
from layout.cable import plant as plantlib
from layout.cable import ports as portlib
from layout.cable import route as routing
from layout.cable import trays as traylib
from layout.cable.inputs import CableInput
from layout.cable.media import MediaTable, cable_counts, cable_table, module_power_w
from layout.model import Catalog
from layout.model.catalog import MEDIA_CLASSES
from layout.power import loads as powerlib
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.memo import Scope
    from layout.place import Placement

STATUS = ("ok", "unplaced", "no_tray", "no_path", "reach")
ROUTES = ("", "rack", "adjacent", "tray")  # no route, in-rack jumper, adjacent-rack jumper, along the trays


@dataclass(frozen=True)
class Cabling:
    """Everything the cabling stage decides. Tables are aligned with the fabric's and placement's.

    ``links``: the fabric's links plus rack_a, rack_b, route (``rack``/``adjacent`` jumper, ``tray``,
    or ``""`` without a route), tray_m (run along the trays), length_m (routed, before rounding), media,
    media_class, stock_length_m, status (STATUS).
    ``edge_fill``: per tray edge (trays.edges order): cables, peak_area_mm2, capacity_mm2, fill (peak
    over width x depth), over (bool), and ``cables_<media id>``.
    ``link_optical``: per link, True when its medium is optical (links without a medium: True when they
    leave the rack), for ``power.loads.check(..., link_optical=...)``.
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
    ports: portlib.PortMap | None = None  # every link end's port and cage (layout.cable.ports)
    plant: plantlib.Plant = field(default_factory=plantlib.Plant.empty)  # panels, trunks, channels

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
            "plant": self.plant.summary(),
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


def cable(inp: CableInput, fabric: Fabric, placement: Placement, scope: Scope | None = None) -> Cabling:
    """Lay the trays, route every link, pick its medium and stock length, count modules, switch power
    and tray fill, and report what breaks the rules. ``inp``: what the stage reads of the inputs
    (``CableInput.of(inputs)``). ``scope``: a memo and the fabric's token (layout/memo.py), which
    keeps the fabric's port skeleton and each hall's tray piece (layout/cable/trays.py); the cabling is
    the same without it."""
    catalog = inp.catalog
    trays = traylib.build(inp, placement, scope)
    mt = MediaTable.of(catalog)
    links = fabric.links
    devices = fabric.devices
    racks = placement.racks
    rack_h = traylib.rack_height_ru(racks, inp) if len(racks) else np.zeros(0)
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
    # the cable plant's panels, cords and trunks of the links between rows (layout/cable/plant.py)
    on_tray = np.zeros(n, dtype=bool)
    on_tray[ti] = np.isfinite(run)
    zero = np.zeros(n)
    geo = plantlib.geometry(
        inp.panels,
        trays,
        racks,
        ends.rack_a,
        ends.rack_b,
        on_tray,
        dev_drop[ends.device_a] if dev_drop is not None else zero,
        dev_drop[ends.device_b] if dev_drop is not None else zero,
    )
    base_code = mt.pick(length, speed)
    base_length = length
    mplant = plantlib.MediaPlant.of(catalog, mt.ids)
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
    base_status = status
    rack_ids = racks["rack_id"].to_numpy() if len(racks) else np.zeros(0, dtype=object)
    free_ru = plantlib.rack_free_ru(
        racks, inp.heights_ru, placement.device_rack, powerlib.device_height_ru(catalog, fabric)
    )
    extra = np.zeros(len(racks))
    cab_pos = cablib.positions(
        placement.free, catalog.plant.cabinet_width_mm / 1000, catalog.plant.cabinet_depth_mm / 1000
    )
    skeleton = port_skeleton(fabric, catalog, scope)
    for i in range(plantlib.PASSES):  # again when fibre cabinets lengthen cords (plant.with_cord_extra)
        g = plantlib.with_cord_extra(geo, extra)
        code = base_code.copy()
        length = base_length
        # a link whose medium goes through the panels: its channel (cords + trunk) must fit the
        # medium's reach, budget and connections, else the next medium whose channel fits
        through = np.flatnonzero(g.candidate & (np.r_[mplant.connector, 0][code] > 0))
        if len(through):
            length = length.copy()
            length[through] = np.round(g.channel_m[through], 6)
            for spliced in np.unique(g.splices[through]).tolist():  # 0, or 2 between buildings
                t = through[g.splices[through] == spliced]
                code[t] = plantlib.plant_media(mt, mplant, catalog, spliced).pick(length[t], speed[t])
        status = base_status.copy()
        reach = np.isfinite(length) & (code < 0)
        status[reach] = STATUS.index("reach")
        code[status != 0] = -1
        code.flags.writeable = length.flags.writeable = False  # kept by the port map (ports.finish)
        # ports and cages: one medium per cage (the longest link sharing it decides), copper assemblies
        port_map = portlib.finish(
            skeleton,
            devices,
            code,
            length,
            ends.rack_a,
            ends.rack_b,
            mt,
            rack_ids,
        )
        code = port_map.code
        cab = plantlib.cabinet_run_of(inp.panels, g, code, mt, catalog, racks, free_ru, cab_pos)
        need = cab.run_m
        grown = need > extra + 1e-9
        if not grown.any() or i == plantlib.PASSES - 1:
            break
        # cords as long as the cabinets need, and one cabinet's width more: the next layout's media
        # (a longer channel can need another) rarely ask for a cabinet more, so two layouts do
        extra = np.where(grown, need + catalog.plant.cabinet_width_mm / 1000, extra)
    cord_stock = mt.stock_length(port_map.stock_basis_m, code)
    plant, structured, stock = plantlib.build(
        inp.panels,
        g,
        code,
        cord_stock,
        mt,
        catalog,
        racks,
        devices,
        _with_racks(links, ends),
        free_ru,
        extra,
        cab,
    )
    stock.flags.writeable = False  # the links table holds it: nothing may change it
    # a plant link is bought as two patch cords and its share of a trunk (the plant's parts), not a cord
    counts = cable_counts(np.where(structured, -1, code) if structured.any() else code, stock)

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
    if len(plant.trunks):  # a plant link: its share of its trunk's cross-section, not a cord's
        ch = plant.channels[plant.channels["structured"].to_numpy()]
        tk = ch["trunk"].to_numpy(np.int64)
        share = np.zeros(n)
        share[ch["link"].to_numpy(np.int64)] = (
            plant.trunks["area_mm2"].to_numpy(float)[tk] / plant.trunks["links"].to_numpy(float)[tk]
        )
        area = np.where(structured[ti], share[ti], area)
    load = routing.edge_loads(trays, paths, area, tcode, k)
    edge_fill = checks.edge_fill(trays, load, mt)

    modules = port_map.modules(devices, links, mt)  # as plugged: one per optical cage
    module_w = module_power_w(devices, links, code, mt, catalog, modules)
    optical_ports = media.optical_ports(devices, links, code, mt)
    power_kw = powerlib.switch_power_kw(catalog, devices, module_w)
    cables = cable_table(counts, mt)
    violations = [
        *trays.violations,
        *checks.link_violations(out, racks, devices, inp),
        *checks.fill_violations(trays, edge_fill),
        *port_map.violations,
        *plant.violations,
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
        plant=plant,
    )


def _with_racks(links: pd.DataFrame, ends: routing.LinkEnds) -> pd.DataFrame:
    """The links' ends and racks, as the plant's violations name them."""
    return pd.DataFrame({"a": links["a"], "b": links["b"], "rack_a": ends.rack_a}, copy=False)


def port_skeleton(fabric: Fabric, catalog: Catalog, scope: Scope | None = None) -> cages.PortSkeleton:
    """The fabric's port skeleton (every end's port and cage, which links share a cage): a function of
    the fabric and its catalog alone, kept in ``scope`` (whose token is the fabric's) when given."""

    def make() -> cages.PortSkeleton:
        return cages.skeleton(fabric.devices, fabric.links, catalog, getattr(fabric, "nic", ""))

    return make() if scope is None else scope.take("cable.skeleton", (catalog,), make)
