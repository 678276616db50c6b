"""The 100k campus report (seed 000's campus): built once from the session's shared campus design."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from pypdf import PdfReader

from layout.export import pdf

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def campus(design_of: Callable[[str], Any]) -> tuple[Any, bytes]:
    design = design_of("campus-100k")
    return design, pdf.render_pdf(design)


def test_campus_report_states_the_summary_figures(campus: tuple[Any, bytes]) -> None:
    design, data = campus
    s = design.summary()
    reader = PdfReader(io.BytesIO(data))
    cover = " ".join(reader.pages[0].extract_text().split())
    assert f"{s['gpus']:,}" in cover and "98,304" in cover
    assert f"{s['power']['it_mw']:,.2f} MW" in cover
    assert f"{s['power']['annual_twh']:,.3f} TWh" in cover
    text = " ".join(" ".join(p.extract_text() for p in reader.pages).split())
    for building in ("B1", "B2", "B3", "B4"):
        assert f"Building {building}" in text
    halls = [o for o in reader.outline if isinstance(o, list)][0]
    assert sum(1 for o in halls if not isinstance(o, list) and o.title.startswith("Hall ")) == len(
        set(design.placement.racks["hall"])
    ), "one plan per hall with racks"


def test_campus_reliability_reproduces_seed_000(campus: tuple[Any, bytes]) -> None:
    design, data = campus
    text = " ".join(" ".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages).split())
    # 98,304 GPUs x 99 steps x 2 s / 86,400 s = 225.28 GPU-days per failure restarting from a checkpoint
    assert "Checkpoint restart, GPU-days lost per failure 225.28" in text
    rel = design.summary()["reliability"]
    # seed 000's rule: a 5-year MTBF per node-side optical link -> 2,628,000 min / links
    expected = 5 * 525_600 / rel["node_optical_modules"]
    assert f"time to the first failure, node-side optical links is {expected:,.2f} min" in text
    assert f"{design.summary()['cost_usd']['total'] / 1e9:,.2f} bn" in " ".join(
        PdfReader(io.BytesIO(data)).pages[0].extract_text().split()
    )
