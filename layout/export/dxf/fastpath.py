"""The fast path: model-space entities written as DXF text, with the handles ezdxf would give them.

A campus has thousands of racks (an INSERT, six ATTRIBs, a SEQEND and a tag each) and ~10k tray entities,
and ezdxf spends ~50 us on every entity it builds and again on every one it writes. These are not built
as ezdxf objects: :class:`RawEntities` holds them as the text ezdxf would write for them, each at its
place among the model space's entities, and :func:`write_with_raw_entities` writes the document with
that text in place. Same bytes as building them one by one (the tests compare with ezdxf's own output);
the in-memory document holds no rack or tray entities (read the written file back to query them).

The same for the rest of what dominates the campus's drawing: each DIMENSION's anonymous block (~10
entities, drawn by ezdxf's own renderer into :class:`DimensionBlock`, which writes them as text; the
DIMENSION and its block stay ezdxf's), the model space's notes (:meth:`RawEntities.add_note`), and, when
the document is written, its plain TEXT, LINE and LWPOLYLINE entities in the model and paper spaces
(:func:`entity_text`). The tests compare the whole drawing with what ezdxf alone writes.

Everything here depends on how ezdxf writes an entity and gives out handles: this module is the one
place that does.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from ezdxf.document import Drawing
from ezdxf.entities import DXFEntity
from ezdxf.entities.dimstyleoverride import DimStyleOverride
from ezdxf.enums import TextEntityAlignment
from ezdxf.layouts import BlockLayout, Modelspace
from ezdxf.math import Vec2
from ezdxf.render.arrows import ARROWS

from layout.export.dxf.layers import APPID, MM_PER_M, NOTE_STYLE, RACK_ATTRIBS, RACK_LAYER, rack_block_name


class TrayLine(NamedTuple):
    """A straight LWPOLYLINE at a constant width: a tray, or a bundle in its lane (``xdata``: medium, cables)."""

    layer: str
    p: tuple[float, float]
    q: tuple[float, float]
    width: float
    xdata: tuple[str, int] | None = None


class TrayText(NamedTuple):
    """A TEXT in the note style, placed at ``at`` by ``align`` (BOTTOM_LEFT or MIDDLE_CENTER)."""

    layer: str
    text: str
    at: tuple[float, float]
    height: float
    rotation: float = 0.0
    align: TextEntityAlignment = TextEntityAlignment.MIDDLE_CENTER


class TrayRiser(NamedTuple):
    """An INSERT of the riser block."""

    layer: str
    at: tuple[float, float]


TrayEntity = TrayLine | TrayText | TrayRiser

# handles ezdxf gives each: an INSERT takes two (its SEQEND's is kept even without attributes)
TRAY_HANDLES = {TrayLine: 1, TrayText: 1, TrayRiser: 2}
RACK_HANDLES = 2 + len(RACK_ATTRIBS) + 1  # INSERT, SEQEND, ATTRIBs, tag TEXT


# TEXT alignments the tray writer knows: (group 72 horizontal, group 73 vertical)
TEXT_ALIGN = {
    TextEntityAlignment.MIDDLE_CENTER: (1, 2),
    TextEntityAlignment.BOTTOM_LEFT: (0, 1),
    TextEntityAlignment.TOP_LEFT: (0, 3),
    TextEntityAlignment.BOTTOM_RIGHT: (2, 1),
    TextEntityAlignment.TOP_RIGHT: (2, 3),
    TextEntityAlignment.MIDDLE_LEFT: (0, 2),
    TextEntityAlignment.MIDDLE_RIGHT: (2, 2),
    TextEntityAlignment.TOP_CENTER: (1, 3),
    TextEntityAlignment.BOTTOM_CENTER: (1, 1),
}

# texts at the same place in the model space go in this order: the trays under the racks; notes (added
# after the racks) in the order they are added
TRAYS_RANK, RACKS_RANK = 0, 1
NOTES_RANK = RACKS_RANK
OWN_RANK = 2  # a model-space entity written by entity_text: after the texts before it


class RawEntities:
    """The model-space entities of one drawing held as DXF text: each text with its place (the index,
    among the model space's entities, of the entity it is written before) and its rank among the texts
    at the same place. Filled while the drawing is built (:meth:`add_racks`, :meth:`add_trays`), written
    with it by :func:`write_with_raw_entities`."""

    def __init__(self) -> None:
        self._texts: list[tuple[int, int, str]] = []
        self._blocks: list[tuple[str, str]] = []  # (ENDBLK handle, the block's entities)

    def __bool__(self) -> bool:
        return bool(self._texts) or bool(self._blocks)

    def blocks(self) -> list[tuple[str, str]]:
        """(handle of the block's ENDBLK, text of its entities) of every block whose entities are text."""
        return list(self._blocks)

    def placed(self) -> list[tuple[int, str]]:
        """(place, text) of every text, in the order they are written."""
        return [(place, text) for place, _rank, text in sorted(self._texts, key=lambda t: (t[0], t[1]))]

    def texts(self) -> list[tuple[int, int, str]]:
        """(place, rank, text) of every text, in the order they were added."""
        return list(self._texts)

    def add_racks(self, msp: Modelspace, order: pd.DataFrame, marks: pd.DataFrame) -> None:
        """The racks ``order`` (with their ``marks``), after the model space's entities so far, taking
        the next handles as if ezdxf had built them now."""
        first = _take_handles(msp, RACK_HANDLES * len(order))
        text = rack_entities_text(order, marks, first, msp.layout_key)
        self._texts.append((len(msp.entity_space), RACKS_RANK, text))

    def add_trays(self, msp: Modelspace, items: Sequence[TrayEntity], riser: str, place: int) -> None:
        """The tray entities ``items`` before the model-space entity at ``place`` (under the racks if
        they are there too), taking the next handles as if ezdxf had built them now."""
        first = _take_handles(msp, sum(TRAY_HANDLES[type(e)] for e in items))
        self._texts.append((place, TRAYS_RANK, tray_entities_text(items, riser, first, msp.layout_key)))

    def add_note(self, msp: Modelspace, item: TrayText) -> None:
        """A TEXT in the note style after the model space's entities so far (and the texts added before
        it), taking the next handle as if ezdxf had built it now."""
        first = _take_handles(msp, 1)
        self._texts.append(
            (len(msp.entity_space), NOTES_RANK, tray_entities_text([item], "", first, msp.layout_key))
        )

    def render_dimension(self, dim: DimStyleOverride) -> None:
        """``dim.render()``: the DIMENSION's anonymous block drawn by ezdxf's renderer, its entities (the
        extension and dimension lines, arrows, measurement text and definition points) held as the text
        ezdxf would write for them, with the handles it would give them."""
        assert dim.doc is not None
        renderer = dim.get_renderer()
        block = dim.doc.blocks.new_anonymous_block(type_char="D")
        dim.dimension.dxf.geometry = block.name
        content = DimensionBlock(block)
        renderer.render(content)  # type: ignore[arg-type]  # a stand-in for the block layout
        renderer.finalize()
        if len(dim.dimstyle_attribs):
            dim.commit()
        endblk = block.endblk
        assert endblk is not None
        self._blocks.append((endblk.dxf.handle, content.text()))


def render_dimension(dim: DimStyleOverride, raw: RawEntities | None) -> None:
    """Render ``dim``: through ``raw`` (its block's entities as text) if given, else by ezdxf."""
    if raw is None:
        dim.render()
    else:
        raw.render_dimension(dim)


def _take_handles(msp: Modelspace, count: int) -> int:
    """The first of the next ``count`` handles of the model space's document; ezdxf goes on after them."""
    assert msp.doc is not None
    return _take_doc_handles(msp.doc, count)


def _take_doc_handles(doc: Drawing, count: int) -> int:
    """The first of the next ``count`` handles of ``doc``; ezdxf goes on after them."""
    handles = doc.entitydb.handles
    first = int(str(handles), 16)
    handles.reset(f"{first + count:X}")
    return first


def write_with_raw_entities(doc: Drawing, raw: RawEntities) -> str:
    """The DXF text of ``doc`` as ezdxf writes it, with ``raw``'s texts in its model space: each before
    the entity at its place (found by its handle), or after the last one (before the active paper
    space's entities, which follow the model space's in the ENTITIES section); and with its blocks'
    texts before their ENDBLKs. The plain TEXT, LINE and LWPOLYLINE entities of the model and paper
    spaces are written by :func:`entity_text` (same bytes, a fraction of the time), the rest by ezdxf."""
    model = doc.modelspace()
    active = doc.layouts.active_layout()
    # model space first, then the active paper space (both in ENTITIES), then the other paper spaces
    # (each in its block in BLOCKS)
    layouts = [model, active, *(lo for lo in doc.layouts if lo is not model and lo is not active)]
    spaces = [lo.entity_space.entities for lo in layouts]
    owns = [
        {i: t for i, e in enumerate(es) if e.is_alive and (t := entity_text(e)) is not None} for es in spaces
    ]
    stream = io.StringIO()
    for lo, es, own in zip(layouts, spaces, owns, strict=True):
        lo.entity_space.entities = [e for i, e in enumerate(es) if i not in own]
    try:
        doc.write(stream)
    finally:
        for lo, es in zip(layouts, spaces, strict=True):
            lo.entity_space.entities = es
    text = stream.getvalue()
    if not raw and not any(owns):
        return text
    inserts: list[tuple[int, str]] = []  # (offset in text, chunk): chunks at one offset in this order
    blocks_at = text.index("  0\nSECTION\n  2\nBLOCKS\n")
    if raw.blocks():
        ends = {
            m[1]: m.start() for m in _ENDBLK.finditer(text, blocks_at, text.index("  0\nENDSEC\n", blocks_at))
        }
        inserts += [(ends[handle], chunk) for handle, chunk in raw.blocks()]
    entities_at = text.index("  0\nSECTION\n  2\nENTITIES\n")
    written = [_written_from(es, own) for es, own in zip(spaces, owns, strict=True)]
    for k, (lo, es, own) in enumerate(zip(layouts, spaces, owns, strict=True)):
        # raw texts go before the entity at their place, a space's own entities in their place
        chunks = [(i, OWN_RANK, chunk) for i, chunk in own.items()]
        if k == 0:
            chunks += raw.texts()
            after_last = written[1][0]  # the active paper space's first written entity
            end, find_from = (_head(after_last) if after_last else "  0\nENDSEC\n"), entities_at
        elif k == 1:
            end, find_from = "  0\nENDSEC\n", entities_at
        else:
            record = lo.block_record
            assert record.block is not None and record.endblk is not None
            end = f"  0\nENDBLK\n  5\n{record.endblk.dxf.handle}\n"
            find_from = text.index(f"  0\nBLOCK\n  5\n{record.block.dxf.handle}\n", blocks_at)
        if not chunks:
            continue
        for place, rank, chunk in sorted(chunks, key=lambda t: (t[0], t[1])):
            after = written[k][min(place + (rank == OWN_RANK), len(es))]
            at = text.index(_head(after) if after is not None else end, find_from)
            inserts.append((at, chunk))
            find_from = at
    pieces: list[str] = []
    done = 0
    for at, chunk in sorted(inserts, key=lambda t: t[0]):  # stable: same offset, order kept
        pieces += [text[done:at], chunk]
        done = at
    pieces.append(text[done:])
    return "".join(pieces)


def _written_from(entities: Sequence[DXFEntity], own: dict[int, str]) -> list[DXFEntity | None]:
    """For each index of ``entities`` (and one past the last), the first entity at or after it that ezdxf
    writes (alive, not written by :func:`entity_text`), or None."""
    out: list[DXFEntity | None] = [None] * (len(entities) + 1)
    for i in range(len(entities) - 1, -1, -1):
        out[i] = entities[i] if entities[i].is_alive and i not in own else out[i + 1]
    return out


_ENDBLK = re.compile(r"  0\nENDBLK\n  5\n([0-9A-F]+)\n")


def _first_alive(entities: Sequence[DXFEntity]) -> DXFEntity | None:
    return next((e for e in entities if e.is_alive), None)


def _head(entity: DXFEntity) -> str:
    """How the written entity starts: its type and its handle."""
    return f"  0\n{entity.dxftype()}\n  5\n{entity.dxf.handle}\n"


def _tag(code: int, value: object) -> str:
    return f"{code:3d}\n{value}\n"


def _fmt_kw(v: float) -> str:
    return f"{v:.1f}"


def rack_entities_text(order: pd.DataFrame, marks: pd.DataFrame, first_handle: int, owner: str) -> str:
    """The DXF text of the racks' INSERTs (with their ATTRIBs and SEQEND) and position tags, as ezdxf
    writes them: ``order`` are the scene's racks in drawing order, ``marks`` their tags and attribute
    places (:func:`layout.export.dxf.model.rack_marks`), handles from ``first_handle`` on (hex,
    RACK_HANDLES per rack), ``owner`` the model space's block record."""
    xs = (order["x_m"].to_numpy(float) * MM_PER_M).tolist()
    ys = (order["y_m"].to_numpy(float) * MM_PER_M).tolist()
    rot_list = order["rotation_deg"].to_numpy(float).tolist()
    cols = [order[c].astype(str).tolist() for c in ("rack_id", "template", "kind", "row", "hall", "label")]
    kws = order["power_kw"].to_numpy(float).tolist()
    gpus = order["gpus"].to_numpy(np.int64).tolist()
    tag_h, tag_x, tag_y, tag_rot, attr_h = (marks[c].to_numpy(float).tolist()
                                            for c in ("tag_h", "tag_x", "tag_y", "tag_rot", "attr_h"))  # fmt: skip
    ax = [marks[f"attr_x{k}"].to_numpy(float).tolist() for k in range(len(RACK_ATTRIBS))]
    ay = [marks[f"attr_y{k}"].to_numpy(float).tolist() for k in range(len(RACK_ATTRIBS))]
    entity = f"330\n{owner}\n100\nAcDbEntity\n  8\n"
    attrib_head = f"{entity}E-RACK-IDEN\n100\nAcDbText\n"
    blocks = {t: rack_block_name(t) for t in set(cols[1])}
    out: list[str] = []
    hnd = first_handle
    for i, (rid, tid, kind, row, hall, label) in enumerate(zip(*cols, strict=True)):
        x, y, rot = xs[i], ys[i], rot_list[i]
        layer = RACK_LAYER.get(kind, "E-RACK-GPU")
        r50 = _tag(50, rot) if rot != 0.0 else ""
        out.append(f"  0\nINSERT\n  5\n{hnd:X}\n{entity}{layer}\n100\nAcDbBlockReference\n 66\n1\n"
                   f"  2\n{blocks[tid]}\n 10\n{x}\n 20\n{y}\n 30\n0.0\n{r50}")  # fmt: skip
        values = (rid, tid, _fmt_kw(kws[i]), str(gpus[i]), row, hall)
        for k, (tag, value) in enumerate(zip(RACK_ATTRIBS, values, strict=True)):
            # invisible, left-aligned, one under the other inside the rack (turned with it)
            out.append(f"  0\nATTRIB\n  5\n{hnd + 2 + k:X}\n{attrib_head} 10\n{ax[k][i]}\n 20\n{ay[k][i]}\n"
                       f" 30\n0.0\n 40\n{attr_h[i]}\n  1\n{value}\n{r50}100\nAcDbAttribute\n  2\n{tag}\n"
                       " 70\n1\n 71\n1\n 72\n0\n")  # fmt: skip
        out.append(f"  0\nSEQEND\n  5\n{hnd + 1:X}\n330\n{hnd:X}\n100\nAcDbEntity\n  8\n{layer}\n")
        if tag_h[i] > 0.0:
            tx, ty, up = tag_x[i], tag_y[i], tag_rot[i]
            tat = f" 10\n{tx}\n 20\n{ty}\n 30\n0.0\n"
            out.append(f"  0\nTEXT\n  5\n{hnd + RACK_HANDLES - 1:X}\n{attrib_head}{tat} 40\n{tag_h[i]}\n"
                       f"  1\n{label}\n" + (_tag(50, up) if up != 0.0 else "")
                       + f"  7\n{NOTE_STYLE}\n 72\n1\n 11\n{tx}\n 21\n{ty}\n 31\n0.0\n100\nAcDbText\n 73\n2\n")  # fmt: skip
        hnd += RACK_HANDLES
    return "".join(out)


def tray_entities_text(items: Sequence[TrayEntity], riser: str, first_handle: int, owner: str) -> str:
    """The DXF text of the tray entities ``items`` as ezdxf writes them (handles from ``first_handle``,
    hex; ``owner`` the model space's block record; ``riser`` the riser block's name)."""
    entity = f"330\n{owner}\n100\nAcDbEntity\n  8\n"
    out: list[str] = []
    hnd = first_handle
    for e in items:
        if isinstance(e, TrayLine):
            (px, py), (qx, qy) = e.p, e.q
            out.append(f"  0\nLWPOLYLINE\n  5\n{hnd:X}\n{entity}{e.layer}\n100\nAcDbPolyline\n 90\n2\n 70\n0\n"
                       f" 43\n{e.width}\n 10\n{px}\n 20\n{py}\n 10\n{qx}\n 20\n{qy}\n")  # fmt: skip
            if e.xdata is not None:
                out.append(f"1001\n{APPID}\n1000\n{e.xdata[0]}\n1071\n{e.xdata[1]}\n")
        elif isinstance(e, TrayText):
            x, y = e.at
            at = f" 10\n{x}\n 20\n{y}\n 30\n0.0\n"
            if e.align not in TEXT_ALIGN:
                raise ValueError(
                    f"tray text alignment {e.align} (allowed: {', '.join(a.name for a in TEXT_ALIGN)})"
                )
            ha, va = TEXT_ALIGN[e.align]
            out.append(f"  0\nTEXT\n  5\n{hnd:X}\n{entity}{e.layer}\n100\nAcDbText\n{at} 40\n{e.height}\n"
                       f"  1\n{e.text}\n" + (_tag(50, e.rotation) if e.rotation != 0.0 else "")
                       + f"  7\n{NOTE_STYLE}\n" + (f" 72\n{ha}\n" if ha else "")
                       + f" 11\n{x}\n 21\n{y}\n 31\n0.0\n100\nAcDbText\n 73\n{va}\n")  # fmt: skip
        else:
            x, y = e.at
            out.append(f"  0\nINSERT\n  5\n{hnd:X}\n{entity}{e.layer}\n100\nAcDbBlockReference\n"
                       f"  2\n{riser}\n 10\n{x}\n 20\n{y}\n 30\n0.0\n")  # fmt: skip
        hnd += TRAY_HANDLES[type(e)]
    return "".join(out)


class DimensionBlock:
    """What ezdxf's dimension renderer draws into, in place of the dimension's anonymous block: each
    entity it adds is the DXF text ezdxf would write for it, with the handle(s) ezdxf would give it now.

    Knows what the renderer adds for the linear and aligned dimensions of this drawing (LINE, arrow
    INSERT, MTEXT, POINT, each with a layer and the BYLAYER colour); anything else is an error, not a
    silently different drawing."""

    def __init__(self, block: BlockLayout) -> None:
        assert block.doc is not None
        self.doc = block.doc
        self._owner = block.block_record_handle
        self._out: list[str] = []

    def text(self) -> str:
        return "".join(self._out)

    def _head(self, kind: str, count: int, attribs: dict[str, Any], allowed: set[str]) -> str:
        extra = set(attribs) - allowed
        if extra or attribs.get("color", 256) != 256:
            raise ValueError(
                f"dimension {kind} with attributes {sorted(extra)}, color {attribs.get('color', 256)}:"
                " not in the fast path"
            )
        handle = _take_doc_handles(self.doc, count)
        return f"  0\n{kind}\n  5\n{handle:X}\n330\n{self._owner}\n100\nAcDbEntity\n  8\n{attribs.get('layer', '0')}\n"

    def add_line(self, start: Vec2, end: Vec2, dxfattribs: dict[str, Any] | None = None) -> None:
        head = self._head("LINE", 1, dxfattribs or {}, {"layer", "color"})
        self._out.append(f"{head}100\nAcDbLine\n 10\n{float(start.x)}\n 20\n{float(start.y)}\n 30\n0.0\n"
                         f" 11\n{float(end.x)}\n 21\n{float(end.y)}\n 31\n0.0\n")  # fmt: skip

    def add_point(self, location: Any, dxfattribs: dict[str, Any] | None = None) -> None:
        head = self._head("POINT", 1, dxfattribs or {}, {"layer"})
        x, y, z = (float(v) for v in location)
        self._out.append(f"{head}100\nAcDbPoint\n 10\n{x}\n 20\n{y}\n 30\n{z}\n")

    def add_mtext(self, text: str, dxfattribs: dict[str, Any] | None = None) -> None:
        a = dict(dxfattribs or {})
        if len(text) >= 250 or "\n" in text:  # ezdxf writes longer text in chunks
            raise ValueError(f"dimension text {text!r}: not in the fast path")
        head = self._head("MTEXT", 1, a, {"layer", "color", "style", "char_height", "attachment_point",
                                          "insert", "rotation"})  # fmt: skip
        at = Vec2(a["insert"])
        rot = float(a.get("rotation", 0.0))
        self._out.append(f"{head}100\nAcDbMText\n 10\n{float(at.x)}\n 20\n{float(at.y)}\n 30\n0.0\n"
                         f" 40\n{float(a['char_height'])}\n 71\n{int(a['attachment_point'])}\n  1\n{text}\n"
                         f"  7\n{a['style']}\n" + (_tag(50, rot) if rot != 0.0 else ""))  # fmt: skip

    def add_arrow_blockref(
        self, name: str, insert: Vec2, size: float, rotation: float, dxfattribs: dict[str, Any] | None = None
    ) -> None:
        block = ARROWS.create_block(self.doc.blocks, name)  # as ezdxf does: the arrow's block on first use
        head = self._head("INSERT", 2, dxfattribs or {}, {"layer", "color"})  # an INSERT and its SEQEND
        size, rot = float(size), float(rotation)
        self._out.append(f"{head}100\nAcDbBlockReference\n  2\n{block}\n 10\n{float(insert.x)}\n"
                         f" 20\n{float(insert.y)}\n 30\n0.0\n"
                         + (f" 41\n{size}\n 42\n{size}\n" if size != 1.0 else "")
                         + (_tag(50, rot) if rot != 0.0 else ""))  # fmt: skip


# what ezdxf writes of an attribute when it is set to its default: nothing (the optional ones here)
_TEXT_KEYS = {"handle", "owner", "layer", "insert", "height", "text", "rotation", "style", "halign", "valign",
              "align_point"}  # fmt: skip
_LINE_KEYS = {"handle", "owner", "layer", "linetype", "start", "end"}
_LWPOLYLINE_KEYS = {"handle", "owner", "layer", "flags", "const_width"}


def entity_text(e: DXFEntity) -> str | None:
    """The DXF text ezdxf writes for ``e`` if it is a plain TEXT, LINE or LWPOLYLINE (layer, linetype, geometry and the
    attributes these drawings set: no colour, XDATA or extension dictionary), else None."""
    kind = e.dxftype()
    if kind not in ("TEXT", "LINE", "LWPOLYLINE") or e.xdata or e.extension_dict or e.reactors or e.appdata:
        return None
    a = e.dxf.all_existing_dxf_attribs()
    head = (
        f"  0\n{kind}\n  5\n{a['handle']}\n330\n{a['owner']}\n100\nAcDbEntity\n  8\n{a.get('layer', '0')}\n"
    )
    if kind == "TEXT":
        text = a.get("text", "")
        if not a.keys() <= _TEXT_KEYS or "insert" not in a or "\n" in text or "\r" in text:
            return None
        x, y, z = a["insert"]
        rot, style = float(a.get("rotation", 0.0)), a.get("style", "Standard")
        ha, va = int(a.get("halign", 0)), int(a.get("valign", 0))
        out = (f"{head}100\nAcDbText\n 10\n{x}\n 20\n{y}\n 30\n{z}\n 40\n{float(a.get('height', 2.5))}\n"
               f"  1\n{text}\n" + (_tag(50, rot) if rot != 0.0 else "")
               + (f"  7\n{style}\n" if style != "Standard" else "") + (f" 72\n{ha}\n" if ha else ""))  # fmt: skip
        if "align_point" in a:
            ax, ay, az = a["align_point"]
            out += f" 11\n{ax}\n 21\n{ay}\n 31\n{az}\n"
        return out + "100\nAcDbText\n" + (f" 73\n{va}\n" if va else "")
    if kind == "LINE":
        if not a.keys() <= _LINE_KEYS or "start" not in a or "end" not in a:
            return None
        (x, y, z), (u, v, w) = a["start"], a["end"]
        linetype = a.get("linetype", "BYLAYER")
        return (head + (f"  6\n{linetype}\n" if linetype != "BYLAYER" else "")
                + f"100\nAcDbLine\n 10\n{x}\n 20\n{y}\n 30\n{z}\n 11\n{u}\n 21\n{v}\n 31\n{w}\n")  # fmt: skip
    points = e.lwpoints  # type: ignore[attr-defined]
    if not a.keys() <= _LWPOLYLINE_KEYS or any(s or w or b for _x, _y, s, w, b in points):
        return None
    width = float(a.get("const_width", 0.0))
    xy = "".join(f" 10\n{x}\n 20\n{y}\n" for x, y, _s, _w, _b in points)
    return (f"{head}100\nAcDbPolyline\n 90\n{len(points)}\n 70\n{int(a.get('flags', 0))}\n"
            + (f" 43\n{width}\n" if width else "") + xy)  # fmt: skip
