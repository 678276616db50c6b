"""What a plotted DXF sheet shows of its text, worked out from the file alone (read back with ezdxf).

For every paper-space layout (sheet): the texts drawn on the paper itself (height as is) and the model
texts its viewport shows (inside the viewport's window, on a layer the viewport does not freeze and that
plots), each with its plotted height (model height / the viewport's scale) and a box on paper. The
boxes are estimates: ``CHAR_W`` x height per character, turned by the text's rotation, placed by its
alignment; a dimension's text is its measurement block's MTEXT.

Independent of the writer: nothing here imports layout.export.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

CHAR_W = 0.75  # ISO lettering (isocp.shx): about 0.7 x height per character, with its spacing


@dataclass(frozen=True)
class PlotText:
    sheet: str
    layer: str
    text: str
    height_mm: float  # plotted
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 on paper (mm)
    kind: str  # TEXT, MTEXT, ATTRIB, DIMENSION
    space: str  # "paper" or "model"
    tag: str = ""  # an ATTRIB's tag


def _text_box(
    x: float, y: float, w: float, h: float, halign: int, valign: int, rot: float
) -> list[tuple[float, float]]:
    """The four corners of a text w x h anchored at (x, y) by (halign 0 left / 1 centre / 2 right,
    valign 0 baseline, 1 bottom, 2 middle, 3 top), turned by ``rot`` degrees about the anchor."""
    dx = {0: 0.0, 1: -w / 2, 2: -w, 4: -w / 2}.get(halign, 0.0)
    dy = {0: 0.0, 1: 0.0, 2: -h / 2, 3: -h}.get(valign, 0.0)
    c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
    pts = [(dx, dy), (dx + w, dy), (dx + w, dy + h), (dx, dy + h)]
    return [(x + px * c - py * s, y + px * s + py * c) for px, py in pts]


def _bbox(pts: list[tuple[float, float]]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))


def _plain(e: Any) -> str:
    if e.dxftype() == "MTEXT":
        return str(e.plain_text()).replace("\n", " ")
    return str(e.dxf.text)


def text_corners(e: Any) -> tuple[list[tuple[float, float]], float, str] | None:
    """Corners (drawing units) and height of a TEXT, ATTRIB or MTEXT; None for an invisible attribute."""
    t = e.dxftype()
    if t == "ATTRIB" and e.is_invisible:
        return None
    text = _plain(e)
    if t == "MTEXT":
        h = float(e.dxf.char_height)
        lines = max(str(e.plain_text()).split("\n"), key=len) if text else ""
        w = CHAR_W * h * len(lines)
        ap = int(e.dxf.attachment_point)
        halign = {1: 0, 2: 1, 3: 2}[(ap - 1) % 3 + 1]
        valign = {0: 3, 1: 2, 2: 1}[(ap - 1) // 3]
        x, y = e.dxf.insert.x, e.dxf.insert.y
        rot = float(e.dxf.get("rotation", 0.0))
    else:
        h = float(e.dxf.height)
        w = CHAR_W * h * len(text) * float(e.dxf.get("width", 1.0))
        halign, valign = int(e.dxf.get("halign", 0)), int(e.dxf.get("valign", 0))
        p = e.dxf.align_point if (halign or valign) and e.dxf.hasattr("align_point") else e.dxf.insert
        x, y = p.x, p.y
        rot = float(e.dxf.get("rotation", 0.0))
    return _text_box(x, y, w, h, halign, valign, rot), h, text


Found = tuple[Any, list[tuple[float, float]], float, str]  # entity, corners, height, text


def _own_texts(entities: Any) -> Iterator[Found]:
    """The TEXTs, MTEXTs and visible ATTRIBs among ``entities`` (an INSERT's own, where they stand)."""
    for e in entities:
        for t in e.attribs if e.dxftype() == "INSERT" else (e,) if e.dxftype() in ("TEXT", "MTEXT") else ():
            got = text_corners(t)
            if got:
                yield (t, *got)


def _model_texts(doc: Any) -> Iterator[Found]:
    """Every visible text in the model: TEXT, MTEXT, visible ATTRIBs and the dimensions' texts."""
    msp = doc.modelspace()
    yield from _own_texts(msp)
    for e in msp.query("DIMENSION"):
        blk = e.get_geometry_block()
        for _m, *got in _own_texts(blk.query("MTEXT TEXT") if blk is not None else ()):
            yield (e, *got)


def _paper_texts(layout: Any) -> Iterator[Found]:
    """Texts on the paper: its own and those of the blocks inserted there (at scale 1, unrotated)."""
    yield from _own_texts(layout)
    for e in layout.query("INSERT"):
        ix, iy = e.dxf.insert.x, e.dxf.insert.y
        for b, pts, h, text in _own_texts(e.block().query("TEXT MTEXT")):
            yield (b, [(px + ix, py + iy) for px, py in pts], h, text)


def viewport_of(layout: Any) -> Any:
    """The sheet's model viewport (the first after the layout's own, id 1), or None."""
    return next((v for v in layout.viewports() if v.dxf.id > 1), None)


def sheet_texts(doc: Any) -> dict[str, list[PlotText]]:
    """Per sheet (layout name), every text it plots."""
    model = list(_model_texts(doc))
    plots = {ly.dxf.name: bool(ly.dxf.plot) for ly in doc.layers}
    out: dict[str, list[PlotText]] = {}
    for name in doc.layout_names_in_taborder():
        if name == "Model":
            continue
        layout = doc.paperspace(name)
        items: list[PlotText] = []
        for e, pts, h, text in _paper_texts(layout):
            if not plots.get(e.dxf.layer, True):
                continue
            tag = e.dxf.tag if e.dxftype() == "ATTRIB" else ""
            items.append(PlotText(name, e.dxf.layer, text, h, _bbox(pts), e.dxftype(), "paper", tag))
        vp = viewport_of(layout)
        out[name] = items
        if vp is None:
            continue
        scale = vp.dxf.view_height / vp.dxf.height
        cx, cy = vp.dxf.view_center_point.x, vp.dxf.view_center_point.y
        pcx, pcy = vp.dxf.center.x, vp.dxf.center.y
        hw, hh = vp.dxf.width * scale / 2, vp.dxf.height * scale / 2
        frozen = set(vp.frozen_layers)
        for e, pts, h, text in model:
            layer = e.dxf.layer
            if layer in frozen or not plots.get(layer, True):
                continue
            mx, my = sum(p[0] for p in pts) / 4, sum(p[1] for p in pts) / 4
            if not (cx - hw <= mx <= cx + hw and cy - hh <= my <= cy + hh):
                continue
            paper = [((px - cx) / scale + pcx, (py - cy) / scale + pcy) for px, py in pts]
            items.append(PlotText(name, layer, text, h / scale, _bbox(paper), e.dxftype(), "model"))
    return out


def overlaps(
    a: tuple[float, float, float, float], b: tuple[float, float, float, float], slack: float = 0.0
) -> bool:
    """Two boxes overlap by more than ``slack`` mm both ways."""
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


def collisions(texts: list[PlotText], slack: float = 0.2) -> list[tuple[PlotText, PlotText]]:
    """Pairs of texts whose boxes overlap (a grid of 10 mm cells keeps it near-linear)."""
    cells: dict[tuple[int, int], list[int]] = {}
    for i, t in enumerate(texts):
        x0, y0, x1, y1 = t.box
        for gx in range(int(x0 // 10), int(x1 // 10) + 1):
            for gy in range(int(y0 // 10), int(y1 // 10) + 1):
                cells.setdefault((gx, gy), []).append(i)
    seen: set[tuple[int, int]] = set()
    out = []
    for members in cells.values():
        for k, i in enumerate(members):
            for j in members[k + 1 :]:
                if (i, j) in seen:
                    continue
                seen.add((i, j))
                if overlaps(texts[i].box, texts[j].box, slack):
                    out.append((texts[i], texts[j]))
    return out
