"""The single-line diagram per hall: the DXF sheet read back with ezdxf, the PDF page found by text."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import ezdxf

from layout.export.dxf.document import build_document, document_bytes


def _window(doc: Any, name: str) -> tuple[float, float, float, float]:
    vp = next(v for v in doc.paperspace(name).viewports() if v.dxf.id > 1)
    cx, cy = vp.dxf.view_center_point.x, vp.dxf.view_center_point.y
    h = vp.dxf.view_height
    w = h * vp.dxf.width / vp.dxf.height
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def test_the_sld_sheet_holds_every_ups_block_of_its_hall(design_of: Callable[[str], Any]) -> None:
    d = design_of("gb200-hall")
    drawing = build_document(d)
    doc = ezdxf.read(io.StringIO(document_bytes(drawing, d.inputs.site.site.date).decode()))
    auditor = doc.audit()
    assert not auditor.errors
    assert "B1-H1-SLD" in doc.layouts.names_in_taborder()
    x0, y0, x1, y1 = _window(doc, "B1-H1-SLD")
    texts = [
        t.dxf.text
        for t in doc.modelspace().query("TEXT")
        if x0 <= t.dxf.insert.x <= x1 and y0 <= t.dxf.insert.y <= y1
    ]
    ups = d.chain.ups[d.chain.ups["hall"] == "B1/H1"]
    assert 0 < len(ups) <= 16  # every block drawn
    for u in ups["ups_id"]:
        short = u.removeprefix("B1/H1/")
        assert any(t.startswith(short + " ") for t in texts), short
    assert any(t.startswith("MV / UTILITY") for t in texts)
    # its own area: the hall plan's window shows none of the diagram, and the diagram none of the plan
    hx0, hy0, hx1, hy1 = _window(doc, "B1-H1")
    assert hx1 < x0 or x1 < hx0 or hy1 < y0 or y1 < hy0
