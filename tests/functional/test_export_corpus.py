"""Every export works for every input that validates: a generated corpus of small hostile site
variations (halls with no rack, a one-rack hall, no rack at all, names with unicode, quotes and markup, a
name that reads as a spreadsheet formula, hostile file names), each designed and written with every
export (summary, SVG, DXF, PDF, CSV, XLSX, Parquet) and read back: JSON, SVG parsed as XML, the DXF by
ezdxf (and audited), the PDF by pypdf, the workbook by openpyxl, the tables by pandas. The TUI map of an
empty hall is drawn empty.

A variation with ``refused`` set carries text validation refuses (markup ``< > &``, layout/model/base.py's
text rule): its expected outcome is that one clean error line (its start, up to the quoted character)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ezdxf
import openpyxl
import pandas as pd
import pytest
from conftest import SMALL_SITE, merge
from pypdf import PdfReader

from layout import design as design_mod
from layout import export
from layout.errors import InputError
from layout.files import safe_name
from layout.load import DEFAULT_TEMPLATES_DIR, Inputs, load_catalog, load_site, load_templates, site_from_data

ROOT = Path(__file__).resolve().parents[2]
SUPERPOD = ROOT / "sites" / "superpod-4su.toml"
ALL = ["summary", "svg", "dxf", "pdf", "csv", "xlsx", "parquet"]
SVG = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class Case:
    name: str  # what the variation is
    stem: str  # the site file's stem
    changes: dict[str, Any]  # deep-merged into the small site (tests/conftest.py)
    empty_halls: tuple[str, ...] = ()  # halls that must come out with no rack
    refused: str = ""  # the start of the one error line expected instead of a design


def _hall(hid: str, polygon: list[list[float]], **more: Any) -> dict[str, Any]:
    return {"id": hid, "polygon": polygon, "cooling": "air", "max_rack_kw": 45.0, **more}


WIDE = {"footprint": [[0, 0], [40, 0], [40, 30], [0, 30]]}
H2 = [[12, 0], [22, 0], [22, 6], [12, 6]]


def corpus() -> list[Case]:
    """The generator: one small site variation per case, each one edit of the small site."""
    cases = [
        Case(
            "a second hall under a keep-out",
            "keepout-hall",
            {
                "building": {
                    0: {
                        **WIDE,
                        "hall": [
                            SMALL_SITE["building"][0]["hall"][0],
                            _hall("H2", H2, keepouts=[{"polygon": H2, "reason": "all of it"}]),
                        ],
                    }
                }
            },  # fmt: skip
            empty_halls=("B1/H2",),
        ),
        Case(
            "a second hall no rack goes to",
            "unused-hall",
            {"building": {0: {**WIDE, "hall": [SMALL_SITE["building"][0]["hall"][0], _hall("H2", H2)]}}},
            empty_halls=("B1/H2",),
        ),
        Case(
            "the only hall under a keep-out (no rack at all)",
            "all-blocked",
            {"building": {0: {"hall": {0: {"keepouts": [{"polygon": [[0, 0], [10, 0], [10, 6], [0, 6]]}]}}}}},
            empty_halls=("B1/H1",),
        ),
        Case(
            "max_row_racks = 1",
            "one-per-row",
            {"building": {0: {"hall": {0: {"max_row_racks": 1}}}}},
        ),
        Case(
            "a one-rack hall",
            "one-rack",
            {"building": {0: {"hall": {0: {"polygon": [[0, 0], [2, 0], [2, 3], [0, 3]]}}}}},
        ),
        Case("a unicode site name", "unicode-name", {"site": {"name": "Zürich Ørsted — 数据中心 ☃ ÆØÅ"}}),
        Case(
            "quotes in the name and revision",
            "quotes",
            {"site": {"name": "the \"big\" 'one'", "revision": "'B\""}},
        ),
        Case(
            "markup in the site name",
            "markup-name",
            {"site": {"name": "<b>&amp; A&B </svg>"}},
            refused='markup-name.toml: site.name: must be plain text, got "<" (U+003C) at character 1',
        ),
        Case(
            "markup in a keep-out reason",
            "markup-reason",
            {
                "building": {
                    0: {
                        "hall": {
                            0: {
                                "keepouts": [
                                    {
                                        "polygon": [[8, 4], [10, 4], [10, 6], [8, 6]],
                                        "reason": "<script>&'\"</script>",
                                    }
                                ]
                            }
                        }
                    }
                }
            },  # fmt: skip
            refused='markup-reason.toml: building[0].hall[0].keepouts[0].reason: must be plain text, got "<"',
        ),
    ]
    for lead in "=+-@":
        cases.append(
            Case(
                f"a site name starting with {lead}",
                f"formula-{ord(lead)}",
                {"site": {"name": f'{lead}HYPERLINK("x","y")'}},
            )
        )
    for stem in ('a<&>"b', "zürich-数据", "=cmd", "..", " spaced "):
        cases.append(Case(f"the file stem {stem!r}", stem, {}))
    return cases


CORPUS = corpus()


def _inputs(case: Case) -> Inputs:
    data = merge(SMALL_SITE, case.changes)
    catalog, templates = load_catalog(DEFAULT_TEMPLATES_DIR), load_templates(DEFAULT_TEMPLATES_DIR)
    return site_from_data(data, Path(f"{case.stem}.toml"), catalog, templates, DEFAULT_TEMPLATES_DIR)


def read_back(inputs: Inputs, paths: list[Path], out: Path) -> dict[str, int]:
    """Read every written file back; returns the racks drawn per hall in the SVGs (``B1/H1``: n)."""
    site = inputs.site.site
    stem = safe_name(inputs.stem)
    halls = [f"{b.id}/{h.id}" for b, h in inputs.site.halls()]
    names = sorted(p.name for p in paths)
    expected = ["summary.json", f"{stem}.dxf", f"{stem}.pdf", f"{stem}.xlsx"]
    expected += [f"{stem}-{t}.{ext}" for t in ("bom", "links", "ports") for ext in ("csv", "parquet")]
    expected += [f"{stem}-{h.replace('/', '-')}.svg" for h in halls] + [f"{stem}-site.svg"]
    assert names == sorted(expected)
    assert sorted(p.name for p in out.iterdir()) == names  # nothing else: no staging, no temporary file
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    assert summary["site"] == site.name
    drawn = {}
    for h in halls:
        root = ET.parse(out / f"{stem}-{h.replace('/', '-')}.svg").getroot()
        assert f"{site.name} — hall {h}" in "".join(root.itertext())
        drawn[h] = sum(
            1
            for r in root.iter(f"{SVG}rect")
            if r.find(f"{SVG}title") is not None and r.get("data-kind") != "fibre-cabinet"
        )
    doc = ezdxf.readfile(out / f"{stem}.dxf")
    auditor = doc.audit()
    assert not auditor.has_errors, [str(e.message) for e in auditor.errors]
    plans = [h.replace("/", "-") for h in halls]  # one per hall, then a power sheet per hall with racks
    power = [f"{h.replace('/', '-')}-PWR" for h in halls if summary["halls"][h]["racks"]]
    sld = [f"{p[: -len('-PWR')]}-SLD" for p in power]  # and a single-line diagram per hall with racks
    assert doc.layout_names() == ["Model", "00 SITE", *plans, *power, *sld]
    pdf = PdfReader(out / f"{stem}.pdf")
    assert len(pdf.pages) >= 2 and pdf.pages[0].extract_text().strip()
    wb = openpyxl.load_workbook(out / f"{stem}.xlsx")
    assert "Summary" in wb.sheetnames
    cells = {str(c.value) for row in wb["Summary"].iter_rows() for c in row if c.value is not None}
    assert site.name in cells or any(site.name in v for v in cells)
    for t in ("bom", "links", "ports"):
        csv = pd.read_csv(out / f"{stem}-{t}.csv")
        assert len(csv) == len(pd.read_parquet(out / f"{stem}-{t}.parquet"))
    return drawn


@pytest.mark.parametrize("case", CORPUS, ids=[c.stem for c in CORPUS])
def test_every_export_of_a_hostile_variation_is_written_and_reads_back(case: Case, tmp_path: Path) -> None:
    if case.refused:
        with pytest.raises(InputError) as e:
            _inputs(case)
        lines = [str(p) for p in e.value.problems]
        assert len(lines) == 1 and lines[0].startswith(case.refused), lines
        return
    inputs = _inputs(case)
    d = design_mod.run(inputs)
    out = tmp_path / "out"
    paths = export.write(d, ALL, out)
    drawn = read_back(inputs, paths, out)
    placed = d.placement.racks["hall"].value_counts().to_dict()
    assert drawn == {h: int(placed.get(h, 0)) for h in drawn}  # every placed rack drawn, once
    for h in case.empty_halls:
        assert drawn[h] == 0


def test_the_corpus_tally() -> None:
    """What the corpus holds (the report quotes it): 18 variations, 5 of hall shapes (3 with an empty
    hall) and 13 of names (2 refused at validation: markup); one file stem each."""
    kinds = Counter("halls" if c.empty_halls or "rack" in c.name else "names" for c in CORPUS)
    assert len(CORPUS) == 18 and kinds == {"halls": 5, "names": 13}
    assert sum(bool(c.empty_halls) for c in CORPUS) == 3 and sum(bool(c.refused) for c in CORPUS) == 2
    assert len({c.stem for c in CORPUS}) == len(CORPUS)


# ----------------------------------------------------------- the shipped 4-SU site with an empty hall
def _superpod_with(tmp_path: Path, name: str, hall: str, halls_keepout: str | None = None) -> Path:
    text = SUPERPOD.read_text().replace(
        "footprint = [[0, 0], [48, 0], [48, 30], [0, 30]]", "footprint = [[0, 0], [48, 0], [48, 42], [0, 42]]"
    )
    if halls_keepout:
        text = text.replace(
            'keepouts = [{ polygon = [[38, 22], [46, 22], [46, 28], [38, 28]], reason = "electrical room" }]',
            halls_keepout,
        )
    text = text.replace("\n[cluster]", f"\n{hall}\n[cluster]")
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


EXTRA_HALL = """
  [[building.hall]]
  id = "H2"
  polygon = [[2, 30], [20, 30], [20, 40], [2, 40]]
  cooling = "air"
  max_rack_kw = 45.0
"""
KEEPOUT_OVER_H2 = (
    '  keepouts = [{ polygon = [[2, 30], [20, 30], [20, 40], [2, 40]], reason = "future hall" }]\n'
)
KEEPOUT_OVER_H1 = 'keepouts = [{ polygon = [[2, 2], [46, 2], [46, 28], [2, 28]], reason = "flooded" }]'


@pytest.mark.parametrize(
    ("variant", "hall", "keepout_h1", "empty"),
    [
        pytest.param(
            "extra-hall-blocked", EXTRA_HALL + KEEPOUT_OVER_H2, None, ["B1/H2"], id="extra-hall-blocked"
        ),
        pytest.param("extra-hall-unused", EXTRA_HALL, None, ["B1/H2"], id="extra-hall-unused"),
        pytest.param(
            "every-hall-blocked",
            EXTRA_HALL + KEEPOUT_OVER_H2,
            KEEPOUT_OVER_H1,
            ["B1/H1", "B1/H2"],
            id="every-hall-blocked",
        ),
    ],
)
def test_superpod_with_an_empty_hall_exports_everything(
    tmp_path: Path, variant: str, hall: str, keepout_h1: str | None, empty: list[str]
) -> None:
    from layout.tui.floor import RACK, Grid, rasterise
    from layout.tui.session import compute

    path = _superpod_with(tmp_path, variant, hall, keepout_h1)
    inputs = load_site(path)
    d = design_mod.run(inputs)
    out = tmp_path / "out"
    drawn = read_back(inputs, export.write(d, ALL, out), out)
    assert [h for h, n in drawn.items() if n == 0] == empty
    # 32 GPU racks, 8 leaf, 3 spine, 2 MDF racks, a storage rack and a management rack
    assert sum(drawn.values()) == len(d.placement.racks) == (0 if len(empty) == 2 else 47)
    # the TUI map: the empty hall is drawn (its floor, its keep-out), with no rack cell
    result = compute(inputs, path.read_text())
    for key, floor in result.floors.items():
        codes, racks = rasterise(floor, Grid.for_hall(floor, 0.5), "kw")
        assert codes.any()  # the floor is drawn
        assert ((codes >= RACK).sum() == 0) == (key in empty) and ((racks >= 0).sum() == 0) == (key in empty)


def test_the_tui_opens_a_site_with_no_rack_and_draws_every_hall_empty(tmp_path: Path) -> None:
    """The app itself (Textual pilot): the design of a site whose halls are all blocked is shown, each
    hall's map is drawn (floor and keep-out cells) with no rack, and ] moves to the second hall."""
    import asyncio

    from layout.tui.app import DCLayoutApp
    from layout.tui.floor import KEEPOUT, RACK
    from layout.tui.widgets.hall_map import HallMap

    path = _superpod_with(tmp_path, "no-rack", EXTRA_HALL + KEEPOUT_OVER_H2, KEEPOUT_OVER_H1)

    async def run() -> list[tuple[str, int, int]]:
        app = DCLayoutApp(path)
        seen = []
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(600):
                await app.workers.wait_for_complete()
                await pilot.pause()
                if not app.designing and app.result is not None:
                    break
            assert app.result is not None and len(app.result.design.placement.racks) == 0
            for _ in range(2):
                hall_map = app.query_one(HallMap)
                await pilot.pause()
                codes = hall_map.codes
                seen.append((app.hall, int((codes == KEEPOUT).sum()), int((codes >= RACK).sum())))
                await pilot.press("right_square_bracket")
        return seen

    seen = asyncio.run(run())
    assert [h for h, _, _ in seen] == ["B1/H1", "B1/H2"]
    assert all(keepout > 0 and racks == 0 for _, keepout, racks in seen)
