"""Every shipped site's DXF as it plots: read back with ezdxf, per A1 sheet, the height every text
prints at (model height over the viewport's scale, paper text as is), the titles, and text boxes that
overlap (tests/data/drawings/plotcheck.py, which knows nothing of the writer)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import ezdxf
import pytest
from plotcheck import PlotText, collisions, sheet_texts

from layout.export import dxf

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.stem for p in (ROOT / "sites").glob("*.toml"))


@pytest.fixture(scope="module")
def plotted(
    tmp_path_factory: pytest.TempPathFactory, design_of: Callable[[str], Any]
) -> Callable[[str], Any]:
    out = tmp_path_factory.mktemp("dxfplot")
    cache: dict[str, tuple[Any, dict[str, list[PlotText]]]] = {}

    def get(stem: str) -> tuple[Any, dict[str, list[PlotText]]]:
        if stem not in cache:
            doc = ezdxf.readfile(dxf.write_dxf(design_of(stem), out / f"{stem}.dxf"))
            cache[stem] = (doc, sheet_texts(doc))
        return cache[stem]

    return get


def is_title(t: PlotText) -> bool:
    """Titles: the sheet title line, the title block's title and subtitle, headings, hall and building
    names."""
    return (
        t.tag in ("TITLE", "SUBTITLE")
        or t.text in ("LEGEND", "NOTES")
        or (t.layer == "G-TTLB" and "SCALE 1:" in t.text)
        or t.text.startswith(("HALL ", "BUILDING "))
    )


@pytest.mark.parametrize("stem", SHIPPED)
def test_95_percent_of_texts_plot_at_1_8_mm_and_titles_at_2_5_mm(
    stem: str, plotted: Callable[[str], Any]
) -> None:
    _doc, sheets = plotted(stem)
    for name, texts in sheets.items():
        assert len(texts) > 50, name  # the sheet has its title block, legend and notes at least
        small = [t for t in texts if t.height_mm < dxf.MIN_TEXT_MM - 1e-9]
        assert len(small) <= 0.05 * len(texts), (name, [(t.text, round(t.height_mm, 2)) for t in small][:5])
        titles = [t for t in texts if is_title(t)]
        assert len(titles) >= 4, name  # sheet title, title, subtitle, legend, notes
        low = [(t.text, round(t.height_mm, 2)) for t in titles if t.height_mm < dxf.TITLE_MM - 1e-9]
        assert not low, (name, low)


@pytest.mark.parametrize("stem", SHIPPED)
def test_every_hall_sheet_shows_rack_tags_and_tray_labels(stem: str, plotted: Callable[[str], Any]) -> None:
    """Legible is not the same as empty: the hall sheets keep their rack tags and loaded-tray labels."""
    _doc, sheets = plotted(stem)
    for name, texts in sheets.items():
        if name.count("-") == 1 and not name.startswith("00"):
            layers = {t.layer for t in texts if t.space == "model"}
            assert {"E-RACK-IDEN", "E-TRAY-IDEN", "G-ANNO-TEXT", "E-POWR"} <= layers, name


@pytest.mark.parametrize("stem", SHIPPED)
def test_no_two_texts_on_a_sheet_overlap(stem: str, plotted: Callable[[str], Any]) -> None:
    _doc, sheets = plotted(stem)
    for name, texts in sheets.items():
        hits = collisions(texts)
        assert not hits, (name, [(a.text, b.text) for a, b in hits][:5])


@pytest.mark.parametrize("stem", SHIPPED)
def test_audit_is_clean(stem: str, plotted: Callable[[str], Any]) -> None:
    doc, _sheets = plotted(stem)
    auditor = doc.audit()
    assert not auditor.has_errors and not auditor.has_fixes, [e.message for e in auditor.errors][:5]
