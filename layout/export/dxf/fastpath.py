"""The fast path: model-space entities written as DXF text, with the handles ezdxf would give them.

A campus has thousands of racks (an INSERT, six ATTRIBs, a SEQEND and a tag each) and ~10k tray entities,
and ezdxf spends ~50 us on every entity it builds and again on every one it writes. These are not built
as ezdxf objects: :class:`RawEntities` holds them as the text ezdxf would write for them, each at its
place among the model space's entities, and :func:`write_with_raw_entities` writes the document with
that text in place. Same bytes as building them one by one (the tests compare with ezdxf's own output);
the in-memory document holds no rack or tray entities (read the written file back to query them).

Everything here depends on how ezdxf writes an entity and gives out handles: this module is the one
place that does.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from ezdxf.document import Drawing
from ezdxf.entities import DXFEntity
from ezdxf.enums import TextEntityAlignment
from ezdxf.layouts import Modelspace

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
}

# texts at the same place in the model space go in this order: the trays under the racks
TRAYS_RANK, RACKS_RANK = 0, 1


class RawEntities:
    """The model-space entities of one drawing held as DXF text: each text with its place (the index,
    among the model space's entities, of the entity it is written before) and its rank among the texts
    at the same place. Filled while the drawing is built (:meth:`add_racks`, :meth:`add_trays`), written
    with it by :func:`write_with_raw_entities`."""

    def __init__(self) -> None:
        self._texts: list[tuple[int, int, str]] = []

    def __bool__(self) -> bool:
        return bool(self._texts)

    def placed(self) -> list[tuple[int, str]]:
        """(place, text) of every text, in the order they are written."""
        return [(place, text) for place, _rank, text in sorted(self._texts, key=lambda t: (t[0], t[1]))]

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


def _take_handles(msp: Modelspace, count: int) -> int:
    """The first of the next ``count`` handles of the model space's document; ezdxf goes on after them."""
    assert msp.doc is not None
    handles = msp.doc.entitydb.handles
    first = int(str(handles), 16)
    handles.reset(f"{first + count:X}")
    return first


def write_with_raw_entities(doc: Drawing, raw: RawEntities) -> str:
    """The DXF text of ``doc`` as ezdxf writes it, with ``raw``'s texts in its model space: each before
    the entity at its place (found by its handle), or after the last one (before the active paper
    space's entities, which follow the model space's in the ENTITIES section)."""
    stream = io.StringIO()
    doc.write(stream)
    text = stream.getvalue()
    if not raw:
        return text
    model = doc.modelspace().entity_space.entities
    paper = doc.layouts.active_layout().entity_space.entities
    pieces: list[str] = []
    done, find_from = 0, text.index("  0\nSECTION\n  2\nENTITIES\n")
    for place, chunk in raw.placed():
        after = _first_alive(model[place:])
        if after is None:
            after = _first_alive(paper)
        at = text.index(_head(after) if after is not None else "  0\nENDSEC\n", find_from)
        pieces += [text[done:at], chunk]
        done = find_from = at
    pieces.append(text[done:])
    return "".join(pieces)


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
