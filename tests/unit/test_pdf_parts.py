"""The PDF building blocks that need no Design: page furniture, tables that split, charts, plans,
catalog sources. Text is read back with pypdf."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader
from reportlab.graphics.shapes import Rect, String
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Paragraph

from layout.export import pdf as P
from layout.export.pdf.flowables import _id_cell
from layout.scene import palette

ROOT = Path(__file__).resolve().parents[2]
META = P.ReportMeta("Test Hall", "C", "2026-03-14")


def pages_text(data: bytes) -> list[str]:
    return [p.extract_text() for p in PdfReader(io.BytesIO(data)).pages]


def long_table_story(n: int) -> list:
    cols = [P.Col("Part", 250), P.Col("Quantity", 80, True), P.Col("Extended", 120, True)]
    rows = [[f"part-{i:03d}", P.fmt_int(i * 1000), P.fmt_usd(i * 1234.5)] for i in range(n)]
    return [
        *P.cover(META, ["a test"], [P.Kpi("GPUs", "1,024")], "note"),
        *P.contents_page(),
        *P.h1("Parts list"),
        P.data_table(cols, rows, total_last=True),
        *P.h1("Afterword"),
        Paragraph("the end", P.STYLES["body"]),
    ]


@pytest.fixture(scope="module")
def long_pdf() -> bytes:
    return P.render(long_table_story(300), META)


def test_long_table_splits_and_repeats_its_header(long_pdf: bytes) -> None:
    texts = pages_text(long_pdf)
    table_pages = [t for t in texts if "part-" in t]
    assert len(table_pages) >= 3, "300 rows cannot fit on fewer than 3 A4 pages"
    for t in table_pages:
        assert re.search(r"Part\s+Quantity\s+Extended", t), t[:200]
    found = re.findall(r"part-(\d{3})", "\n".join(texts))
    assert sorted(int(x) for x in found) == list(range(300)), "every row appears exactly once"
    assert re.search(r"part-090\s+90,000\s+\$111,105", "\n".join(texts))  # 90 x 1,234.5 = 111,105


def test_footer_has_page_of_total_site_and_revision(long_pdf: bytes) -> None:
    texts = pages_text(long_pdf)
    n = len(texts)
    for i, t in enumerate(texts, start=1):
        assert f"Page {i} of {n}" in t
        assert "Test Hall - revision C - 2026-03-14" in t


def test_contents_lists_chapters_with_their_pages(long_pdf: bytes) -> None:
    texts = pages_text(long_pdf)
    toc = texts[1]
    numbers = [int(x) for x in re.findall(r"\.\s+(\d+)\s*$", toc, re.M)]
    titles = ["Parts list", "Afterword"]
    assert sorted(titles, key=toc.index) == titles and len(numbers) == 2, toc
    for title, page in zip(titles, numbers, strict=True):
        assert title in texts[page - 1].splitlines()[:6], (title, page)
    assert numbers[1] > numbers[0] + 2, "the parts list spans pages"


def test_bookmarks_follow_the_headings(long_pdf: bytes) -> None:
    outline = PdfReader(io.BytesIO(long_pdf)).outline
    assert [o.title for o in outline if not isinstance(o, list)] == ["Parts list", "Afterword"]


def test_same_story_same_bytes_and_the_date_comes_from_the_site() -> None:
    a = P.render(long_table_story(50), META)
    b = P.render(long_table_story(50), META)
    assert a == b
    info = PdfReader(io.BytesIO(a)).metadata
    assert info is not None
    assert info["/CreationDate"].startswith("D:20260314")
    c = P.render(long_table_story(50), P.ReportMeta("Test Hall", "C", "2027-01-02"))
    assert PdfReader(io.BytesIO(c)).metadata["/CreationDate"].startswith("D:20270102")


@pytest.mark.skipif(shutil.which("qpdf") is None, reason="qpdf not installed")
def test_qpdf_check_passes(long_pdf: bytes, tmp_path: Path) -> None:
    f = tmp_path / "t.pdf"
    f.write_bytes(long_pdf)
    res = subprocess.run(["qpdf", "--check", str(f)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_text_is_made_safe_for_helvetica_and_markup() -> None:
    assert P.safe("DAC ≤ 3 m → AEC <b>") == "DAC &lt;= 3 m -&gt; AEC &lt;b&gt;"
    assert P.safe("2 × 400G – ok") == "2 × 400G – ok"  # both exist in WinAnsi
    assert P.safe("機") == "?"


def test_kw_bands_edges() -> None:
    # the palette's bands (layout.scene.palette): up to 50 %, 80 %, 100 %, over
    ratios = np.array([0.2, 0.5, 0.51, 0.8, 0.81, 0.95, 0.96, 1.0, 1.0001, 3.0])
    assert P.kw_band(ratios).tolist() == [0, 0, 1, 1, 2, 2, 2, 2, 3, 3]
    assert [b[2].hexval()[2:] for b in P.KW_BANDS] == [b.colour[1:] for b in palette.BANDS]


@pytest.mark.parametrize(("target", "expected"), [(37, 20), (100, 100), (7, 5), (0.3, 0.2), (1.9, 1)])
def test_nice_length(target: float, expected: float) -> None:
    assert P.nice_length(target) == pytest.approx(expected)


def _walk(node):  # every shape of a reportlab Drawing, groups flattened
    for c in getattr(node, "contents", []):
        yield c
        yield from _walk(c)


def test_hall_plan_colours_each_rack_by_its_kw_against_the_limit() -> None:
    hall = P.HallOutline("B1/H1", [(0, 0), (20, 0), (20, 10), (0, 10)], [(10, 5, 0.6, 0.6)], [], 40.0)
    kw = np.array([10.0, 30.0, 36.0, 44.0, 44.0])  # 25 %, 75 %, 90 %, 110 %, 110 % of 40 kW
    n = len(kw)
    kind = np.array(["gpu"] * 4 + ["spine"])
    racks = P.PlanRacks(
        x_m=np.arange(n) * 1.5 + 3,
        y_m=np.full(n, 3.0),
        width_m=np.full(n, 0.6),
        depth_m=np.full(n, 1.2),
        rotation_deg=np.array([0, 0, 180, 90, 270.0]),
        kind=kind,
        fill_no=palette.fill_index(kind, palette.kw_band(kw / 40.0), kw),
        label=np.array([f"{i + 1:02d}" for i in range(n)]),
    )
    trays = P.PlanTrays(np.array([[1, 1, 19, 1], [1, 8, 19, 8]]), np.array([False, True]))
    plan = P.hall_plan(hall, racks, [P.PlanRow("R01", 3, 3, "x", False)], trays)
    fills = list(P.FILL_COLOURS)
    found = []  # (x, fill, w, h, stroke) of every rack drawn
    for b in plan.batches:
        if b.kind == "rects" and b.fill in fills and b.line_w in (0.15, 0.6):
            found += [(x, fills.index(b.fill), w, h, b.stroke) for x, _, w, h in b.data.tolist() if w != 8]
    found.sort()
    # GPU racks by band; the spine rack by its kind although it is over the limit too
    assert [f[1] for f in found] == [0, 1, 2, 3, palette.FILLS.index(palette.KIND_COLOURS["spine"])]
    # rotated racks (90/270) lie across the row: their drawn width is the depth
    assert found[3][2] == pytest.approx(found[0][3]) and found[3][3] == pytest.approx(found[0][2])
    assert found[4][4] == P.NETWORK_EDGE and found[0][4] == P.INK  # the spine rack stands out
    texts = {t for b in plan.batches if b.kind == "text" for t in b.labels}
    assert {"01", "05", "R01", "N", "m", "cable tray", "tray over its fill limit"} <= texts
    assert any("40 kW" in t for t in texts)
    tray_lines = {
        b.stroke: len(b.data)
        for b in plan.batches
        if b.kind == "lines" and b.line_w >= 0.8 and len(b.data) == 1 and b.data[0][2] - b.data[0][0] > 100
    }
    assert tray_lines == {P.TRAY_COLOUR: 1, P.TRAY_FULL: 1}


def test_plan_paints_batches_as_pdf_paths() -> None:
    plan = P.Plan(100, 50)
    plan.rects([1, 2], [3, 4], 5, 6, P.INK)
    plan.text([10], [20], ["a(b)"], 6, anchor="start")
    data = P.render([plan], META)
    stream = PdfReader(io.BytesIO(data)).pages[0].get_contents().get_data()
    assert b"1.00 3.00 5.00 6.00 re\n2.00 4.00 5.00 6.00 re\nf Q" in stream
    assert b"(a\\(b\\)) Tj" in stream
    assert "a(b)" in pages_text(data)[0]


def test_budget_bars_state_use_limit_and_share() -> None:
    d = P.budget_bars([P.Budget("Site", 150.0, 200.0), P.Budget("B1", 12.5, None)])
    texts = [s.text for s in _walk(d) if isinstance(s, String)]
    assert "150.00 of 200.00 MW (75%)" in texts
    assert "12.50 MW (no limit set)" in texts


def test_length_bins_count_every_link_once_per_class() -> None:
    lengths = np.array([0.5, 2.9, 3.0, 3.1, 45.0, 45.0, 120.0, 2500.0])
    media = np.array(["dac", "dac", "aec", "aec", "mmf", "mmf", "smf", "coherent"])
    labels, counts = P.length_bins(lengths, media)
    assert list(counts) == ["dac", "aec", "mmf", "smf", "coherent"]
    at = {k: {labels[i]: int(n) for i, n in enumerate(v) if n} for k, v in counts.items()}
    assert at == {
        "dac": {"0-1": 1, "2-3": 1},
        "aec": {"3-5": 2},
        "mmf": {"30-50": 2},
        "smf": {"100-150": 1},
        "coherent": {">2k": 1},
    }
    # a Categorical (as the cabling chapter passes, no string per link) counts the same, unused
    # categories and all
    cat = pd.Categorical(media, categories=["smf", "dac", "aec", "mmf", "coherent", "utp"])
    labels_c, counts_c = P.length_bins(lengths, cat)
    assert labels_c == labels and list(counts_c) == list(counts)
    assert all(np.array_equal(counts_c[k], counts[k]) for k in counts)
    d = P.length_histogram(lengths, media)
    bars = [
        s for s in _walk(d) if isinstance(s, Rect) and s.fillColor in P.MEDIA_COLOURS.values() and s.width > 7
    ]
    assert len(bars) == 6, "one bar segment per non-empty (bin, class)"


def test_catalog_figures_carry_the_comment_next_to_them() -> None:
    figs = P.catalog_figures(
        ROOT / "rack_templates" / "catalog.toml", {"server": {"dgx-h100"}, "media": {"mmf"}}
    )
    by = {(f.section, f.item, f.key): f for f in figs}
    assert by[("server", "dgx-h100", "height_ru")].value == "8"
    assert by[("server", "dgx-h100", "height_ru")].source == "NVIDIA DGX H100 user guide"
    assert by[("server", "dgx-h100", "gpus")].source == ""  # the catalog gives none: shown as such
    assert by[("media", "mmf", "reach_m")].source.startswith("<= 50 m on OM4")
    assert by[("media", "mmf", "stock_lengths_m")].value.startswith("3, 5, 7, 10")
    assert ("server", "gb200-nvl72", "power_kw") not in by, "only the items used"
    assert ("server", "dgx-h100", "name") not in by and ("server", "dgx-h100", "cooling") not in by
    assert by[("rack_part", "", "rack_usd")].value == "3500"


def test_catalog_figures_from_a_small_file(tmp_path: Path) -> None:
    f = tmp_path / "catalog.toml"
    f.write_text(
        '[switch.x]\nname = "X"\nports = 64   # datasheet p. 3\nprice_usd = 10.5\n'
        "flag = true\n[rack_part]\nrack_usd = 1 # quote 42\n"
    )
    figs = P.catalog_figures(f)
    assert [(x.section, x.item, x.key, x.value, x.source) for x in figs] == [
        ("switch", "x", "ports", "64", "datasheet p. 3"),
        ("switch", "x", "price_usd", "10.5", ""),
        ("rack_part", "", "rack_usd", "1", "quote 42"),
    ]
    f.write_text("[rack_part]\nrack_usd = 2 # quote 43\n")  # an edited file is read afresh, not recalled
    assert [(x.key, x.value, x.source) for x in P.catalog_figures(f)] == [("rack_usd", "2", "quote 43")]


def test_row_names_never_cover_racks() -> None:
    # two rows on one line, split by a 0.6 m cross aisle: R02's name cannot stand west of it
    hall = P.HallOutline("B1/H1", [(0, 0), (30, 0), (30, 10), (0, 10)], [], [], 40.0)
    x = np.concatenate([2.3 + np.arange(10) * 0.6, 8.9 + np.arange(10) * 0.6])
    n = len(x)
    racks = P.PlanRacks(
        x,
        np.full(n, 5.0),
        np.full(n, 0.6),
        np.full(n, 1.2),
        np.zeros(n),
        np.array(["gpu"] * n),
        np.full(n, 1),  # 50-80 %
        np.array([f"{i % 10 + 1:02d}" for i in range(n)]),
    )
    rows = [P.PlanRow("R01", 2.0, 5.0, "x", False), P.PlanRow("R02", 8.6, 5.0, "x", False)]
    plan = P.hall_plan(hall, racks, rows)
    placed = {b.labels[0]: b for b in plan.batches if b.kind == "text" and b.labels[0] in ("R01", "R02")}
    assert placed["R01"].anchor == "end" and placed["R01"].size == 5.0  # west of its row, full size
    assert placed["R02"].anchor == "start"  # in the aisle beside its row, at most 0.6 m tall
    assert placed["R02"].size <= 5.0 and placed["R02"].data[0][1] > placed["R01"].data[0][1]
    rack_rects = [
        r
        for b in plan.batches
        if b.kind == "rects" and b.line_w == 0.15
        for r in b.data.tolist()
        if r[2] != 8
    ]
    for name, b in placed.items():
        ((tx, ty),) = b.data.tolist()
        w = stringWidth(name, b.font, b.size)
        left = tx - w if b.anchor == "end" else tx
        for rx, ry, rw, rh in rack_rects:
            overlap = (
                left < rx + rw - 0.3
                and left + w > rx + 0.3
                and ty < ry + rh - 0.3
                and ty + b.size * 0.7 > ry + 0.3
            )
            assert not overlap, (name, (rx, ry))


def test_longest_bundles_group_kind_rows_and_medium_longest_first() -> None:
    from layout.export.pdf.chapters.cabling import longest_bundles

    # links:        0     1     2     3     4     5 (not routed)
    kind = np.array([0, 0, 0, 1, 0, 0])
    row_a = np.array([1, 1, 2, 1, 1, 1])
    row_b = np.array([2, 2, 2, 2, 2, 2])
    media = np.array([0, 0, 0, 0, 1, 0])
    length = np.array([10.0, 30.0, 30.0, 5.0, 12.0, 99.0])
    routed = np.array([True, True, True, True, True, False])
    got = longest_bundles(kind, row_a, row_b, media, length, routed)
    # bundle (0,1,2,0) = links 0 and 1, longest link 1 (30 m); (0,2,2,0) = link 2 (30 m, ties go to the
    # lower link number, so after link 1); then link 4 (12 m) and link 3 (5 m); link 5 is not routed
    assert got == [(1, 2, 30.0, 1, 2), (2, 1, 30.0, 2, 2), (4, 1, 12.0, 1, 2), (3, 1, 5.0, 1, 2)]
    assert longest_bundles(kind, row_a, row_b, media, length, routed, top=2) == got[:2]


def text_runs(data: bytes) -> list[tuple[int, float, float, str]]:
    """Every text run of a PDF: page, baseline y, x, text (positions to 0.01 pt), sorted."""
    runs: list[tuple[int, float, float, str]] = []
    for page, p in enumerate(PdfReader(io.BytesIO(data)).pages, start=1):

        def visit(text: str, cm: list[float], tm: list[float], *_: object, page: int = page) -> None:
            if text.strip():
                x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
                y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
                runs.append((page, round(y, 2), round(x, 2), text.strip()))

        p.extract_text(visitor_text=visit)
    return sorted(runs)


def test_one_line_cells_are_strings_drawn_where_the_paragraph_would_be() -> None:
    cols = [P.Col("Part", 90), P.Col("Quantity", 60, True), P.Col("Note", 70)]
    rows = [
        ["part-a", "1,000", "short"],
        ["part-b", "22", "a note far too long for seventy points, so it wraps"],
        ["two  spaces", "3", "x"],  # a Paragraph would collapse the run of spaces: stays one
    ]
    table = P.data_table(cols, rows)
    cells = table._cellvalues
    assert cells[0] == ["Part", "Quantity", "Note"] and cells[1] == ["part-a", "1,000", "short"]
    assert isinstance(cells[2][2], Paragraph) and isinstance(cells[3][0], Paragraph)
    styles = [P.STYLES["cell_r" if c.numeric else "cell"] for c in cols]
    as_paragraphs = P.data_table(
        cols, [[Paragraph(P.safe(v), st) for st, v in zip(styles, r, strict=True)] for r in rows]
    )
    fast, slow = (text_runs(P.render([t], META)) for t in (table, as_paragraphs))
    assert fast == slow, "same text at the same baseline and x, to 0.01 pt"
    assert len({y for _, y, _, t in fast if "wraps" in t or "too long" in t}) == 2, "the long note wraps"
    numbers = {t: x for _, _, x, t in fast if t in ("1,000", "22")}
    assert numbers["1,000"] < numbers["22"], "numbers are right-aligned"


def test_the_first_layout_pass_only_sketches_and_the_bytes_stay_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from reportlab.platypus import Flowable

    drawn: list[int] = []

    class Counted(Flowable):
        def wrap(self, aw: float, ah: float) -> tuple[float, float]:
            return 10.0, 10.0

        def draw(self) -> None:
            drawn.append(1)

    story = [*long_table_story(120), Counted()]
    sketched = P.render(story, META)
    assert len(drawn) == 1, "laid out twice (the page count), drawn once: the first pass only sketches"
    from layout.export.pdf import document

    monkeypatch.setattr(document.SketchFrame, "add", document.Frame._add)
    drawn.clear()
    assert P.render(story, META) == sketched, "skipping the thrown-away drawing changes no byte"
    assert len(drawn) == 2


def test_an_id_wraps_only_after_its_separators() -> None:
    """Hand-measured at 7.5 pt Helvetica: "B1/H1/R20/K07" is 52.1 pt, "B1/H1/R20/" 38.8 pt, "B1/H1/" 22.9
    pt. A 46 pt column has 40 pt of room (3 pt padding a side): the id breaks after R20's slash, never
    inside R20 or K07; in a 40 pt column (34 pt) after H1's; a token wider than the column stands whole
    on its own line; an id that fits stays one line; two ids break at the space between them."""
    cell = P.STYLES["cell"]
    assert _id_cell("B1/H1/R20/K07", cell, 46) == "B1/H1/R20/\nK07"
    assert _id_cell("B1/H1/R20/K07", cell, 40) == "B1/H1/\nR20/K07"
    assert _id_cell("B1/H1/R20/K07", cell, 85) == "B1/H1/R20/K07"
    assert _id_cell("B1/H1/be-leaf-p0-u01-r0", cell, 40) == "B1/H1/\nbe-leaf-p0-u01-r0"
    assert _id_cell("B1/H1/R20 B1/H1/R21", cell, 60) == "B1/H1/R20\nB1/H1/R21"


@pytest.mark.parametrize("ids", [True, False])
def test_violation_ids_in_the_pdf_are_never_split_inside_a_token(ids: bool) -> None:
    """Ids read back from the PDF: each whole, or in pieces that end at a slash, in order. Without the
    id column (``ids=False``, a Paragraph) the long one is split inside a token, as it was."""
    wheres = ["B1/H1/R20/K07", "B12/H10/R120/K107/be-leaf-p12-u101-r7/cage-12", "B2/H3/R09"]
    cols = [P.Col("Kind", 55), P.Col("Where", 85, ids=ids), P.Col("What", 210)]
    rows = [["rack_kw", w, f"problem number {i}"] for i, w in enumerate(wheres)]
    tokens = " ".join(pages_text(P.render([*P.h1("Violations"), P.data_table(cols, rows)], META))).split()
    whole = []
    for w in wheres:
        pieces = [t for t in tokens if len(t) > 1 and t in w]
        whole.append("".join(pieces) == w and all(p.endswith("/") for p in pieces[:-1]))
    assert whole == [True, ids, True]


def test_row_names_keep_clear_of_building_columns() -> None:
    """As above, but a 0.8 m column stands in the aisle just beyond R02's start, where its name went
    (the campus's "R24 spine" under a column symbol): the name moves to the other side of the row."""
    from layout.export.pdf import plan as plan_mod

    x = np.concatenate([2.3 + np.arange(10) * 0.6, 8.9 + np.arange(10) * 0.6])
    n = len(x)
    racks = P.PlanRacks(x, np.full(n, 5.0), np.full(n, 0.6), np.full(n, 1.2), np.zeros(n),
                        np.array(["gpu"] * n), np.full(n, 1), np.array([f"{i % 10 + 1:02d}" for i in range(n)]))  # fmt: skip
    rows = [P.PlanRow("R01", 2.0, 5.0, "x", False), P.PlanRow("R02", 8.6, 5.0, "x", False)]
    column = (9.4, 6.1, 0.8, 0.8)
    names = {}
    per_m = 0.0  # points per metre of the plan
    for cols in ([], [column]):
        hall = P.HallOutline("B1/H1", [(0, 0), (30, 0), (30, 10), (0, 10)], cols, [], 40.0)
        plan = P.hall_plan(hall, racks, rows)
        names[len(cols)] = next(b for b in plan.batches if b.kind == "text" and b.labels == ("R02",))
        per_m = plan_mod._plan_canvas((-3.0, -1.0, 31.0, 11.0), plan_mod.FRAME_W, plan_mod.FRAME_H - 60)[
            0
        ].scale
        squares = [
            r
            for b in plan.batches
            if b.kind == "rects" and b.fill == plan_mod.COLUMN_FILL
            for r in b.data.tolist()
        ]
        col_rect = next(
            (r for r in squares if abs(r[2] - r[3]) < 1e-9 and abs(r[2] - 0.8 * per_m) < 1e-6), None
        )
    free, moved = names[0], names[1]
    assert free.data[0][1] > 0 and moved.data[0][1] < free.data[0][1]  # below the row now, not above
    assert col_rect is not None
    cx, cy, cw, ch = col_rect
    (tx, ty), w = moved.data[0].tolist(), stringWidth("R02", moved.font, moved.size)
    assert not (tx < cx + cw and cx < tx + w and ty < cy + ch and cy < ty + moved.size * 0.7)
    # without the column the name stood where the column now is
    (fx, fy) = free.data[0].tolist()
    assert fx < cx + cw and cx < fx + w and fy < cy + ch and cy < fy + free.size * 0.7
