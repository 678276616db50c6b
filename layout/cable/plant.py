"""The cable plant as installers build it: patch panels, MPO trunks, cassettes, patch cords, and every
optical link's channel (its mated connections, splices, fibre and insertion loss in dB).

Which links run through the plant: an optical link routed along the trays (not a jumper) whose two
racks stand in different rows (so rows, halls and buildings apart), when its medium has a connector
(catalog ``connector``: MPO or LC). In-rack and adjacent-rack links, links within one row and copper
stay point-to-point cords. Where the panels stand (site ``[plant] panels``):

- ``row`` (default): at each row's end (the row's first rack), trunks row to row;
- ``rack``: in every rack with links to other rows (network and GPU racks), trunks rack to rack;
- ``none``: no plant, every link one cord.

A plant link is: a patch cord from its port to the panel of its rack (``cord_a_m``), a trunk from panel to
panel (``trunk_m``), a patch cord to the far port (``cord_b_m``). A cord is the tray run from the rack to
its panel + the port's drop from the tray + ``PANEL_DROP_M`` + ``CORD_SLACK_M`` (in the panel's own
rack: the drop less ``PANEL_DROP_M``), at the catalog's next stock cord length; a trunk the tray run
between the panels + ``2 x PANEL_DROP_M`` + a service loop (``route.SLACK_M["tray"]``), made to the
metre. The channel length is cord + trunk + cord: the routed length the medium must reach, so a link
that fits its medium as a cord may need the next medium through the panels (``plant_media``).

Mated connections (NVIDIA's structured-cabling rule: 2 panel junctions = 4 mated connections, the two
module ends included): a cord 2 (its ends); through two panels an MPO link 4 (module ends + an MPO
adapter at each panel), an LC link 6 (module ends + LC front and MPO rear of a cassette at each panel).
A splice at each building entrance of a link between buildings. Loss = MPO pairs x ``mpo_db`` + LC
pairs x ``lc_db`` + splices x ``splice_db`` + km x the fibre's dB/km (catalog ``[plant]``); over its
medium's ``channel_db`` or ``max_connections`` it is a ``channel`` violation. A cord's channel has its
stock length of fibre, a plant link cords at stock length + its trunk.

Trunks: per panel pair, fibre and connector, the links' fibres (``fibres`` per link: an MPO-12 port 12,
duplex LC 2) in the smallest stock trunk that holds them (``trunk_fibres``), full largest trunks first
when one is not enough. Polarity Type B; MPO trunks male (pinned) at both ends with female cords, LC
links' trunks female into male cassettes (``cassette_fibres`` per cassette, at each end) with A-B duplex
cords. Panels: per panel rack, ``ceil(fibres / panel_fibres)`` 1U panels.

Rack space: a location's panels go into the U its rack's devices leave free (the template's height less
its devices'), the rest into fibre cabinets (``cabinet_ru`` panels each) on the free floor nearest that
rack (layout/cable/cabinets.py: rack positions of the floor grid, out of every aisle). Every cord of the
location is made longer by the floor run to its farthest cabinet, plus one cabinet's width of slack
(``cord_extra_m``), and the cabling stage picks the media again with those cords (a longer channel can
need another medium; :func:`cabinet_run_of`, at most ``PASSES`` times, until no location's cabinets
stand farther than its cords allow for). With ``panels = "rack"`` (a panel in each rack) a rack whose
panels do not fit its free U is a ``panels`` violation; a cabinet with no free position in its hall is
a ``cabinets`` violation.

Tray fill: each plant link adds its trunk's cross-section shared by the trunk's links, along its route
(the trunk follows the same rows), instead of a cord's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from layout.arrays import unique_inverse
from layout.cable import cabinets as cabinetlib
from layout.cable import route as routing
from layout.cable.cabinets import Cabinets
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.cable.media import MediaTable
    from layout.cable.trays import Trays
    from layout.model import Catalog

PANELS_AT = ("row", "rack", "none")
PANEL_DROP_M = 0.5  # tray down to a panel at the top of a rack (our figure, unverified)
CORD_SLACK_M = 1.0  # dressing a patch cord in the rack's cable manager (our figure, unverified)
CONNECTORS = ("", "mpo", "lc")
FIBRES = ("", "om3", "om4", "os2")
POLARITY = "B"
PASSES = 4  # plant layouts at most: cords lengthened by the fibre cabinets, then laid again


@dataclass(frozen=True)
class Geometry:
    """Per link (aligned with the fabric's links): whether it can run through the plant (``candidate``:
    tray-routed, racks in different rows, cords and trunk with a tray path), its panels (rack numbers,
    -1 when not a candidate), cord and trunk lengths (NaN when not a candidate, before stock lengths),
    and splices (a building entrance each end of a link between buildings)."""

    candidate: np.ndarray
    panel_a: np.ndarray
    panel_b: np.ndarray
    cord_a_m: np.ndarray
    cord_b_m: np.ndarray
    trunk_m: np.ndarray
    splices: np.ndarray

    @property
    def channel_m(self) -> np.ndarray:
        return self.cord_a_m + self.trunk_m + self.cord_b_m


def rack_free_ru(
    racks: pd.DataFrame, heights_ru: dict[str, int], device_rack: np.ndarray, device_height_ru: np.ndarray
) -> np.ndarray:
    """U each rack's devices leave free: its template's height less the heights of the devices in it
    (never below 0)."""
    n = len(racks)
    if not n:
        return np.zeros(0, np.int64)
    tpl, names = pd.factorize(racks["template"].astype(str))
    height = np.array([heights_ru.get(str(t), 0) for t in names], np.int64)[tpl]
    rk = np.asarray(device_rack, np.int64)
    on = rk >= 0
    used = np.bincount(rk[on], weights=np.asarray(device_height_ru, float)[on], minlength=n)
    return np.maximum(height - np.round(used).astype(np.int64), 0)


def with_cord_extra(geo: Geometry, extra_by_rack: np.ndarray) -> Geometry:
    """``geo`` with every plant cord ``extra_by_rack[its panel rack]`` metres longer (the fibre
    cabinets' run, module docstring); ``geo`` itself when no rack has any."""
    if not len(extra_by_rack) or not np.any(extra_by_rack > 0):
        return geo
    ext = np.r_[extra_by_rack, 0.0]  # panel -1 (not a candidate): index -1 -> the appended 0
    return replace(
        geo,
        cord_a_m=np.round(geo.cord_a_m + ext[geo.panel_a], 6),
        cord_b_m=np.round(geo.cord_b_m + ext[geo.panel_b], 6),
    )


def panel_racks(racks: pd.DataFrame, panels_at: str) -> np.ndarray:
    """Per rack, the rack whose panel its plant links use: itself (``rack``), its row's first rack by
    position (``row``); -1 for ``none``."""
    n = len(racks)
    if panels_at == "rack":
        return np.arange(n, dtype=np.int64)
    if panels_at == "none" or not n:
        return np.full(n, -1, dtype=np.int64)
    row, _ = pd.factorize(racks["row"])
    pos = racks["pos"].to_numpy(np.int64)
    order = np.lexsort((np.arange(n), pos, row))
    first = np.full(int(row.max()) + 1, -1, dtype=np.int64)
    rs = row[order]
    head = np.r_[True, rs[1:] != rs[:-1]]
    first[rs[head]] = order[head]
    return first[row]


def geometry(
    panels_at: str,
    trays: Trays,
    racks: pd.DataFrame,
    rack_a: np.ndarray,
    rack_b: np.ndarray,
    on_tray: np.ndarray,
    drop_a_m: np.ndarray,
    drop_b_m: np.ndarray,
) -> Geometry:
    """The plant's panels, cords and trunks of every link that can run through it (module docstring).
    ``on_tray``: links routed along the trays with a path; ``drop_*_m``: each end's drop from its rack's
    tray to the port."""
    n = len(rack_a)
    nan = np.full(n, np.nan)
    none = Geometry(
        np.zeros(n, bool), np.full(n, -1), np.full(n, -1), nan, nan.copy(), nan.copy(), np.zeros(n, np.int8)
    )
    if panels_at == "none" or not len(racks) or not on_tray.any():
        return none
    panel = panel_racks(racks, panels_at)
    row, _ = pd.factorize(racks["row"])
    cand = on_tray & (row[np.maximum(rack_a, 0)] != row[np.maximum(rack_b, 0)])
    idx = np.flatnonzero(cand)
    if not len(idx):
        return none
    ra, rb = rack_a[idx], rack_b[idx]
    # tray run from each rack to its panel, once per rack
    used = np.unique(np.r_[ra, rb])
    to_panel = np.full(len(racks), np.inf)
    p = routing.tray_paths(trays, used, panel[used])
    to_panel[used] = p.dist_m[p.pair]
    pa, pb = panel[ra], panel[rb]
    t = routing.tray_paths(trays, pa, pb)
    trunk = t.dist_m[t.pair] + 2 * PANEL_DROP_M + routing.SLACK_M["tray"]

    def cord(r: np.ndarray, pnl: np.ndarray, drop: np.ndarray) -> np.ndarray:
        own = np.maximum(drop - PANEL_DROP_M, 0.0)
        return np.where(r == pnl, own, to_panel[r] + drop + PANEL_DROP_M) + CORD_SLACK_M

    ca, cb = cord(ra, pa, drop_a_m[idx]), cord(rb, pb, drop_b_m[idx])
    ok = np.isfinite(ca) & np.isfinite(cb) & np.isfinite(trunk)
    idx, pa, pb, ca, cb, trunk = idx[ok], pa[ok], pb[ok], ca[ok], cb[ok], trunk[ok]
    out_c = np.zeros(n, bool)
    out_c[idx] = True
    panel_a, panel_b = np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)
    panel_a[idx], panel_b[idx] = pa, pb
    cord_a, cord_b, trunk_m = nan.copy(), nan.copy(), nan.copy()
    cord_a[idx], cord_b[idx], trunk_m[idx] = np.round(ca, 6), np.round(cb, 6), np.round(trunk, 6)
    bldg, _ = pd.factorize(racks["building"])
    splices = np.zeros(n, np.int8)
    splices[idx] = np.where(bldg[rack_a[idx]] != bldg[rack_b[idx]], 2, 0)
    return Geometry(out_c, panel_a, panel_b, cord_a, cord_b, trunk_m, splices)


@dataclass(frozen=True)
class MediaPlant:
    """The catalog's media as the plant sees them (arrays in ``MediaTable`` order)."""

    connector: np.ndarray  # CONNECTORS code per medium (0: never through the plant)
    fibre: np.ndarray  # FIBRES code
    fibres: np.ndarray  # fibres one link takes on a trunk
    channel_db: np.ndarray  # NaN: no budget
    max_connections: np.ndarray  # -1: no limit
    db_per_km: np.ndarray

    @classmethod
    def of(cls, catalog: Catalog, ids: tuple[str, ...]) -> MediaPlant:
        specs = [catalog.media[i] for i in ids]
        p = catalog.plant
        fibre = np.array([FIBRES.index(s.fibre) for s in specs], dtype=np.int64)
        return cls(
            connector=np.array([CONNECTORS.index(s.connector) for s in specs], dtype=np.int64),
            fibre=fibre,
            fibres=np.array([s.fibres for s in specs], dtype=np.int64),
            channel_db=np.array([np.nan if s.channel_db is None else s.channel_db for s in specs]),
            max_connections=np.array(
                [-1 if s.max_connections is None else s.max_connections for s in specs], dtype=np.int64
            ),
            db_per_km=np.where(
                fibre == FIBRES.index("os2"), p.smf_db_per_km, np.where(fibre > 0, p.mmf_db_per_km, 0.0)
            ),
        )


def connections(connector: np.ndarray, panels: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """(MPO, LC) mated pairs of a channel of ``connector`` codes through ``panels`` panels (0 or 2)."""
    mpo_end = connector == CONNECTORS.index("mpo")
    lc_end = connector == CONNECTORS.index("lc")
    panels = np.asarray(panels)
    mpo = np.where(mpo_end, 2 + panels, np.where(lc_end, panels, 0))
    lc = np.where(lc_end, 2 + panels, 0)
    return mpo.astype(np.int64), lc.astype(np.int64)


def loss_db(
    catalog: Catalog,
    mpo: np.ndarray,
    lc: np.ndarray,
    splices: np.ndarray,
    length_m: np.ndarray,
    db_per_km: np.ndarray,
) -> np.ndarray:
    """Insertion loss of channels: mated pairs, splices and fibre (catalog ``[plant]``)."""
    p = catalog.plant
    return mpo * p.mpo_db + lc * p.lc_db + splices * p.splice_db + length_m / 1000.0 * db_per_km


def plant_media(mt: MediaTable, mp: MediaPlant, catalog: Catalog, splices: int = 0) -> MediaTable:
    """``mt`` as a link through two panels with ``splices`` splices sees it: copper and media without a
    connector reach nothing; an optical medium reaches the lesser of its reach and the length its
    channel budget leaves after the mated pairs and splices; none when its pairs exceed
    ``max_connections``. So ``pick`` on a plant link's channel length gives the cheapest medium whose
    channel fits."""
    mpo, lc = connections(mp.connector, 2)
    fixed = loss_db(catalog, mpo, lc, np.full(len(mpo), splices), np.zeros(len(mpo)), mp.db_per_km)
    spare = mp.channel_db - fixed
    by_db = np.where(
        np.isnan(mp.channel_db),
        np.inf,
        np.where(mp.db_per_km > 0, spare / np.maximum(mp.db_per_km, 1e-12) * 1000, np.inf),
    )
    by_db = np.where(np.isnan(mp.channel_db) | (spare >= 0), by_db, 0.0)
    too_many = (mp.max_connections >= 0) & (mpo + lc > mp.max_connections)
    reach = np.where((mp.connector > 0) & mt.optical & ~too_many, np.minimum(mt.reach_m, by_db), 0.0)
    return replace(mt, reach_m=reach)


@dataclass(frozen=True)
class Plant:
    """What the plant stage decides (module docstring).

    ``channels``: per optical link with a fibre (``link`` its row in the links table): structured,
    trunk (-1: a cord), panel_a/panel_b (rack numbers), cord_a_m/cord_b_m (stock), trunk_m, length_m
    (fibre end to end), mpo, lc, splices, connections, loss_db, budget_db, max_connections, over.
    ``trunks``: trunk (its number), panel_a, panel_b, fibre, connector, links, fibres_used, fibres,
    length_m, diameter_mm, area_mm2, splices, cassettes (per end), polarity, gender.
    ``panels``: per panel rack: rack, fibres, trunks, panels (1U), cassettes, free_ru (what its rack's
    devices leave), in_rack (panels in that free U), cabinets (fibre cabinets for the rest; 0 with
    ``panels = "rack"``, where the rest is a violation), cord_extra_m (what its cords were lengthened by).
    ``cords``: patch cords to buy: connector, fibre, length_m, count.
    ``cabinets``: the fibre cabinets where they stand (layout/cable/cabinets.py ``CABINET_COLUMNS``).
    """

    panels_at: str
    channels: pd.DataFrame
    trunks: pd.DataFrame
    panels: pd.DataFrame
    cords: pd.DataFrame
    violations: list[Violation]
    # the fibre cabinets where they stand (layout/cable/cabinets.py CABINET_COLUMNS)
    cabinets: pd.DataFrame = field(default_factory=lambda: Cabinets.empty().table)

    @staticmethod
    def empty(panels_at: str = "none") -> Plant:
        return Plant(
            panels_at,
            _frame(CHANNEL_COLUMNS),
            _frame(TRUNK_COLUMNS),
            _frame(PANEL_COLUMNS),
            _frame(CORD_COLUMNS),
            [],
        )

    def structured(self) -> int:
        return int(self.channels["structured"].sum()) if len(self.channels) else 0

    def worst(self) -> tuple[float, int]:
        """(loss in dB, link) of the channel with the highest loss; (0.0, -1) without channels."""
        if not len(self.channels):
            return 0.0, -1
        loss = self.channels["loss_db"].to_numpy(float)
        i = int(np.argmax(loss))
        return round(float(loss[i]), 3), int(self.channels["link"].iloc[i])

    def summary(self) -> dict[str, Any]:
        worst, link = self.worst()
        return {
            "panels_at": self.panels_at,
            "channels": int(len(self.channels)),
            "structured_links": self.structured(),
            "trunks": int(len(self.trunks)),
            "trunk_fibres": int(self.trunks["fibres"].sum()) if len(self.trunks) else 0,
            "trunk_m": round(float(self.trunks["length_m"].sum()), 3) if len(self.trunks) else 0.0,
            "panel_locations": int(len(self.panels)),
            "panels": int(self.panels["panels"].sum()) if len(self.panels) else 0,
            "cassettes": int(self.panels["cassettes"].sum()) if len(self.panels) else 0,
            "fibre_cabinets": int(self.panels["cabinets"].sum()) if len(self.panels) else 0,
            "fibre_cabinets_most": int(self.panels["cabinets"].max()) if len(self.panels) else 0,
            "patch_cords": int(self.cords["count"].sum()) if len(self.cords) else 0,
            "channels_over": int(self.channels["over"].sum()) if len(self.channels) else 0,
            "worst_channel_db": worst,
            "worst_channel_link": link,
        }


CHANNEL_COLUMNS = [
    "link", "structured", "trunk", "panel_a", "panel_b", "cord_a_m", "cord_b_m", "trunk_m", "length_m",
    "mpo", "lc", "splices", "connections", "loss_db", "budget_db", "max_connections", "over",
]  # fmt: skip
TRUNK_COLUMNS = [
    "trunk", "panel_a", "panel_b", "fibre", "connector", "links", "fibres_used", "fibres", "length_m",
    "diameter_mm", "area_mm2", "splices", "cassettes", "polarity", "gender",
]  # fmt: skip
PANEL_COLUMNS = [
    "rack",
    "fibres",
    "trunks",
    "panels",
    "cassettes",
    "free_ru",
    "in_rack",
    "cabinets",
    "cord_extra_m",
]
CORD_COLUMNS = ["connector", "fibre", "length_m", "count"]


def _frame(cols: list[str]) -> pd.DataFrame:
    return pd.DataFrame({c: [] for c in cols})


def stock_up(length_m: np.ndarray, sizes: np.ndarray, step: float = 10.0) -> np.ndarray:
    """The next stock size at or above each length; beyond the largest, the next ``step``."""
    i = np.searchsorted(sizes, length_m, side="left")
    return np.where(i < len(sizes), sizes[np.minimum(i, len(sizes) - 1)], np.ceil(length_m / step) * step)


def build(
    panels_at: str,
    geo: Geometry,
    code: np.ndarray,
    stock_m: np.ndarray,
    mt: MediaTable,
    catalog: Catalog,
    racks: pd.DataFrame,
    devices: pd.DataFrame,
    links: pd.DataFrame,
    free_ru: np.ndarray | None = None,
    extra_by_rack: np.ndarray | None = None,
    floor: pd.DataFrame | Cabinets | None = None,
) -> tuple[Plant, np.ndarray, np.ndarray]:
    """The plant of the links' final media ``code`` (-1: none) and stock lengths of their cords, with
    (structured mask, fibre length per link: cords + trunk for plant links, else ``stock_m``).
    ``free_ru``: per rack, the U its devices leave (None: room for every panel); ``extra_by_rack``:
    what ``geo``'s cords were lengthened by (:func:`with_cord_extra`), recorded per location;
    ``floor``: the cabinet positions of the placement's free floor (cabinets.positions; None: no
    cabinet is placed), or the cabinets :func:`cabinet_run_of` placed for this very plant."""
    mp = MediaPlant.of(catalog, mt.ids)
    p = catalog.plant
    n = len(code)
    has, conn, fib, structured, st, ca, cb, tr = _links(geo, code, mt, mp, p)
    fibre_m = np.asarray(stock_m, float).copy()
    fibre_m[st] = ca + tr + cb
    plant_links = has & (fib > 0) & mt.is_optical(code)
    ch = np.flatnonzero(plant_links)
    if not len(ch):
        return Plant.empty(panels_at), structured, fibre_m

    trunks, panels, cords, trunk_of = _parts(p, mp, geo, st, code, conn, fib, ca, cb, tr, len(racks))
    panels = _rack_space(panels, p, panels_at, free_ru, extra_by_rack)
    cab = _place_cabinets(panels, racks, floor)

    # channels of every optical link with a fibre
    s_of = np.full(n, -1, np.int64)
    s_of[st] = np.arange(len(st))
    j = s_of[ch]
    isst = j >= 0
    jj = np.maximum(j, 0)
    kk = code[ch]
    mpo, lc = connections(conn[ch], np.where(isst, 2, 0))
    spl = np.where(isst, geo.splices[ch], 0).astype(np.int64)
    length = fibre_m[ch]
    loss = np.round(loss_db(catalog, mpo, lc, spl, length, mp.db_per_km[kk]), 4)
    budget = mp.channel_db[kk]
    maxc = mp.max_connections[kk]
    over = (np.isfinite(budget) & (loss > budget + 1e-9)) | ((maxc >= 0) & (mpo + lc > maxc))
    channels = pd.DataFrame(
        {
            "link": ch.astype(np.int64),
            "structured": isst,
            "trunk": np.where(isst, trunk_of[jj] if len(st) else -1, -1).astype(np.int64),
            "panel_a": np.where(isst, geo.panel_a[ch], -1).astype(np.int64),
            "panel_b": np.where(isst, geo.panel_b[ch], -1).astype(np.int64),
            "cord_a_m": np.where(isst, ca[jj] if len(st) else 0.0, np.nan),
            "cord_b_m": np.where(isst, cb[jj] if len(st) else 0.0, np.nan),
            "trunk_m": np.where(isst, tr[jj] if len(st) else 0.0, np.nan),
            "length_m": length,
            "mpo": mpo,
            "lc": lc,
            "splices": spl,
            "connections": mpo + lc,
            "loss_db": loss,
            "budget_db": budget,
            "max_connections": maxc,
            "over": over,
        },
        copy=False,  # one block per column: consolidating 410,000 rows into 2-D blocks cost ~80 ms
    )
    violations = _violations(channels, code, mt, racks, devices, links) + _space_violations(panels, racks)
    violations += cabinetlib.violations(cab, racks)
    return Plant(panels_at, channels, trunks, panels, cords, violations, cab.table), structured, fibre_m


def _place_cabinets(
    panels: pd.DataFrame, racks: pd.DataFrame, pos: pd.DataFrame | Cabinets | None
) -> Cabinets:
    """The panels table's fibre cabinets on the free floor's cabinet positions (layout/cable/cabinets.py;
    ``pos``: those positions, or the cabinets an earlier call placed, taken when they were asked for
    the same counts); none placed without positions."""
    if pos is None:
        return Cabinets.empty(len(racks))
    count = np.zeros(len(racks), np.int64)
    count[panels["rack"].to_numpy(np.int64)] = panels["cabinets"].to_numpy(np.int64)
    if isinstance(pos, Cabinets):
        asked = np.zeros(len(racks), np.int64) if pos.count is None else pos.count
        if np.array_equal(asked, count):
            return pos
        raise ValueError("the cabinets given were placed for other panels")
    return cabinetlib.place(np.arange(len(racks)), count, racks, pos)


class _Links(NamedTuple):
    """Per link: has a medium, connector and fibre codes, structured (through the plant); of the
    structured links ``st``: their stock cords and trunk length."""

    has: np.ndarray
    conn: np.ndarray
    fib: np.ndarray
    structured: np.ndarray
    st: np.ndarray
    ca: np.ndarray
    cb: np.ndarray
    tr: np.ndarray


def _links(geo: Geometry, code: np.ndarray, mt: MediaTable, mp: MediaPlant, p: Any) -> _Links:
    has = code >= 0
    k = np.where(has, code, 0)
    conn = np.where(has, mp.connector[k], 0)
    fib = np.where(has, mp.fibre[k], 0)
    structured = geo.candidate & has & (conn > 0) & mt.is_optical(code)
    cords_sz = np.asarray(p.cord_lengths_m, float)
    st = np.flatnonzero(structured)
    ca = stock_up(geo.cord_a_m[st], cords_sz)
    cb = stock_up(geo.cord_b_m[st], cords_sz)
    tr = np.ceil(geo.trunk_m[st] - 1e-9)  # trunks made to the metre
    return _Links(has, conn, fib, structured, st, ca, cb, tr)


def cabinet_run_of(
    panels_at: str,
    geo: Geometry,
    code: np.ndarray,
    mt: MediaTable,
    catalog: Catalog,
    racks: pd.DataFrame,
    free_ru: np.ndarray | None,
    floor: pd.DataFrame,
) -> Cabinets:
    """The fibre cabinets of the plant :func:`build` would lay, on the cabinet positions ``floor``
    (cabinets.positions), worked out from its panels alone (no channels, no violations): what the
    cabling stage asks of each layout before it builds the plant (``run_m``: per rack, how far a cord
    runs to the farthest of its location's cabinets, 0 where it has none or is no panel location)."""
    mp = MediaPlant.of(catalog, mt.ids)
    p = catalog.plant
    k = _links(geo, code, mt, mp, p)
    if not len(k.st):
        return Cabinets.empty(len(racks))
    _, panels, _, _ = _parts(p, mp, geo, k.st, code, k.conn, k.fib, k.ca, k.cb, k.tr, len(racks))
    panels = _rack_space(panels, p, panels_at, free_ru, None)
    return _place_cabinets(panels, racks, floor)


def _parts(
    p: Any,
    mp: MediaPlant,
    geo: Geometry,
    st: np.ndarray,
    code: np.ndarray,
    conn: np.ndarray,
    fib: np.ndarray,
    ca: np.ndarray,
    cb: np.ndarray,
    tr: np.ndarray,
    n_racks: int,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Trunks, panels and cords of the plant links ``st``, and each one's trunk."""
    if not len(st):
        return _frame(TRUNK_COLUMNS), _frame(PANEL_COLUMNS), _frame(CORD_COLUMNS), np.zeros(0, np.int64)
    # trunks: per (panel pair, fibre, connector), split into stock sizes
    sizes = np.asarray(p.trunk_fibres, np.int64)
    diam = np.asarray(p.trunk_diameter_mm, float)
    diam = np.r_[diam, np.full(max(len(sizes) - len(diam), 0), diam[-1])][: len(sizes)]
    per_link = mp.fibres[code[st]]
    per_link = np.maximum(per_link, 1)
    lo, hi = np.minimum(geo.panel_a[st], geo.panel_b[st]), np.maximum(geo.panel_a[st], geo.panel_b[st])
    nr = max(n_racks, 1)
    gkey = ((lo * nr + hi) * len(FIBRES) + fib[st]) * len(CONNECTORS) + conn[st]
    gkeys, g = unique_inverse(gkey)
    # rank of each link in its group (links in link order), links per full trunk
    order = np.argsort(g, kind="stable")
    gs = g[order]
    starts = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]])
    rank = np.empty(len(st), np.int64)
    rank[order] = np.arange(len(st)) - np.repeat(starts, np.diff(np.r_[starts, len(st)]))
    cap = np.maximum(sizes[-1] // per_link, 1)
    sub = rank // cap
    tkey = g.astype(np.int64) * (int(sub.max()) + 1) + sub
    tkeys, trunk_of = unique_inverse(tkey)
    nt = len(tkeys)
    t_links = np.bincount(trunk_of, minlength=nt)
    t_used = np.bincount(trunk_of, weights=per_link, minlength=nt).astype(np.int64)
    si = np.minimum(np.searchsorted(sizes, t_used, side="left"), len(sizes) - 1)
    t_fibres = sizes[si]
    first = np.full(nt, -1, np.int64)
    first[trunk_of[::-1]] = np.arange(len(st))[::-1]  # each trunk's first link
    t_conn = conn[st][first]
    t_len = tr[first]
    t_splices = geo.splices[st][first]
    is_lc = t_conn == CONNECTORS.index("lc")
    cassettes = np.where(is_lc, -(-t_used // p.cassette_fibres), 0)
    t_pa, t_pb = lo[first], hi[first]
    t_diam = diam[si]
    trunks = pd.DataFrame(
        {
            "trunk": np.arange(nt, dtype=np.int64),
            "panel_a": t_pa,
            "panel_b": t_pb,
            "fibre": np.array(FIBRES, dtype=object)[fib[st][first]],
            "connector": np.array(CONNECTORS, dtype=object)[t_conn],
            "links": t_links.astype(np.int64),
            "fibres_used": t_used,
            "fibres": t_fibres,
            "length_m": t_len,
            "diameter_mm": t_diam,
            "area_mm2": np.pi * (t_diam / 2) ** 2,
            "splices": t_splices.astype(np.int64),
            "cassettes": cassettes.astype(np.int64),
            "polarity": POLARITY,
            "gender": np.where(is_lc, "female-female (male cassettes)", "male-male (female cords)"),
        }
    )

    # panels: per panel rack, fibres of the trunks ending there
    ends = np.r_[t_pa, t_pb]
    prack, pinv = np.unique(ends, return_inverse=True)
    pf = np.bincount(pinv, weights=np.r_[t_fibres, t_fibres], minlength=len(prack)).astype(np.int64)
    panels = pd.DataFrame(
        {
            "rack": prack.astype(np.int64),
            "fibres": pf,
            "trunks": np.bincount(pinv, minlength=len(prack)).astype(np.int64),
            "panels": -(-pf // p.panel_fibres),
            "cassettes": np.bincount(pinv, weights=np.r_[cassettes, cassettes], minlength=len(prack)).astype(
                np.int64
            ),
        }
    )

    # patch cords: two per plant link
    c_len = np.r_[ca, cb]
    c_key = (np.r_[conn[st], conn[st]] * len(FIBRES) + np.r_[fib[st], fib[st]]) * (1 << 32) + np.round(
        c_len * 1000
    ).astype(np.int64)
    ck, cn = np.unique(c_key, return_counts=True)
    cords = pd.DataFrame(
        {
            "connector": np.array(CONNECTORS, dtype=object)[(ck >> 32) // len(FIBRES)],
            "fibre": np.array(FIBRES, dtype=object)[(ck >> 32) % len(FIBRES)],
            "length_m": (ck & ((1 << 32) - 1)) / 1000.0,
            "count": cn.astype(np.int64),
        }
    )

    return trunks, panels, cords, trunk_of


def _rack_space(
    panels: pd.DataFrame,
    p: Any,
    panels_at: str,
    free_ru: np.ndarray | None,
    extra_by_rack: np.ndarray | None,
) -> pd.DataFrame:
    """The panels table with where its panels go (module docstring): ``free_ru``, ``in_rack``,
    ``cabinets``, ``cord_extra_m``."""
    rk = panels["rack"].to_numpy(np.int64)
    need = panels["panels"].to_numpy(np.int64)
    free = need.copy() if free_ru is None else np.asarray(free_ru, np.int64)[rk]
    in_rack = np.minimum(need, free)
    rest = need - in_rack
    cabinets = np.zeros(len(rk), np.int64) if panels_at == "rack" else -(-rest // p.cabinet_ru)
    extra = np.zeros(len(rk)) if extra_by_rack is None else np.asarray(extra_by_rack, float)[rk]
    return panels.assign(
        free_ru=free.astype(np.int64), in_rack=in_rack, cabinets=cabinets, cord_extra_m=np.round(extra, 6)
    )


def _space_violations(panels: pd.DataFrame, racks: pd.DataFrame) -> list[Violation]:
    """One ``panels`` violation per row with racks whose own panels (``panels = "rack"``) do not fit
    the U their devices leave, naming the worst rack."""
    if not len(panels):
        return []
    left = (panels["panels"] - panels["in_rack"]).to_numpy(np.int64)
    short = np.where(panels["cabinets"].to_numpy(np.int64) == 0, left, 0)  # not taken by fibre cabinets
    bad = np.flatnonzero(short > 0)
    if not len(bad):
        return []
    rk = panels["rack"].to_numpy(np.int64)[bad]
    rows = racks["row"].astype(str).to_numpy()[rk]
    ids = racks["rack_id"].astype(str).to_numpy()
    res: list[Violation] = []
    for row in sorted(set(rows.tolist())):
        sel = bad[rows == row]
        worst = sel[np.lexsort((panels["rack"].to_numpy()[sel], -short[sel]))[0]]
        r = panels.iloc[int(worst)]
        res.append(
            Violation(
                "panels",
                row,
                f"{len(sel)} racks of row {row} have more patch panels than free U: worst "
                f"{ids[int(r['rack'])]} needs {int(r['panels'])} 1U panels and has {int(r['free_ru'])} U free",
                'put the panels at the row ends ([plant] panels = "row"), where fibre cabinets take the rest',
                {"racks": len(sel), "worst_short_ru": int(short[worst])},
            )
        )
    return res


def link_name(devices: pd.DataFrame, links: pd.DataFrame, i: int) -> str:
    """A link named by its two devices, as a violation names it."""
    ids = devices["device_id"]
    return f"{ids.iloc[int(links['a'].iloc[i])]} - {ids.iloc[int(links['b'].iloc[i])]}"


def _violations(
    channels: pd.DataFrame,
    code: np.ndarray,
    mt: MediaTable,
    racks: pd.DataFrame,
    devices: pd.DataFrame,
    links: pd.DataFrame,
) -> list[Violation]:
    """One ``channel`` violation per medium and row of the a end with channels over their budget or
    connection count, naming the worst link and its dB."""
    bad = channels[channels["over"].to_numpy()]
    if bad.empty:
        return []
    res: list[Violation] = []
    rows = racks["row"].to_numpy()
    ra = links["rack_a"].to_numpy() if "rack_a" in links else None
    li = bad["link"].to_numpy(np.int64)
    med = np.array(mt.ids, dtype=object)[code[li]]
    where = rows[ra[li]] if ra is not None else np.full(len(li), "site", dtype=object)
    df = pd.DataFrame({"media": med, "where": where, "i": np.arange(len(li))})
    for (m, w), grp in df.groupby(["media", "where"], sort=True):
        sel = grp["i"].to_numpy()
        loss = bad["loss_db"].to_numpy(float)[sel]
        top = sel[int(np.argmax(loss))]
        b = bad.iloc[int(top)]
        res.append(
            Violation(
                "channel",
                str(w),
                f"{len(sel)} {m} channels from row {w} are over their budget: worst "
                f"{link_name(devices, links, int(b['link']))} at {float(b['loss_db']):.2f} dB "
                f"(budget {float(b['budget_db']):.2f} dB, {int(b['connections'])} mated connections, "
                f"most {int(b['max_connections'])}, {float(b['length_m']):,.0f} m)",
                'place the ends closer, put the panels in the racks ([plant] panels = "rack"), or a longer-reach medium',
                {
                    "links": len(sel),
                    "worst_db": round(float(b["loss_db"]), 3),
                    "budget_db": float(b["budget_db"]),
                },
            )
        )
    return res
