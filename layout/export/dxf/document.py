"""The document: a new drawing with its header and tables, the whole drawing of a scene in draw order,
and its bytes (deterministic: fixed dates and GUIDs, sorted classes) written atomically to NAME.dxf."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import ezdxf
from ezdxf.document import Drawing
from ezdxf.tools.juliandate import juliandate

from layout.export import atomic
from layout.export.dxf import layers
from layout.export.dxf.annotate import Boards
from layout.export.dxf.blocks import (
    attrib_longest,
    define_legend,
    define_north_arrow,
    define_rack_block,
    define_title_block,
)
from layout.export.dxf.fastpath import RawEntities, write_with_raw_entities
from layout.export.dxf.layers import DXF_VERSION, MM_PER_M, NOTE_STYLE, current_dimstyle
from layout.export.dxf.model import draw_racks, draw_rows, draw_site
from layout.export.dxf.overlays import draw_cabinets, draw_coolant, draw_power, draw_violations
from layout.export.dxf.paper import draw_sheet
from layout.export.dxf.sheets import Scales, plan_sheets
from layout.export.dxf.sld import draw_sld
from layout.export.dxf.trays import draw_trays
from layout.export.labels import Board
from layout.scene import Scene, scene_of

if TYPE_CHECKING:
    from layout.design import Design


@dataclass(frozen=True)
class SceneDrawing:
    """A scene's drawing, built and not yet written: the ezdxf document (tables, blocks, sheets and the
    model space's other entities) and the racks and trays the fast path holds as DXF text, which go into
    its model space when it is written (:func:`document_bytes`)."""

    doc: Drawing
    raw: RawEntities


def new_document(scene: Scene, hall_scale: int) -> Drawing:
    """A new R2018 drawing in millimetres with the header set and the tables declared."""
    doc = ezdxf.new(DXF_VERSION, units=4, setup=False)
    hdr = doc.header
    hdr["$MEASUREMENT"] = 1  # metric
    hdr["$LUNITS"] = 2  # decimal
    hdr["$LUPREC"] = 0  # whole millimetres
    hdr["$AUNITS"] = 0
    hdr["$AUPREC"] = 0
    # Linetype patterns are in paper millimetres: scaled by the usual hall plot scale, not per viewport.
    hdr["$LTSCALE"] = float(hall_scale)
    hdr["$PSLTSCALE"] = 0
    hdr["$LWDISPLAY"] = 1
    hdr["$TEXTSTYLE"] = NOTE_STYLE
    hdr["$PROJECTNAME"] = scene.site.site.name[:255]
    layers.declare(doc)
    return doc


def build_scene_document(scene: Scene) -> SceneDrawing:
    """The whole drawing for a scene (model space, blocks, sheets); not yet written anywhere."""
    sheets = plan_sheets(scene)
    scales = Scales(scene, sheets)
    doc = new_document(scene, scales.main)
    current_dimstyle(doc, scales.main)
    longest = attrib_longest(scene.racks)
    for tid in sorted(scene.templates):
        define_rack_block(doc, scene.templates[tid], longest)
    blocks = {
        "title": define_title_block(doc),
        "north": define_north_arrow(doc),
        "legend": define_legend(doc, scales.main),
    }
    msp = doc.modelspace()
    raw = RawEntities()
    # draw order: building and halls, trays under the racks, racks, then annotation on top; labels are
    # placed most important first (names, dimensions, rows, violations, then trays), each clear of those
    # before it on the sheets it shows on
    boards = Boards(Board(10.0 * scales.main), Board(10.0 * scales.site))
    draw_site(msp, doc, scene, scales, boards, raw)
    trays_at = len(msp.entity_space)
    draw_racks(msp, raw, scene, scales, boards)
    draw_rows(msp, doc, scene, scales, boards.hall, raw)
    draw_violations(msp, scene, scales, boards)
    draw_trays(msp, raw, doc, scene, scales, boards, trays_at)
    draw_power(msp, scene, scales, boards.hall, raw)
    draw_cabinets(msp, scene, scales, boards.hall, raw)
    draw_coolant(msp, scene)
    draw_sld(msp, scene, sheets, raw)
    sx0, sy0, sx1, sy1 = sheets[0].bbox_m
    doc.set_modelspace_vport(
        height=(sy1 - sy0) * MM_PER_M * 1.1, center=((sx0 + sx1) / 2 * MM_PER_M, (sy0 + sy1) / 2 * MM_PER_M)
    )
    for n, sheet in enumerate(sheets, start=1):
        if n == 1:  # the document's first paper layout becomes the site sheet
            doc.layouts.rename(doc.layouts.names_in_taborder()[1], sheet.name)
            layout = doc.paperspace(sheet.name)
        else:
            layout = doc.layouts.new(sheet.name)
        draw_sheet(doc, layout, scene, sheet, n, len(sheets), blocks)
    return SceneDrawing(doc, raw)


# ezdxf.options is process-wide: one fixed-metadata write at a time (the TUI exports in worker threads)
_WRITE_LOCK = threading.Lock()


@contextmanager
def _fixed_metadata(doc: Drawing, date: str) -> Iterator[None]:
    """Write with fixed dates (the site file's date) and GUIDs instead of the clock and random ids."""
    old = ezdxf.options.write_fixed_meta_data_for_testing
    ezdxf.options.write_fixed_meta_data_for_testing = True
    update = doc._update_metadata
    day = juliandate(datetime.strptime(date, "%Y-%m-%d"))

    marker = f"{ezdxf.__version__} @ {date}T00:00:00+00:00"

    def fixed() -> None:
        update()
        for var in ("$TDCREATE", "$TDUCREATE", "$TDUPDATE", "$TDUUPDATE"):
            doc.header[var] = day
        meta = doc.ezdxf_metadata()  # ezdxf stamps "created/written by" with the clock: use the date
        meta["CREATED_BY_EZDXF"] = marker
        meta["WRITTEN_BY_EZDXF"] = marker

    try:
        setattr(doc, "_update_metadata", fixed)  # noqa: B010 - instance override for this write only
        yield
    finally:
        ezdxf.options.write_fixed_meta_data_for_testing = old
        setattr(doc, "_update_metadata", update)  # noqa: B010


def document_bytes(drawing: SceneDrawing, date: str) -> bytes:
    """The DXF file's bytes, deterministic for the same drawing."""
    doc = drawing.doc
    # ezdxf adds a CLASS per entity type in use from a set, in hash order: register them now and sort,
    # so the CLASSES section does not depend on PYTHONHASHSEED (its own call in write() adds nothing)
    doc.classes.add_required_classes(doc.dxfversion)
    doc.classes.classes = dict(sorted(doc.classes.classes.items()))
    with _WRITE_LOCK, _fixed_metadata(doc, date):
        text = write_with_raw_entities(doc, drawing.raw)
    return text.encode("utf-8")


def write_scene(scene: Scene, path: str | Path) -> Path:
    """Build the drawing in memory, then write it atomically (temp file in the same folder, replace):
    a failure anywhere leaves no file behind."""
    data = document_bytes(build_scene_document(scene), scene.site.site.date)
    return atomic.write_bytes(path, data)


def scene_from_design(design: Design) -> Scene:
    """The scene of a finished design (layout.scene)."""
    return scene_of(design)


def build_document(design: Design) -> SceneDrawing:
    """The drawing of a finished design (for tests that read it back without a file)."""
    return build_scene_document(scene_from_design(design))


def write_dxf(design: Design, path: str | Path) -> Path:
    """Write the design's drawing to ``path`` (NAME.dxf) atomically; returns the path."""
    return write_scene(scene_from_design(design), path)
