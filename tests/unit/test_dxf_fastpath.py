"""The DXF fast path writes what ezdxf alone would write: the dimensions' blocks, the notes and the plain
model- and paper-space entities, byte for byte (the drawing of test_dxf's hand-built scene, and the
dimensions that scene does not have: rows along y, a hall that is not a rectangle)."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import ezdxf
import pandas as pd
import pytest
from test_dxf import HALL, VIOLATIONS, cabling, placement

from layout.export import dxf
from layout.export.dxf import fastpath, layers, model, setout
from layout.export.dxf.annotate import note
from layout.export.labels import Board
from layout.load import Inputs
from layout.model.site import Hall


def _ezdxf_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fast path off: dimensions rendered, notes built and every entity written by ezdxf."""

    def add_note(self: fastpath.RawEntities, msp: Any, item: fastpath.TrayText) -> None:
        note(msp, item.text, item.at, item.height, item.layer, item.align, item.rotation)

    monkeypatch.setattr(fastpath.RawEntities, "render_dimension", lambda self, dim: dim.render())
    monkeypatch.setattr(fastpath.RawEntities, "add_note", add_note)
    monkeypatch.setattr(fastpath, "entity_text", lambda e: None)


def test_the_scene_drawing_is_the_bytes_ezdxf_alone_writes(
    make_inputs: Callable[..., Inputs], monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = make_inputs({"site": {"date": "2026-03-14"}, "building": {0: {"hall": {0: HALL}}}})
    kw = [41.2, 46.0, 41.2, 41.2, 41.2, 41.2, 9.5]
    summary = {"gpus": 192, "racks": {"total": 7, "by_template": {"dgx-h100-x4": 6, "net-leaf": 1}}}
    scene = dxf.scene_from_parts(inputs, placement(), kw, cabling(), VIOLATIONS, summary)
    drawing = dxf.build_scene_document(scene)
    # the fast paths are taken: dimension blocks and notes as text, most model-space entities not built
    assert drawing.raw.blocks() and any(rank == fastpath.NOTES_RANK for _p, rank, _t in drawing.raw.texts())
    fast = dxf.document_bytes(drawing, "2026-03-14")
    _ezdxf_alone(monkeypatch)
    slow = dxf.document_bytes(dxf.build_scene_document(scene), "2026-03-14")
    assert fast == slow
    doc = ezdxf.read(io.StringIO(fast.decode()))
    assert not doc.audit().has_errors
    dims = list(doc.modelspace().query("DIMENSION"))
    assert dims and all(doc.blocks.get(d.dxf.geometry) is not None for d in dims)


def _dims_doc(raw: fastpath.RawEntities | None) -> str:
    """Rows along y (their setting-out and aisle dimensions turned) in an L-shaped hall (a dimension per
    wall), a note in the model space and one on a paper sheet."""
    doc = ezdxf.new(dxf.DXF_VERSION, setup=False)
    layers.declare(doc)
    msp = doc.modelspace()
    raw_ = raw if raw is not None else fastpath.RawEntities()
    polygon = [(0.0, 0.0), (20.0, 0.0), (20.0, 8.0), (12.0, 8.0), (12.0, 14.0), (0.0, 14.0)]
    hall = Hall.model_validate({"id": "H1", "polygon": polygon, "columns": [{"at": [6.0, 7.0]}]})
    rows = pd.DataFrame(
        {"row": ["B1/H1/R01", "B1/H1/R02"], "hall": ["B1/H1"] * 2, "axis": ["y", "y"], "x0_m": [2.0, 4.4],
         "y0_m": [1.5, 1.5], "x1_m": [2.0, 4.4], "y1_m": [9.0, 7.2], "front_sign": [1, -1], "depth_m": [1.2, 1.2]}
    )  # fmt: skip
    board = Board(1000.0)
    msp.add_circle((0, 0), 1.0)
    setout.draw_edges(msp, doc, polygon, 800.0, 100, board, raw)
    setout.draw_grid(msp, doc, hall, 100, board, (), raw)
    model.aisle_dims(msp, doc, rows, 100, 600.0, 3.6, board, raw)
    setout.draw_setting_out(msp, doc, hall, rows, 100, board, raw)
    note(msp, "NOTE", (1.0, 2.0), 100.0, "G-ANNO-TEXT", raw=raw)
    msp.add_line((0, 0), (1, 1))
    note(doc.paperspace(), "SHEET", (1.0, 2.0), 3.0, "G-ANNO-TEXT", raw=raw)  # paper: built by ezdxf
    doc.paperspace().add_lwpolyline([(0, 0), (1, 0), (1, 1)], close=True)
    text = fastpath.write_with_raw_entities(doc, raw_)
    # the tables, blocks and entities (the header and objects hold the clock's time and random ids)
    return text[text.index("  2\nTABLES\n") : text.index("  2\nOBJECTS\n")]


def test_turned_and_aligned_dimensions_are_what_ezdxf_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _dims_doc(fastpath.RawEntities())
    assert fast.count("\nDIMENSION\n") >= 12  # 6 walls, the grid's none, 1 aisle, 5 setting-out
    assert "\n 50\n90.0\n100\nAcDbRotatedDimension" in fast  # rows along y: dimensions turned
    assert "AcDbAlignedDimension\n" in fast
    monkeypatch.setattr(fastpath, "entity_text", lambda e: None)
    assert fast == _dims_doc(None)


def test_a_dimension_block_entity_the_fast_path_does_not_know_is_an_error() -> None:
    doc = ezdxf.new(dxf.DXF_VERSION, setup=False)
    block = fastpath.DimensionBlock(doc.blocks.new_anonymous_block(type_char="D"))
    with pytest.raises(ValueError, match="lineweight"):
        block.add_line(ezdxf.math.Vec2(0, 0), ezdxf.math.Vec2(1, 0), {"lineweight": 25})
    with pytest.raises(ValueError, match="color"):
        block.add_point((0.0, 0.0, 0.0), {"layer": "Defpoints", "color": 1})
