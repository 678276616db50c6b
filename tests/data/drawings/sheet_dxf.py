"""Cut a DXF down to what one of its A1 sheets plots, so LibreCAD (which prints the model space only)
renders that sheet at its plot scale.

    python tests/data/drawings/sheet_dxf.py IN.dxf SHEET OUT.dxf
    QT_QPA_PLATFORM=offscreen librecad dxf2pdf -a -p 841x594 OUT.dxf   # OUT.pdf: the sheet on A1

Keeps the model entities inside the sheet's viewport window and on layers the viewport does not
freeze, and adds the A1 page's outline at the sheet's scale (on the unplotted viewport layer), so
fitting the drawing to 841 x 594 mm prints it at exactly the sheet's scale. Prints the scale.
"""

from __future__ import annotations

import sys
from typing import Any

import ezdxf


def anchor(e: Any) -> list[tuple[float, float]] | None:
    """The points that say where an entity is (None: it is cut)."""
    t = e.dxftype()
    if t in ("TEXT", "MTEXT", "INSERT"):
        return [(e.dxf.insert.x, e.dxf.insert.y)]
    if t == "CIRCLE":
        return [(e.dxf.center.x, e.dxf.center.y)]
    if t == "LWPOLYLINE":
        return [(x, y) for x, y in e.get_points("xy")]
    if t == "LINE":
        return [(e.dxf.start.x, e.dxf.start.y)]
    if t == "DIMENSION":
        return [(e.dxf.defpoint.x, e.dxf.defpoint.y)]
    if t == "HATCH" and len(e.paths) and hasattr(e.paths[0], "vertices"):
        return [(v[0], v[1]) for v in e.paths[0].vertices]
    return None


def cut(src: str, sheet: str, dst: str) -> float:
    doc = ezdxf.readfile(src)
    vp = next(v for v in doc.paperspace(sheet).viewports() if v.dxf.id > 1)
    sc = vp.dxf.view_height / vp.dxf.height
    cx, cy = vp.dxf.view_center_point.x, vp.dxf.view_center_point.y
    hw, hh = vp.dxf.width * sc / 2, vp.dxf.height * sc / 2
    frozen = set(vp.frozen_layers)
    msp = doc.modelspace()

    def inside(p: tuple[float, float], k: float = 1.0) -> bool:
        return abs(p[0] - cx) <= hw * k and abs(p[1] - cy) <= hh * k

    dead = []
    for e in msp:
        pts = anchor(e)
        # a polyline stays only whole (a long duct would stretch the fit), a point entity if inside
        if (
            e.dxf.layer in frozen
            or pts is None
            or not (all(inside(p, 1.3) for p in pts) if e.dxftype() == "LWPOLYLINE" else inside(pts[0]))
        ):
            dead.append(e)
    for e in dead:
        msp.delete_entity(e)
    pw, ph = 841 * sc / 2 * 0.999, 594 * sc / 2 * 0.999
    msp.add_lwpolyline([(cx - pw, cy - ph), (cx + pw, cy - ph), (cx + pw, cy + ph), (cx - pw, cy + ph)],
                       close=True, dxfattribs={"layer": "G-VPRT"})  # fmt: skip
    doc.saveas(dst)
    return float(sc)


if __name__ == "__main__":
    print(cut(*sys.argv[1:4]))
