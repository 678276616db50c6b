"""Issue 27 item 5: the hall drawings a contractor sets out from, read back with ezdxf: the column grid
(lines and bubbles), each row's setting-out dimensions (start from the hall's reference corner or the
nearest grid line, and length), one dimension per wall of a non-rectangular hall, and the title block's
sign-off, issue status and revision table from the site file."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import ezdxf
import pytest

from layout import design
from layout.export import dxf
from layout.load import load_site
from tests.functional.test_irregular_halls import l_shaped_site

ROOT = Path(__file__).resolve().parents[2]
SIGNED = {
    "drawn_by": "J. Smith",
    "checked_by": "K. Lee",
    "approved_by": "M. Novak",
    "status": "FOR CONSTRUCTION",
}
REVISIONS = (
    ("A", "2026-10-01", "First issue for comment", ""),
    ("B", "2026-11-29", "Issued for construction", "JS"),
)


def signed_site(tmp_path: Path) -> Path:
    """superpod-4su with its sign-off, status and two revisions in ``[site]``."""
    text = (ROOT / "sites" / "superpod-4su.toml").read_text(encoding="utf-8")
    head = "".join(f'{k} = "{v}"\n' for k, v in SIGNED.items())
    revs = "".join(
        f'[[site.revisions]]\nrev = "{r}"\ndate = "{d}"\ndescription = "{t}"\nby = "{b}"\n\n'
        for r, d, t, b in REVISIONS
    )
    assert "[site]\n" in text and "\n[[building]]" in text
    text = text.replace("[site]\n", "[site]\n" + head, 1).replace(
        "\n[[building]]", "\n" + revs + "[[building]]", 1
    )
    site = tmp_path / "signed.toml"
    site.write_text(text, encoding="utf-8")
    return site


@pytest.fixture(scope="module")
def drawn(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[design.Design, Any]]:
    """Designs and their drawings read back: the signed superpod, gb200-hall and the L-shaped hall."""
    tmp = tmp_path_factory.mktemp("setout")
    sites = {"signed": signed_site(tmp), "gb200": ROOT / "sites" / "gb200-hall.toml", "l": l_shaped_site(tmp)}
    out = {}
    for name, path in sites.items():
        d = design.run(load_site(path))
        target = dxf.write_dxf(d, tmp / f"{name}.dxf")
        out[name] = (d, ezdxf.readfile(target))
    return out


def _halls(d: design.Design) -> list[Any]:
    return [h for b in d.inputs.site.building for h in b.hall]


@pytest.mark.parametrize("name", ["signed", "gb200", "l"])
def test_audit_is_clean_and_one_bubble_per_grid_line(name: str, drawn: dict[str, Any]) -> None:
    d, doc = drawn[name]
    assert not doc.audit().has_errors
    msp = doc.modelspace()
    lines = sum(len({c.at[0] for c in h.columns}) + len({c.at[1] for c in h.columns}) for h in _halls(d))
    assert len(msp.query('CIRCLE[layer=="S-GRID"]')) == lines
    assert len(msp.query('LINE[layer=="S-GRID"]')) == lines
    labels = {t.dxf.text for t in msp.query('TEXT[layer=="S-GRID"]')}
    if lines:
        assert {"1", "A"} <= labels


def _near(a: tuple[float, float], b: tuple[float, float], tol: float = 0.5) -> bool:
    return abs(a[0] - b[0]) <= tol and abs(a[1] - b[1]) <= tol


@pytest.mark.parametrize("name", ["signed", "gb200", "l"])
def test_every_row_is_set_out_from_the_corner_or_a_grid_line(name: str, drawn: dict[str, Any]) -> None:
    d, doc = drawn[name]
    dims = []
    for e in doc.modelspace().query('DIMENSION[layer=="G-ANNO-SETO"]'):
        p1, p2 = e.dxf.defpoint2, e.dxf.defpoint3
        dims.append(((p1.x, p1.y), (p2.x, p2.y), e.get_measurement()))
    halls = {f"{b.id}/{h.id}": h for b in d.inputs.site.building for h in b.hall}
    rows = d.placement.rows
    assert len(rows)
    for r in rows.itertuples(index=False):
        h = halls[r.hall]
        cx, cy = min(p[0] for p in h.polygon), min(p[1] for p in h.polygon)
        xs = sorted({c.at[0] for c in h.columns})
        ys = sorted({c.at[1] for c in h.columns})
        along_x = r.axis == "x"
        # along the row: from the nearest grid line at or before the start, else the corner's wall
        ref_x = max([cx, *(g for g in xs if g <= r.x0_m + 1e-6)]) if along_x else cx
        ref_y = cy if along_x else max([cy, *(g for g in ys if g <= r.y0_m + 1e-6)])
        start = (r.x0_m * 1000, r.y0_m * 1000)
        want_x, want_y = (r.x0_m - ref_x) * 1000, (r.y0_m - ref_y) * 1000
        length = ((r.x1_m - r.x0_m) if along_x else (r.y1_m - r.y0_m)) * 1000
        mine_x = (
            [m for p1, p2, m in dims if _near(p2, start) and abs(p1[1] - p2[1]) < 0.5]
            if along_x
            else [
                m
                for p1, p2, m in dims
                if _near(p2, (ref_x * 1000, start[1])) and _near(p1, (cx * 1000, cy * 1000))
            ]
        )
        mine_y = (
            [m for p1, p2, m in dims if _near(p2, start) and abs(p1[0] - p2[0]) < 0.5]
            if not along_x
            else [
                m
                for p1, p2, m in dims
                if _near(p2, (cx * 1000, start[1])) and _near(p1, (cx * 1000, cy * 1000))
            ]
        )
        if want_x > 0.5:
            assert any(abs(m - want_x) < 0.5 for m in mine_x), (r.row, want_x, mine_x)
        if want_y > 0.5:
            assert any(abs(m - want_y) < 0.5 for m in mine_y), (r.row, want_y, mine_y)
        # the length: along the row's face, from its start
        at = start[0] if along_x else start[1]
        assert any(
            abs(m - length) < 0.5 and abs((p1[0] if along_x else p1[1]) - at) < 0.5 for p1, _p2, m in dims
        ), (r.row, length)


def test_an_l_shaped_hall_gets_one_dimension_per_wall(drawn: dict[str, Any]) -> None:
    d, doc = drawn["l"]
    (hall,) = _halls(d)
    poly = hall.polygon
    walls = sorted(
        round(((poly[i][0] - poly[i - 1][0]) ** 2 + (poly[i][1] - poly[i - 1][1]) ** 2) ** 0.5 * 1000)
        for i in range(len(poly))
    )
    corners = {(round(x * 1000), round(y * 1000)) for x, y in poly}
    dims = doc.modelspace().query('DIMENSION[layer=="G-ANNO-DIMS"]')
    # a wall's dimension measures from one corner to the next
    on_walls = [
        e for e in dims if {(round(p.x), round(p.y)) for p in (e.dxf.defpoint2, e.dxf.defpoint3)} <= corners
    ]
    assert len(on_walls) == len(poly) == 6
    assert sorted(round(e.get_measurement()) for e in on_walls) == walls


def _sheet_texts(doc: Any, sheet: str) -> list[str]:
    ps = doc.paperspace(sheet)
    out = [t.dxf.text for t in ps.query("TEXT")]
    for ins in ps.query("INSERT"):
        out += [a.dxf.text for a in ins.attribs]
    return out


def test_every_sheet_has_the_sign_off_status_and_revision_table(drawn: dict[str, Any]) -> None:
    _d, doc = drawn["signed"]
    sheets = [n for n in doc.layouts.names_in_taborder() if n != "Model"]
    assert len(sheets) >= 3
    for sheet in sheets:
        texts = _sheet_texts(doc, sheet)
        for v in SIGNED.values():
            assert v in texts, (sheet, v)
        for rev in REVISIONS:
            for v in rev:
                assert not v or v in texts, (sheet, v)


def test_a_site_without_them_is_preliminary_with_its_one_revision(drawn: dict[str, Any]) -> None:
    d, doc = drawn["gb200"]
    site = d.inputs.site.site
    assert site.status == "PRELIMINARY" and site.revisions == [] and site.drawn_by == ""
    texts = _sheet_texts(doc, doc.layouts.names_in_taborder()[1])
    assert "PRELIMINARY" in texts
    assert {"REV", "DATE", "DESCRIPTION", "DRAWN", "CHECKED", "APPROVED", site.revision, site.date} <= set(
        texts
    )


def test_validate_and_design_name_each_bad_value_alike(tmp_path: Path) -> None:
    text = (ROOT / "sites" / "superpod-4su.toml").read_text(encoding="utf-8")
    bad = (
        'status = "FINAL"\nchecked_by = "a\\tb"\n'
        'revisions = [{ rev = "A", date = "2026-02-30" }, { rev = "", date = "2026-01-01", note = "x" }]\n'
    )
    (tmp_path / "bad.toml").write_text(text.replace("[site]\n", "[site]\n" + bad, 1), encoding="utf-8")
    exe = shutil.which("dclayout") or str(Path(sys.executable).parent / "dclayout")
    runs = [
        subprocess.run([exe, *args, "bad.toml"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        for args in (["validate"], ["design", "--out", str(tmp_path / "out")])
    ]
    assert [r.returncode for r in runs] == [2, 2]
    assert runs[0].stderr == runs[1].stderr
    lines = runs[0].stderr.splitlines()
    keys = [line.split(": ")[1] for line in lines]
    assert all(line.startswith("bad.toml: ") for line in lines)
    assert keys == [
        "site.status",
        "site.checked_by",
        "site.revisions[0].date",
        "site.revisions[1].rev",
        "site.revisions[1].note",
    ]
