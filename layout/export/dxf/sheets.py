"""The sheets: ISO A1 paper, the frame and viewport on it, the standard plot scales, which sheets a
scene gets (site, buildings, halls, power) and the scale that sizes the annotation of each place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from layout.export.dxf.layers import MM_PER_M
from layout.scene import Scene
from layout.sheet_names import building_sheet, hall_sheet, power_sheet, sld_sheet

PAPER_A1_MM = (841.0, 594.0)
# Standard plot scales (1:n); a sheet takes the largest one at which its area fits the viewport.
STANDARD_SCALES = (20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
# A1 landscape: 20 mm binding margin on the left, 10 mm elsewhere; a 180 mm column on the right holds
# the legend, north arrow, scale bar and title block; the viewport fills the rest.
FRAME = (20.0, 10.0, 831.0, 584.0)
SIDE_X = FRAME[2] - 180.0
VIEW_BOX = (FRAME[0] + 5.0, FRAME[1] + 14.0, SIDE_X - 5.0, FRAME[3] - 5.0)
PLOT_FLAGS = 32 | 128 | 512  # PLOTSETTINGS 70: plot plot styles, print lineweights, viewports first
VIEW_MARGIN_MM = 12.0  # paper kept free around the drawn area for dimensions and labels


@dataclass(frozen=True)
class Sheet:
    name: str  # layout tab
    title: str  # second title line, e.g. "Hall B1/H1: racks, trays and cabling"
    bbox_m: tuple[float, float, float, float]
    scale: int
    kind: str  # "site", "building", "hall", "power", "sld"
    hall: str = ""  # the hall a hall or power sheet draws, "B1/H1" (ids may hold "-": not from the name)


def fit_scale(width_m: float, height_m: float) -> int:
    """The largest standard scale (smallest 1:n) at which width x height fits the sheet's viewport."""
    vw = VIEW_BOX[2] - VIEW_BOX[0] - 2 * VIEW_MARGIN_MM
    vh = VIEW_BOX[3] - VIEW_BOX[1] - 2 * VIEW_MARGIN_MM
    for n in STANDARD_SCALES:
        if width_m * MM_PER_M / n <= vw and height_m * MM_PER_M / n <= vh:
            return n
    return STANDARD_SCALES[-1]


def bbox(points: Sequence[tuple[float, float]]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def union(boxes: Sequence[tuple[float, float, float, float]]) -> tuple[float, float, float, float]:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def plan_sheets(scene: Scene) -> list[Sheet]:
    """Site overview, one sheet per building when there are several, one per hall."""
    site = scene.site
    boxes = [bbox(b.footprint) for b in site.building]
    for d in site.duct:
        if d.path:
            boxes.append(bbox(d.path))
    site_box = union(boxes)
    sheets = [
        Sheet(
            "00 SITE",
            "Site plan: buildings, halls and campus ducts",
            site_box,
            fit_scale(site_box[2] - site_box[0], site_box[3] - site_box[1]),
            "site",
        )
    ]
    multi = len(site.building) > 1
    for b in site.building:
        if multi:
            bb = bbox(b.footprint)
            sheets.append(
                Sheet(
                    building_sheet(b.id),
                    f"Building {b.id}: halls and racks",
                    bb,
                    fit_scale(bb[2] - bb[0], bb[3] - bb[1]),
                    "building",
                )
            )
        for h in b.hall:
            hb = bbox(h.polygon)
            sheets.append(
                Sheet(
                    hall_sheet(b.id, h.id),
                    f"Hall {b.id}/{h.id}: racks, trays and cabling",
                    hb,
                    fit_scale(hb[2] - hb[0], hb[3] - hb[1]),
                    "hall",
                    f"{b.id}/{h.id}",
                )
            )
    if scene.busways is not None:  # a power sheet per hall with a power chain, after the plans
        chained = set(scene.busways["hall"])
        for b in site.building:
            for h in b.hall:
                if f"{b.id}/{h.id}" in chained:
                    hb = bbox(h.polygon)
                    sheets.append(
                        Sheet(
                            power_sheet(b.id, h.id),
                            f"Hall {b.id}/{h.id}: power chain, busways A and B, UPS blocks, CDUs",
                            hb,
                            fit_scale(hb[2] - hb[0], hb[3] - hb[1]),
                            "power",
                            f"{b.id}/{h.id}",
                        )
                    )
    if scene.sld:  # a single-line diagram per hall, last
        sheets += sld_sheets(scene, site_box, sheets[0].scale)
    return sheets


SLD_W_MM, SLD_H_MM = 560.0, 500.0  # a single-line diagram's extent on paper (an A1 viewport at 1:100)
SLD_SCALE = 100  # the diagram's paper mm x this = model mm: an A1 viewport at 1:100
SLD_GAP_M = 100.0  # between the site and the first diagram, and between diagrams, in model metres


def sld_sheets(scene: Scene, site_box: tuple[float, float, float, float], site_scale: int) -> list[Sheet]:
    """One sheet per hall with a power chain: its single-line diagram, drawn east of the site in model
    space at 1:100, each in its own area: a whole site viewport's width clear of the site (so no plan's
    viewport, at most the site's scale, shows a diagram) and ``SLD_GAP_M`` apart."""
    chained = set(scene.sld)
    w_m, h_m = SLD_W_MM * SLD_SCALE / MM_PER_M, SLD_H_MM * SLD_SCALE / MM_PER_M
    out: list[Sheet] = []
    x = site_box[2] + max(SLD_GAP_M, (VIEW_BOX[2] - VIEW_BOX[0]) * site_scale / MM_PER_M)
    for b in scene.site.building:
        for h in b.hall:
            if f"{b.id}/{h.id}" in chained:
                box = (x, site_box[1], x + w_m, site_box[1] + h_m)
                out.append(
                    Sheet(sld_sheet(b.id, h.id), f"Hall {b.id}/{h.id}: single-line diagram", box, SLD_SCALE,
                          "sld", f"{b.id}/{h.id}")
                )  # fmt: skip
                x += w_m + SLD_GAP_M
    return out


class Scales:
    """The plot scale that sizes the annotation of each place: its hall's sheet, else the site's."""

    def __init__(self, scene: Scene, sheets: Sequence[Sheet]) -> None:
        self.site = sheets[0].scale
        self.hall = {s.hall: s.scale for s in sheets if s.kind == "hall"}
        self.building: dict[str, int] = {}
        for b in scene.site.building:
            mine = [self.hall[f"{b.id}/{h.id}"] for h in b.hall if f"{b.id}/{h.id}" in self.hall]
            self.building[b.id] = min(mine) if mine else self.site
        values = sorted(self.hall.values())
        # the hall scale most sheets use (ties: the finer one) sets $LTSCALE and the current dimstyle
        self.main = max(values, key=lambda s: (values.count(s), -s)) if values else self.site

    def of(self, where: str) -> int:
        """Scale for a hall key, anything inside a hall (B1/H1/R03/K07), a building id, else the site."""
        parts = where.split("/")
        if len(parts) >= 2 and f"{parts[0]}/{parts[1]}" in self.hall:
            return self.hall[f"{parts[0]}/{parts[1]}"]
        return self.building.get(parts[0], self.site)
