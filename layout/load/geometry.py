"""Shapes of a site and where things stand in them: polygons that enclose an area, duct ends at the
buildings, rows and tray edits inside their halls, rows that do not overlap."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from shapely.geometry import LineString, Polygon
from shapely.geometry import Point as ShapelyPoint
from shapely.validation import explain_validity

from layout.errors import Problem
from layout.load.messages import coord, id_list, num, xy
from layout.load.parts import Parts
from layout.model import RackTemplate

ENTRY_TOLERANCE_M = 1.0  # a building entry must lie within this distance of the footprint outline
DUCT_END_TOLERANCE_M = 5.0  # a duct path must start/end within this distance of the buildings' entries
MAX_HALL_AREA_M2 = 1_000_000.0  # 1 km²: designs in ~3 s and 200 MB; far larger halls exhaust memory
MAX_USER_ROWS = 5_000  # [[row]] entries of one site


def checked_polygon(
    points: Sequence[Sequence[float]] | None, file: str, key: str, problems: list[Problem]
) -> Polygon | None:
    if points is None:
        return None
    pts = [tuple(pt) for pt in points]
    if len(pts) >= 2 and pts[0] == pts[-1]:
        pts = pts[:-1]
    if len(pts) < 3:
        problems.append(
            Problem(
                file,
                key,
                f"open polygon: only {len(pts)} corner{'' if len(pts) == 1 else 's'}",
                "at least 3 corners [[x, y], ...] enclosing an area",
            )
        )
        return None
    poly = Polygon(pts)
    if poly.convex_hull.area <= 1e-9:
        problems.append(
            Problem(
                file,
                key,
                "the corners lie on one line, the polygon has no area",
                "corners that enclose an area",
            )
        )
        return None
    if not poly.is_valid:
        why = explain_validity(poly)
        reason, _, rest = why.partition("[")
        at = rest.rstrip("]").split()
        where = f" at ({', '.join(coord(float(v)) for v in at)})" if len(at) == 2 else ""
        text = {
            "Self-intersection": f"edges cross each other{where}",
            "Ring Self-intersection": f"the outline touches itself{where}",
        }.get(reason, f"invalid polygon: {reason.lower()}{where}")
        problems.append(
            Problem(file, key, text, "corners listed in order around the outline, edges that do not cross")
        )
        return None
    return poly


def nearest_on(line: Any, pt: Sequence[float]) -> tuple[float, float]:
    """The point of ``line`` (e.g. a footprint outline) closest to ``pt``."""
    near = line.interpolate(line.project(ShapelyPoint(pt)))
    return (near.x, near.y)


def extent(poly: Polygon) -> str:
    x0, y0, x1, y1 = poly.bounds
    return f"x {coord(x0)}..{coord(x1)}, y {coord(y0)}..{coord(y1)}"


def area_text(a: float) -> str:
    return f"{a:,.1f}".rstrip("0").rstrip(".")


@dataclass
class HallGeo:
    key: str  # dotted key of the hall, e.g. building[0].hall[1]
    polygon: Polygon | None


def check_ducts(
    parts: Parts, buildings: Mapping[str, tuple[int, Polygon | None, Any]], file: str
) -> list[Problem]:
    p: list[Problem] = []
    for di, d in parts.ducts:
        ends_ok = True
        for end in ("from_", "to"):
            bid = d.get(end)
            if bid is not None and bid not in buildings:
                ends_ok = False
                if bid in parts.refused:
                    continue
                p.append(
                    Problem(
                        file, f"duct[{di}].{end.rstrip('_')}", f'unknown building "{bid}"', id_list(buildings)
                    )
                )
        if d.get("from_") is not None and d.get("from_") == d.get("to"):
            p.append(
                Problem(
                    file,
                    f"duct[{di}].to",
                    f'a duct from building "{d["to"]}" to itself',
                    "two different buildings",
                )
            )
            continue
        path = d.get("path")
        if not path or not ends_ok or "from_" not in d or "to" not in d:
            continue
        for end, idx in (("from_", 0), ("to", len(path) - 1)):
            bid = d[end]
            _, fp, entry = buildings[bid]
            pt = path[idx]
            if entry is not None:
                gap = math.dist(pt, entry)
                target, near = f"building {bid}'s entry at {xy(entry)}", tuple(entry)
            elif fp is not None:
                gap = fp.exterior.distance(ShapelyPoint(pt))
                target, near = f"building {bid}'s outer wall", nearest_on(fp.exterior, pt)
            else:
                continue
            if gap > DUCT_END_TOLERANCE_M:
                verb = "starts" if idx == 0 else "ends"
                p.append(
                    Problem(
                        file,
                        f"duct[{di}].path[{idx}]",
                        f"path {verb} at {xy(pt)}, {coord(gap)} m from {target}",
                        f"a point within {num(DUCT_END_TOLERANCE_M)} m of it, e.g. {xy(near)}",
                    )
                )
    return p


def check_rows(
    parts: Parts, halls: Mapping[str, HallGeo], templates: Mapping[str, RackTemplate] | None, file: str
) -> list[Problem]:
    p: list[Problem] = []
    if len(parts.rows) > MAX_USER_ROWS:
        return [
            Problem(
                file,
                "row",
                f"{len(parts.rows):,} [[row]] entries are more than the tool designs",
                f"at most {MAX_USER_ROWS:,} rows",
            )
        ]
    boxes: dict[str, list[tuple[int, float, float, float, float]]] = {}  # hall -> (row, x0, y0, x1, y1)
    for ri, r in parts.rows:
        tpls, problems = _row_templates(ri, r, templates, file)
        p += problems
        if "hall" not in r:
            continue
        geo = halls.get(r["hall"])
        if geo is None:
            if r["hall"] not in parts.refused:
                p.append(Problem(file, f"row[{ri}].hall", f'unknown hall "{r["hall"]}"', id_list(halls)))
            continue
        origin = r.get("origin")
        if geo.polygon is None or origin is None:
            continue
        inside = geo.polygon.buffer(1e-6)
        if not inside.contains(ShapelyPoint(origin)):
            p.append(
                Problem(
                    file,
                    f"row[{ri}].origin",
                    f"row origin {xy(origin)} is outside hall {r['hall']}",
                    f"a point inside the hall, {extent(geo.polygon)}",
                )
            )
            continue
        if tpls is None or "racks" not in r or "axis" not in r:
            continue
        dx, dy = (1.0, 0.0) if r["axis"] == "x" else (0.0, 1.0)
        length = sum(t.width_m for t in tpls)
        depth = max(t.depth_m for t in tpls)  # the deepest rack: fronts align, as placed
        end = (origin[0] + dx * length, origin[1] + dy * length)
        across = (origin[0] + dy * depth, origin[1] + dx * depth)
        boxes.setdefault(r["hall"], []).append(
            (ri, origin[0], origin[1], max(end[0], across[0]), max(end[1], across[1]))
        )
        if not inside.contains(LineString([origin, end])):
            ids = sorted({t.id for t in tpls})
            fit = _racks_that_fit(geo.polygon, origin, (dx, dy), [t.width_m for t in tpls])
            p.append(
                Problem(
                    file,
                    f"row[{ri}].racks",
                    f"{r['racks']} racks of {', '.join(ids)} ({coord(length)} m along {r['axis']}) run out of hall {r['hall']} at {xy(end)}",
                    f"at most {fit} racks from this origin",
                )
            )
    for hall, rows in boxes.items():
        p += _row_overlaps(hall, rows, file)
    return p


def _row_templates(
    ri: int, r: Mapping[str, Any], templates: Mapping[str, RackTemplate] | None, file: str
) -> tuple[list[RackTemplate] | None, list[Problem]]:
    """A [[row]]'s racks' templates in order (None when they are not known), and the problems of its
    ``template`` and ``templates`` keys: one of the two, ``templates`` as many as ``racks``, known ids.
    A key pydantic refused is not in ``r`` (it said why): nothing more is said of it here."""
    p: list[Problem] = []
    if "template" not in r or "templates" not in r:
        return None, p
    one, many = r["template"], r["templates"]
    if one is None and many is None:
        allowed = 'add template = "..." (every rack) or templates = ["...", ...] (one per rack)'
        if templates is not None:
            allowed += f", of: {id_list(templates)}"
        return None, [Problem(file, f"row[{ri}].template", "required key is missing", allowed)]
    if one is not None and many is not None:
        p.append(
            Problem(
                file,
                f"row[{ri}].template",
                "a row with templates (one per rack) takes no template",
                "either template (every rack) or templates (one per rack)",
            )
        )
    if many is not None and "racks" in r and r["racks"] != len(many):
        p.append(
            Problem(
                file,
                f"row[{ri}].templates",
                f"{len(many)} templates for {r['racks']} racks",
                f"one template per rack: racks = {len(many)}, or {r['racks']} templates",
            )
        )
    if templates is None:
        return None, p
    ids = list(many) if many is not None else [one]
    key = f"row[{ri}].templates" if many is not None else f"row[{ri}].template"
    for k, tid in enumerate(ids):
        if tid not in templates:
            where = f"{key}[{k}]" if many is not None else key
            p.append(Problem(file, where, f'unknown rack template "{tid}"', id_list(templates)))
    if p:
        return None, p
    if many is None:
        return [templates[one]] * int(r.get("racks") or 1), p
    return [templates[t] for t in many], p


def _row_overlaps(
    hall: str, rows: Sequence[tuple[int, float, float, float, float]], file: str
) -> list[Problem]:
    """The user rows of one hall whose racks overlap an earlier row's (one problem for the first, the
    count of the others); the rack footprints are axis-aligned boxes, compared all against all."""
    if len(rows) < 2:
        return []
    a = np.asarray(rows, dtype=float)
    idx, x0, y0, x1, y1 = a[:, 0].astype(int), a[:, 1], a[:, 2], a[:, 3], a[:, 4]
    eps = 1e-6
    hit = (
        (x0[:, None] < x1[None, :] - eps)
        & (x0[None, :] < x1[:, None] - eps)
        & (y0[:, None] < y1[None, :] - eps)
        & (y0[None, :] < y1[:, None] - eps)
    )
    hit &= np.tri(len(rows), k=-1, dtype=bool)  # only an earlier row counts
    bad = np.flatnonzero(hit.any(axis=1))
    if not len(bad):
        return []
    first = int(bad[0])
    earlier = int(idx[int(np.argmax(hit[first]))])
    more = f" (and {len(bad) - 1:,} more rows like it)" if len(bad) > 1 else ""
    return [
        Problem(
            file,
            f"row[{idx[first]}].origin",
            f"racks of this row overlap those of row[{earlier}] in hall {hall}{more}",
            "rows whose racks do not overlap",
        )
    ]


def _racks_that_fit(
    hall: Polygon, origin: Sequence[float], direction: tuple[float, float], widths_m: Sequence[float]
) -> int:
    """How many of the racks of ``widths_m`` (in order) fit along ``direction`` from ``origin``."""
    x0, y0, x1, y1 = hall.bounds
    reach = math.hypot(x1 - x0, y1 - y0)
    ray = LineString([origin, (origin[0] + direction[0] * reach, origin[1] + direction[1] * reach)])
    inside = hall.buffer(1e-6).intersection(ray)
    pieces = list(getattr(inside, "geoms", [inside]))
    start = ShapelyPoint(origin)
    run = next((g for g in pieces if g.length > 0 and g.distance(start) < 1e-6), None)
    if run is None:
        return 0
    ends = np.cumsum(np.asarray(widths_m, float))
    return int(np.searchsorted(ends, run.length + 1e-9, side="right"))


def check_tray_edits(parts: Parts, halls: Mapping[str, HallGeo], file: str) -> list[Problem]:
    """[[tray_block]] and [[tray_add]] name a known hall and lie inside it."""
    p: list[Problem] = []
    for edit_name, edits in parts.tray_edits.items():
        for ti, t in edits:
            if "hall" not in t:
                continue
            geo = halls.get(t["hall"])
            if geo is None:
                if t["hall"] not in parts.refused:
                    p.append(
                        Problem(
                            file, f"{edit_name}[{ti}].hall", f'unknown hall "{t["hall"]}"', id_list(halls)
                        )
                    )
                continue
            line = t.get("line")
            if geo.polygon is None or line is None:
                continue
            if not geo.polygon.buffer(0.01).contains(LineString(line)):
                out = next(
                    (pt for pt in line if not geo.polygon.buffer(0.01).contains(ShapelyPoint(pt))), None
                )
                what = (
                    f"point {xy(out)} is outside hall {t['hall']}"
                    if out
                    else f"the line leaves hall {t['hall']}"
                )
                p.append(
                    Problem(
                        file,
                        f"{edit_name}[{ti}].line",
                        what,
                        f"a line inside the hall, {extent(geo.polygon)}",
                    )
                )
    return p
