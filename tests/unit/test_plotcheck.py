"""The read-back checker of plotted text (tests/data/drawings/plotcheck.py) on a hand-made drawing: a
viewport at 1:200 over the model, texts of known size, two that overlap."""

from __future__ import annotations

import ezdxf
import pytest
from plotcheck import collisions, sheet_texts


def test_plotted_height_is_model_height_over_the_viewport_scale_and_overlaps_are_found() -> None:
    doc = ezdxf.new("R2018", setup=False)
    msp = doc.modelspace()
    msp.add_text("R01", height=400.0, dxfattribs={"insert": (10_000.0, 10_000.0)})  # 2 mm at 1:200
    msp.add_text("R02", height=400.0, dxfattribs={"insert": (10_500.0, 10_100.0)})  # on top of R01
    msp.add_text("far", height=400.0, dxfattribs={"insert": (900_000.0, 0.0)})  # outside the viewport
    msp.add_text("off", height=400.0, dxfattribs={"insert": (5_000.0, 5_000.0), "layer": "HIDDEN"})
    doc.layers.add("HIDDEN")
    sheet = doc.layouts.new("S1")
    sheet.page_setup(size=(420, 297), margins=(0, 0, 0, 0), units="mm")  # adds the main viewport (id 1)
    vp = sheet.add_viewport(
        center=(100, 100), size=(200, 100), view_center_point=(10_000, 10_000), view_height=100 * 200
    )
    vp.frozen_layers = ["HIDDEN"]
    sheet.add_text("TITLE", height=5.0, dxfattribs={"insert": (10.0, 10.0)})
    texts = sheet_texts(doc)["S1"]
    got = {t.text: round(t.height_mm, 6) for t in texts}
    assert got == {"R01": 2.0, "R02": 2.0, "TITLE": 5.0}
    r01 = next(t for t in texts if t.text == "R01")
    # on paper: (10000, 10000) is the viewport's centre (100, 100); 3 characters x 0.75 x 2 mm wide
    assert r01.box == pytest.approx((100.0, 100.0, 104.5, 102.0))
    assert [{a.text, b.text} for a, b in collisions(texts)] == [{"R01", "R02"}]
