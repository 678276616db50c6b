"""What every drawing shows, worked out once from a finished design (pure: numpy, pandas, no drawing
library). The DXF, the SVG plans, the PDF plans and the TUI map draw a :class:`Scene`; none of them
decides a colour, a label or where a violation is on its own.

Lengths are in site metres (x east, y north). Tables are pandas frames of arrays, one row per rack, row,
aisle, tray edge or violation marker, never one Python object per rack.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from layout.model import RackTemplate, SiteFile
from layout.scene import palette
from layout.violations import Violation, hall_key, where_prefixes

if TYPE_CHECKING:
    from layout.design import Design
    from layout.load import Inputs

# media classes the tray table counts and draws as bundles, in drawing order
MEDIA_CLASSES: tuple[str, ...] = ("dac", "aec", "mmf", "smf", "coherent", "utp")
MARKER_POINT_M = 1.0  # half the side of the box marked around a violation given as a point (x_m, y_m)


Ring = list[tuple[float, float]]


@dataclass(frozen=True)
class HallGeometry:
    """One hall's walls, columns (centre x, y and size x, y per row), keep-outs and aisle widths."""

    key: str  # B1/H1
    building: str
    polygon: Ring
    columns: np.ndarray  # (n, 4): cx, cy, sx, sy in metres
    keepouts: tuple[tuple[Ring, str], ...]
    max_rack_kw: float
    cold_aisle_m: float
    hot_aisle_m: float
    cross_aisle_m: float

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        xs = [p[0] for p in self.polygon]
        ys = [p[1] for p in self.polygon]
        return (min(xs), min(ys), max(xs), max(ys))

    @property
    def column_boxes(self) -> np.ndarray:
        """(n, 4): x0, y0, x1, y1 of each column."""
        c = self.columns
        return np.column_stack([c[:, 0] - c[:, 2] / 2, c[:, 1] - c[:, 3] / 2, c[:, 0] + c[:, 2] / 2,
                                c[:, 1] + c[:, 3] / 2])  # fmt: skip


@dataclass(frozen=True)
class Campus:
    """The site plan: buildings (id, footprint, entry), halls, ducts (name, path) and the pods per hall."""

    buildings: tuple[tuple[str, Ring, tuple[float, float] | None], ...]
    halls: tuple[HallGeometry, ...]
    ducts: tuple[tuple[str, Ring], ...]
    pods: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # hall -> pods with servers there

    def hall(self, key: str) -> HallGeometry:
        return next(h for h in self.halls if h.key == key)


@dataclass(frozen=True)
class Scene:
    """What a drawing needs from a design.

    ``racks``: the placement's columns (docs/tables.md) plus ``rack_no`` (row of placement.racks),
    ``gpus``, ``power_kw``, ``limit_kw``, ``use`` (kW / limit), ``band`` (index into palette.BANDS),
    ``fill_no`` and ``fill`` (index into palette.FILLS and its #rrggbb, by the palette's rule), ``over`` (beyond its limit), ``label`` (position tag, K07)
    and the footprint box ``x0_m, y0_m, x1_m, y1_m``.
    ``rows``: the placement's rows plus ``label`` (R03).
    ``aisles``: ``hall, row, kind`` (cold, hot, cross), ``x0_m, y0_m, x1_m, y1_m``, ``width_m``.
    ``tray_edges``: see :func:`tray_edge_table`.
    ``markers``: one per violation, numbered as the drawings tag them (V1..): ``number, kind, where,
    message, hall`` and the marked box ``x0_m, y0_m, x1_m, y1_m`` (NaN where it names no place).
    """

    site: SiteFile
    stem: str
    templates: Mapping[str, RackTemplate]
    racks: pd.DataFrame
    rows: pd.DataFrame
    tray_edges: pd.DataFrame | None = None
    violations: Sequence[Violation] = ()
    summary: Mapping[str, Any] = field(default_factory=dict)
    campus: Campus | None = None
    gpu_rack: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # hall -> (template, servers)
    # the power chain (layout/power/chain.py) drawn: busways (see busway_lines, worked out from the
    # chain's feeds and busways when first asked for: the TUI map draws none), UPS blocks, CDUs
    power_chain: Any = None  # layout.power.chain.PowerChain
    ups: pd.DataFrame | None = None
    cdus: pd.DataFrame | None = None
    # the cable plant's fibre cabinets where they stand (layout/cable/cabinets.py CABINET_COLUMNS)
    fibre_cabinets: pd.DataFrame | None = None
    # each hall's single-line tree (layout/power/sld.py, Design.sld): the SLD sheets; {} without a chain
    sld: Mapping[str, Any] = field(default_factory=dict)

    @cached_property
    def busways(self) -> pd.DataFrame | None:
        """The chain's busways with the line each is drawn as (busway_lines); None without busways."""
        chain = self.power_chain
        if chain is None or not len(chain.busways):
            return None
        return busway_lines(self.racks, chain.feeds, chain.busways)

    @cached_property
    def cdu_boxes(self) -> pd.DataFrame:
        """The placed CDUs as every drawing draws them: ``cdu_id, hall, model``, the half sizes along x
        and y ``half_x_m, half_y_m`` (a CDU turned 90 or 270 degrees lies across) and the footprint box
        ``x0_m, y0_m, x1_m, y1_m``; no rows without CDUs."""
        return cdu_box_table(self.cdus)

    @cached_property
    def cabinet_boxes(self) -> pd.DataFrame:
        """The fibre cabinets as every drawing draws them: ``cabinet_id, hall, label`` (its location
        rack's row and position and its number: ``R25/K01/FC01``), ``half_x_m, half_y_m`` and the
        footprint box ``x0_m, y0_m, x1_m, y1_m``; no rows without cabinets."""
        c = self.fibre_cabinets
        boxes = footprint_boxes(c, "cabinet_id")
        ids = boxes["cabinet_id"].astype(str)
        tails: Any = ids.str.split("/").str[-3:].str.join("/") if len(boxes) else []
        return boxes.assign(label=np.asarray(tails, dtype=object))

    @cached_property
    def hall_racks(self) -> dict[str, np.ndarray]:
        """Positions (into ``racks``) of each hall's racks."""
        if self.racks.empty:
            return {}
        return {str(k): np.asarray(v) for k, v in self.racks.groupby("hall", sort=False).indices.items()}

    def racks_of(self, hall: str) -> pd.DataFrame:
        idx = self.hall_racks.get(hall)
        return self.racks.iloc[idx] if idx is not None else self.racks.iloc[:0]

    @cached_property
    def aisles(self) -> pd.DataFrame:
        return aisle_table(self)

    @cached_property
    def markers(self) -> pd.DataFrame:
        return marker_table(self)

    @cached_property
    def place_boxes(self) -> dict[str, tuple[float, float, float, float]]:
        return _place_boxes(self)

    def marked_box(self, where: str, figures: Mapping[str, Any] | None = None) -> tuple[float, ...] | None:
        """The box a violation at ``where`` (with ``figures``) is marked by: the point in its figures
        (``x_m``, ``y_m``, e.g. a tray's fullest spot) if it has one, else the most specific place its
        ``where`` names (violations.where_prefixes); None for "site" or a place the scene lacks."""
        fx, fy = (figures or {}).get("x_m"), (figures or {}).get("y_m")
        if isinstance(fx, int | float) and isinstance(fy, int | float):
            r = MARKER_POINT_M
            return (float(fx) - r, float(fy) - r, float(fx) + r, float(fy) + r)
        boxes = self.place_boxes
        return next((boxes[p] for p in where_prefixes(where) if p in boxes), None)

    def locate(self, where: str, figures: Mapping[str, Any] | None = None) -> tuple[str, float, float] | None:
        """Where a map shows ``where``: (hall, x, y) of its marked box's centre. A building goes to its
        first hall's middle (a map shows one hall at a time)."""
        hall = marker_hall(self, where)
        if hall is None:
            return None
        if "/" not in where and not (figures and "x_m" in figures):
            box: tuple[float, ...] | None = self.place_boxes.get(hall)
        else:
            box = self.marked_box(where, figures)
        if box is None:
            return None
        return hall, (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


# ------------------------------------------------------------------------------------------ racks
def rack_table(
    racks: pd.DataFrame,
    gpus_per_server: int,
    rack_kw: npt.ArrayLike | None,
    limit_kw: npt.ArrayLike | None,
) -> pd.DataFrame:
    """The placement's racks with what the drawings show of each (see :class:`Scene`)."""
    n = len(racks)
    servers = racks["servers"].to_numpy(np.int64) if "servers" in racks else np.zeros(n, np.int64)
    kw = np.asarray(rack_kw, float) if rack_kw is not None else np.zeros(n)
    lim = np.asarray(limit_kw, float) if limit_kw is not None else np.zeros(n)
    use = palette.use(kw, lim)
    band = palette.kw_band(use)
    kinds = racks["kind"].to_numpy() if n else np.zeros(0, dtype=str)
    fill_no = palette.fill_index(kinds, band, kw)
    ids = racks["rack_id"].to_numpy().astype(str) if n else np.zeros(0, dtype=str)
    # footprint box: width along the row, depth across it; turned a quarter, they swap
    rot = np.round(racks["rotation_deg"].to_numpy(float)) % 180 == 90 if n else np.zeros(0, bool)
    w = racks["width_m"].to_numpy(float) if n else np.zeros(0)
    d = racks["depth_m"].to_numpy(float) if n else np.zeros(0)
    hx, hy = np.where(rot, d, w) / 2, np.where(rot, w, d) / 2
    x = racks["x_m"].to_numpy(float) if n else np.zeros(0)
    y = racks["y_m"].to_numpy(float) if n else np.zeros(0)
    extra = pd.DataFrame(
        {
            "rack_no": np.arange(n),
            "gpus": servers * gpus_per_server,
            "power_kw": kw,
            "limit_kw": lim,
            "use": use,
            "band": band,
            "fill_no": fill_no,
            "fill": np.array(palette.FILLS, dtype=object)[fill_no],
            "over": band == palette.OVER,
            "label": np.array([i.rsplit("/", 1)[-1] for i in ids.tolist()], dtype=object),
            "x0_m": x - hx,
            "y0_m": y - hy,
            "x1_m": x + hx,
            "y1_m": y + hy,
        },
        index=racks.index,
    )
    out = pd.concat([racks, extra], axis=1)
    return out


def row_table(rows: pd.DataFrame) -> pd.DataFrame:
    out = rows.copy()
    out["label"] = out["row"].astype(str).str.rsplit("/", n=1).str[-1] if len(out) else []
    return out


# ------------------------------------------------------------------------------------------ aisles
def aisle_table(scene: Scene) -> pd.DataFrame:
    """Half a cold aisle in front of every row and half a hot aisle behind it (so two rows facing each
    other make one cold aisle), as deep as the hall's deepest rack sets the row's faces; cross aisles
    along the cross trays, as wide as the hall's ``cross_aisle_m``."""
    cols: dict[str, list[Any]] = {k: [] for k in ("hall", "row", "kind", "x0_m", "y0_m", "x1_m", "y1_m",
                                                   "width_m")}  # fmt: skip
    halls = {h.key: h for h in scene.campus.halls} if scene.campus else {}
    depth = scene.racks.groupby("hall")["depth_m"].max().to_dict() if not scene.racks.empty else {}

    def add(hall: str, row: str, kind: str, box: tuple[float, float, float, float], width: float) -> None:
        for k, v in zip(("hall", "row", "kind", "x0_m", "y0_m", "x1_m", "y1_m", "width_m"),
                        (hall, row, kind, *box, width), strict=True):  # fmt: skip
            cols[k].append(v)

    for r in scene.rows.to_dict("records"):
        h = halls.get(str(r["hall"]))
        if h is None:
            continue
        half = float(depth.get(str(r["hall"]), 1.2)) / 2
        s = int(r["front_sign"])
        x0, y0, x1, y1 = (float(r[k]) for k in ("x0_m", "y0_m", "x1_m", "y1_m"))
        cold, hot = h.cold_aisle_m / 2, h.hot_aisle_m / 2
        if r["axis"] == "x":
            add(h.key, str(r["row"]), "cold", (x0, y0 + s * half, x1, y0 + s * (half + cold)), h.cold_aisle_m)
            add(h.key, str(r["row"]), "hot", (x0, y0 - s * half, x1, y0 - s * (half + hot)), h.hot_aisle_m)
        else:
            add(h.key, str(r["row"]), "cold", (x0 + s * half, y0, x0 + s * (half + cold), y1), h.cold_aisle_m)
            add(h.key, str(r["row"]), "hot", (x0 - s * half, y0, x0 - s * (half + hot), y1), h.hot_aisle_m)
    e = scene.tray_edges
    if e is not None and len(e):
        cross = e[e["kind"] == "cross"]
        for hall, x0, y0, x1, y1 in zip(
            cross["hall"].tolist(), *(cross[c].to_numpy(float).tolist() for c in ("x0_m", "y0_m", "x1_m", "y1_m")),
            strict=True,
        ):  # fmt: skip
            h = halls.get(str(hall))
            if h is not None:
                add(h.key, "", "cross", (x0, y0, x1, y1), h.cross_aisle_m)
    return pd.DataFrame(cols)


# ----------------------------------------------------------------------------------------- markers
def _place_boxes(scene: Scene) -> dict[str, tuple[float, float, float, float]]:
    """Bounding boxes of what a ``where`` can name: racks (a square as wide as the rack's longer side, so
    the mark is the same whichever way it faces), rows (their racks'), halls and buildings."""
    boxes: dict[str, tuple[float, float, float, float]] = {}
    racks = scene.racks
    if not racks.empty:
        half = np.maximum(racks["width_m"].to_numpy(float), racks["depth_m"].to_numpy(float)) / 2.0
        x, y = racks["x_m"].to_numpy(float), racks["y_m"].to_numpy(float)
        frame = pd.DataFrame({"id": racks["rack_id"].astype(str), "row": racks["row"].astype(str),
                              "x0": x - half, "y0": y - half, "x1": x + half, "y1": y + half})  # fmt: skip
        for key in ("row", "id"):
            g = frame.groupby(key, sort=True).agg(x0=("x0", "min"), y0=("y0", "min"), x1=("x1", "max"),
                                                  y1=("y1", "max"))  # fmt: skip
            for name, b in zip(
                g.index.tolist(), g[["x0", "y0", "x1", "y1"]].to_numpy(float).tolist(), strict=True
            ):
                boxes[str(name)] = (b[0], b[1], b[2], b[3])
    for bld in scene.site.building:
        boxes[bld.id] = _bbox(bld.footprint)
        for h in bld.hall:
            boxes[f"{bld.id}/{h.id}"] = _bbox(h.polygon)
    return boxes


def marker_table(scene: Scene) -> pd.DataFrame:
    """One marker per violation, ordered by (where, kind, message) and numbered from 1. Its box: the point
    in its figures (``x_m``, ``y_m``, e.g. a tray's fullest spot) if it has one, else the most specific
    place its ``where`` names (Scene.marked_box); "site" names none (NaN box)."""
    ordered = sorted(scene.violations, key=lambda v: (v.where, v.kind, v.message))
    rows = []
    for n, v in enumerate(ordered, start=1):
        box = scene.marked_box(v.where, v.figures)
        b = box if box is not None else (math.nan,) * 4
        rows.append((n, v.kind, v.where, v.message, hall_key(v.where), *b))
    cols = ["number", "kind", "where", "message", "hall", "x0_m", "y0_m", "x1_m", "y1_m"]
    out = pd.DataFrame(rows, columns=cols)
    if out.empty:
        out = out.astype({"number": np.int64, **{c: float for c in cols[5:]}})
    return out


def marker_hall(scene: Scene, where: str) -> str | None:
    """The hall whose map shows ``where``: its own hall, else the first hall of the building it names."""
    key = hall_key(where)
    if key and scene.campus and any(h.key == key for h in scene.campus.halls):
        return key
    if scene.campus:
        return next((h.key for h in scene.campus.halls if h.building == where.split("/")[0]), None)
    return None


# ------------------------------------------------------------------------------------------- trays
def cdu_box_table(cdus: pd.DataFrame | None) -> pd.DataFrame:
    """See :attr:`Scene.cdu_boxes`."""
    return footprint_boxes(cdus, "cdu_id", "model")


def footprint_boxes(table: pd.DataFrame | None, *keep: str) -> pd.DataFrame:
    """The footprints of a table of things standing on the floor (``x_m, y_m, width_m, depth_m,
    rotation_deg`` as the racks table has them) as drawings draw them: the ``keep`` columns and ``hall``,
    ``x_m, y_m``, the half sizes along x and y ``half_x_m, half_y_m`` (a thing turned 90 or 270 degrees
    lies across) and the box ``x0_m, y0_m, x1_m, y1_m``."""
    text = [keep[0], "hall", *keep[1:]]
    cols = [*text, "x_m", "y_m", "half_x_m", "half_y_m", "x0_m", "y0_m", "x1_m", "y1_m"]
    if table is None or table.empty:
        return pd.DataFrame({c: pd.Series(dtype=object if c in text else float) for c in cols})
    across = np.isin(table["rotation_deg"].to_numpy(float), (90.0, 270.0))
    w, d = table["width_m"].to_numpy(float), table["depth_m"].to_numpy(float)
    hx, hy = np.where(across, d, w) / 2, np.where(across, w, d) / 2
    x, y = table["x_m"].to_numpy(float), table["y_m"].to_numpy(float)
    out: dict[str, np.ndarray] = {c: table[c].astype(str).to_numpy() for c in text}
    out.update({"x_m": x, "y_m": y, "half_x_m": hx, "half_y_m": hy, "x0_m": x - hx, "y0_m": y - hy,
                "x1_m": x + hx, "y1_m": y + hy})  # fmt: skip
    return pd.DataFrame(out)[cols]


def tray_edge_table(inputs: Inputs, trays: Any, edge_fill: pd.DataFrame, racks: pd.DataFrame) -> pd.DataFrame:
    """Tray edges with end points, where their label goes, cable counts and bundle lanes per class.

    One row per tray edge: ``x0_m, y0_m, x1_m, y1_m, kind, hall, width_mm, cables, fill``, the label's side
    (``side_x, side_y, clear_mm``) and, per media class, ``cables_<class>`` and ``lane_mm_<class>`` (the
    width the bundle takes across the tray when stacked to the tray's depth, so the lanes together show
    the fill). A row tray runs over its racks' middle: its label goes into the aisle behind the row
    (``side_x, side_y`` point to the rear, ``clear_mm`` is half the rack depth), so the rack tags at the
    fronts, the row labels in the front aisle and the aisle dimension (mid-aisle) stay clear. Other trays
    run over aisles and carry their label on themselves (side 0, 0).
    """
    e = trays.edges
    nodes = trays.nodes
    n = len(e)
    u = e["u"].to_numpy(np.int64)
    v = e["v"].to_numpy(np.int64)
    nx, ny = nodes["x_m"].to_numpy(float), nodes["y_m"].to_numpy(float)
    cols: dict[str, Any] = {
        "x0_m": nx[u],
        "y0_m": ny[u],
        "x1_m": nx[v],
        "y1_m": ny[v],
        "kind": e["kind"].astype(str).to_numpy(),
        "hall": e["hall"].astype(str).to_numpy(),
        "width_mm": e["width_mm"].to_numpy(float),
        "cables": edge_fill["cables"].to_numpy(np.int64),
        "fill": edge_fill["fill"].to_numpy(float),
        "over": edge_fill["over"].to_numpy(bool) if "over" in edge_fill else np.zeros(n, bool),
    }
    side_x, side_y, clear = np.zeros(n), np.zeros(n), np.zeros(n)
    row_edges = np.flatnonzero(cols["kind"] == "row")
    if not racks.empty and "where" in e and len(row_edges):
        rot, deep = _row_rear(racks)
        joined = e["where"].astype(str).to_numpy()[row_edges].tolist()
        for i, where in zip(row_edges.tolist(), joined, strict=True):
            w = where.split("+")[0]  # colinear rows share a tray line: "B1/H1/R01+B1/H1/R02"
            if w in rot:
                a = math.radians(rot[w])  # the front is (0, 1) turned by the rotation: the rear opposite
                side_x[i], side_y[i] = round(math.sin(a), 9), round(-math.cos(a), 9)
                clear[i] = deep[w] * 1000.0 / 2.0
    cols["side_x"], cols["side_y"], cols["clear_mm"] = side_x, side_y, clear
    depth = e["depth_mm"].to_numpy(float)
    lanes = np.zeros((n, len(MEDIA_CLASSES)))
    for k, cls in enumerate(MEDIA_CLASSES):
        ids = [
            mid
            for mid, m in inputs.catalog.media.items()
            if m.media_class == cls and f"cables_{mid}" in edge_fill
        ]
        if not ids:
            continue
        per_medium = [edge_fill[f"cables_{mid}"].to_numpy(np.int64) for mid in ids]
        count = sum(per_medium, np.zeros(n, np.int64))
        area = sum(
            (
                c.astype(float) * math.pi * (inputs.catalog.media[mid].diameter_mm / 2) ** 2
                for c, mid in zip(per_medium, ids, strict=True)
            ),
            np.zeros(n),
        )
        cols[f"cables_{cls}"] = count
        lanes[:, k] = area / np.maximum(depth, 1.0)
    # an over-full tray still draws its bundles inside the tray: squeeze the lanes to its width
    total = lanes.sum(axis=1)
    width = cols["width_mm"]
    squeeze = np.where(total > width, width / np.maximum(total, 1e-9), 1.0)
    for k, cls in enumerate(MEDIA_CLASSES):
        if f"cables_{cls}" in cols:
            cols[f"lane_mm_{cls}"] = np.round(lanes[:, k] * squeeze, 1)
    return pd.DataFrame(cols)


def _row_rear(racks: pd.DataFrame) -> tuple[dict[str, float], dict[str, float]]:
    """Per row id: the rotation of its first rack (by rack id) and its deepest rack's depth."""
    code, names = pd.factorize(racks["row"])
    ids = racks["rack_id"].to_numpy().astype(str)  # numpy orders them as pandas does: by code point
    rank = np.empty(len(ids), np.int64)
    rank[np.argsort(ids, kind="stable")] = np.arange(len(ids))
    smallest = np.full(len(names), len(ids), np.int64)
    np.minimum.at(smallest, code, rank)  # each row's smallest id, as its rank among all ids
    first = np.argsort(rank)[smallest]
    deep = np.full(len(names), -np.inf)
    np.maximum.at(deep, code, racks["depth_m"].to_numpy(float))
    rotation = racks["rotation_deg"].to_numpy(float)[first]
    keys = [str(r) for r in names]
    return dict(zip(keys, rotation.tolist(), strict=True)), dict(zip(keys, deep.tolist(), strict=True))


# ------------------------------------------------------------------------------------------ campus
def _bbox(points: Sequence[tuple[float, float]]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def campus_of(site: SiteFile, pods: Mapping[str, tuple[int, ...]] | None = None) -> Campus:
    halls = []
    for b in site.building:
        for h in b.hall:
            cols = np.array([(c.at[0], c.at[1], c.size_m[0], c.size_m[1]) for c in h.columns], float)
            halls.append(
                HallGeometry(
                    key=f"{b.id}/{h.id}",
                    building=b.id,
                    polygon=[(float(x), float(y)) for x, y in h.polygon],
                    columns=cols.reshape(-1, 4),
                    keepouts=tuple(
                        ([(float(x), float(y)) for x, y in k.polygon], k.reason) for k in h.keepouts
                    ),
                    max_rack_kw=h.max_rack_kw,
                    cold_aisle_m=h.cold_aisle_m,
                    hot_aisle_m=h.hot_aisle_m,
                    cross_aisle_m=h.cross_aisle_m,
                )
            )
    return Campus(
        buildings=tuple((b.id, list(b.footprint), b.entry) for b in site.building),
        halls=tuple(halls),
        ducts=tuple((f"{d.from_}-{d.to}", list(d.path)) for d in site.duct if d.path),
        pods=dict(pods or {}),
    )


def pods_by_hall(fabric: Any, placement: Any) -> dict[str, tuple[int, ...]]:
    """Which pods have servers in each hall (a pod normally stays inside one building)."""
    try:
        dev = fabric.devices
        rack = np.asarray(placement.device_rack, np.int64)
    except AttributeError:
        return {}
    racks = placement.racks
    ok = (dev["tier"].to_numpy() == 0) & (rack >= 0)
    if not ok.any() or racks.empty:
        return {}
    # (hall, pod) pairs as one integer key each: hall code x span + pod, unique and sorted by numpy
    hall_code, hall_names = pd.factorize(racks["hall"])
    pod = dev["pod"].to_numpy(np.int64)[ok]
    low = int(pod.min())
    span = int(pod.max()) - low + 1
    keys = np.unique(hall_code[rack[ok]].astype(np.int64) * span + (pod - low))
    pods: dict[str, list[int]] = {}
    for code, p in zip((keys // span).tolist(), (keys % span + low).tolist(), strict=True):
        pods.setdefault(str(hall_names[code]), []).append(p)
    return {h: tuple(pods[h]) for h in sorted(pods)}


# ------------------------------------------------------------------------------------------ build
def scene_from_parts(
    inputs: Inputs,
    placement: Any,
    rack_kw: npt.ArrayLike | None = None,
    cabling: Any = None,
    violations: Sequence[Violation] = (),
    summary: Mapping[str, Any] | None = None,
    rack_limit_kw: npt.ArrayLike | None = None,
    pods: Mapping[str, tuple[int, ...]] | None = None,
) -> Scene:
    """A scene from the pipeline's stages: placement (racks, rows), per-rack kW and limits, cabling (trays,
    fill). Without limits, each rack's limit is its hall's ``max_rack_kw``."""
    cluster = inputs.site.cluster
    per_server = inputs.catalog.server[cluster.server].gpus if cluster.server in inputs.catalog.server else 0
    racks = placement.racks
    if rack_limit_kw is None and len(racks):
        hall_max = {f"{b.id}/{h.id}": h.max_rack_kw for b, h in inputs.site.halls()}
        rack_limit_kw = racks["hall"].map(hall_max).fillna(0.0).to_numpy(float)
    edges = None
    if cabling is not None:
        edges = tray_edge_table(inputs, cabling.trays, cabling.edge_fill, racks)
    return Scene(
        site=inputs.site,
        stem=inputs.stem,
        templates=inputs.templates,
        racks=rack_table(racks, per_server, rack_kw, rack_limit_kw),
        rows=row_table(placement.rows),
        tray_edges=edges,
        violations=tuple(violations),
        summary=dict(summary or {}),
        campus=campus_of(inputs.site, pods),
        gpu_rack={k: (g.template, int(g.servers)) for k, g in getattr(placement, "gpu_rack", {}).items()},
    )


BUSWAY_OFFSET_M = 0.2  # A busways this far to one side of the row's centre line, B to the other


def busway_lines(racks: pd.DataFrame, feeds: pd.DataFrame, busways: pd.DataFrame) -> pd.DataFrame:
    """The busways as drawn: the chain's busway table plus ``x0_m, y0_m, x1_m, y1_m``, a line over the
    racks it feeds along their row (A on one side of the row's centre line, B on the other)."""
    if not len(busways) or not len(racks):
        return busways.assign(x0_m=[], y0_m=[], x1_m=[], y1_m=[]) if not len(busways) else busways
    x, y = racks["x_m"].to_numpy(float), racks["y_m"].to_numpy(float)
    w = racks["width_m"].to_numpy(float)
    along_x = np.isin(racks["rotation_deg"].to_numpy(float), (0.0, 180.0))
    lo = np.where(along_x, x - w / 2, y - w / 2)
    hi = np.where(along_x, x + w / 2, y + w / 2)
    across = np.where(along_x, y, x)
    frames = []
    for side, sign in (("a", -1.0), ("b", 1.0)):
        g = pd.DataFrame({"busway_id": feeds[f"feed_{side}"].to_numpy(), "lo": lo, "hi": hi, "across": across,
                          "along_x": along_x}).groupby("busway_id", sort=False)  # fmt: skip
        agg = g.agg(
            lo=("lo", "min"), hi=("hi", "max"), across=("across", "mean"), along_x=("along_x", "first")
        )
        agg["across"] += sign * BUSWAY_OFFSET_M
        frames.append(agg)
    geo = pd.concat(frames)
    geo = geo.reindex(busways["busway_id"].to_numpy())
    ax = geo["along_x"].fillna(True).to_numpy(bool)
    out = busways.reset_index(drop=True).copy()
    out["x0_m"] = np.where(ax, geo["lo"], geo["across"])
    out["y0_m"] = np.where(ax, geo["across"], geo["lo"])
    out["x1_m"] = np.where(ax, geo["hi"], geo["across"])
    out["y1_m"] = np.where(ax, geo["across"], geo["hi"])
    return out


def scene_of(design: Design, summary: Mapping[str, Any] | None = None) -> Scene:
    """The scene of a finished design (``summary``: the design's, if the caller has it already)."""
    from dataclasses import replace

    scene = scene_of_parts(design, summary)
    chain, liquid = design.chain, design.liquid
    cdus = liquid.cdus.loc[liquid.cdus["placed"].astype(bool)] if len(liquid.cdus) else None
    return replace(
        scene,
        power_chain=chain,
        ups=chain.ups if len(chain.ups) else None,
        cdus=cdus,
        fibre_cabinets=design.cabling.plant.cabinets if len(design.cabling.plant.cabinets) else None,
        sld=design.sld if len(chain.ups) else {},
    )


def scene_of_parts(design: Design, summary: Mapping[str, Any] | None = None) -> Scene:
    return scene_from_parts(
        design.inputs,
        design.placement,
        rack_kw=design.power.rack_kw,
        cabling=design.cabling,
        violations=design.violations,
        summary=design.summary() if summary is None else summary,
        rack_limit_kw=design.power.rack_limit_kw,
        pods=pods_by_hall(design.fabric, design.placement),
    )
