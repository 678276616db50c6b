"""The SVG plans of every shipped site, parsed back: no text smaller than the plan's minimum (relative
to its viewBox), row labels clear of the racks, and the site plan with one element per building, hall
and duct."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from layout.export import svg

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.stem for p in (ROOT / "sites").glob("*.toml"))
NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def plans(
    tmp_path_factory: pytest.TempPathFactory, design_of: Callable[[str], Any]
) -> Callable[[str], list[Path]]:
    out = tmp_path_factory.mktemp("svg")
    cache: dict[str, list[Path]] = {}

    def get(stem: str) -> list[Path]:
        if stem not in cache:
            (out / stem).mkdir()
            cache[stem] = svg.write_svgs(design_of(stem), out / stem, stem)
        return cache[stem]

    return get


def view_box(root: ET.Element) -> tuple[float, float]:
    _x, _y, w, h = (float(v) for v in root.attrib["viewBox"].split())
    return w, h


@pytest.mark.parametrize("stem", SHIPPED)
def test_no_text_is_smaller_than_the_plans_minimum(stem: str, plans: Callable[[str], list[Path]]) -> None:
    for path in plans(stem):
        root = ET.parse(path).getroot()
        w, h = view_box(root)
        sizes = [float(t.attrib["font-size"]) for t in root.iter(f"{NS}text")]
        assert sizes, path.name
        # 10 px on a plan whose longer side is at most 1,250 px: 0.8 % of it, as big as 8 pt on A4
        assert min(sizes) >= svg.MIN_FONT_PX and min(sizes) >= 0.008 * max(w, h), (
            path.name,
            min(sizes),
            w,
            h,
        )


@pytest.mark.parametrize("stem", SHIPPED)
def test_row_labels_are_legible_and_clear_of_the_racks(stem: str, plans: Callable[[str], list[Path]]) -> None:
    labelled = 0
    for path in plans(stem):
        if path.name.endswith("-site.svg"):
            continue
        root = ET.parse(path).getroot()
        racks = [
            tuple(float(r.attrib[k]) for k in ("x", "y", "width", "height"))
            for r in root.iter(f"{NS}rect")
            if r.find(f"{NS}title") is not None
        ]
        rows = [t for t in root.iter(f"{NS}text") if re.fullmatch(r"R\d+", t.text or "")]
        labelled += len(rows)
        for t in rows:
            fs = float(t.attrib["font-size"])
            x, y = float(t.attrib["x"]), float(t.attrib["y"])
            w = 0.6 * fs * len(t.text or "")  # Helvetica: ~0.6 em per character
            turned = "transform" in t.attrib  # turned to run up the page from (x, y)
            box = (x - 0.9 * fs, y - w, x, y) if turned else (x, y - 0.7 * fs, x + w, y)
            for rx, ry, rw, rh in racks:
                assert not (
                    box[0] < rx + rw - 0.5
                    and rx < box[2] - 0.5
                    and box[1] < ry + rh - 0.5
                    and ry < box[3] - 0.5
                ), (path.name, t.text)
    assert labelled >= 6  # every site keeps some: those that fit


def test_the_site_plan_has_one_element_per_building_hall_and_duct(
    plans: Callable[[str], list[Path]], design_of: Callable[[str], Any]
) -> None:
    site = design_of("campus-100k").inputs.site
    (path,) = [p for p in plans("campus-100k") if p.name == "campus-100k-site.svg"]
    root = ET.parse(path).getroot()
    by = {
        k: [e.attrib[k] for e in root.iter() if k in e.attrib]
        for k in ("data-building", "data-hall", "data-duct")
    }
    assert by["data-building"] == [b.id for b in site.building]
    assert by["data-hall"] == [f"{b.id}/{h.id}" for b in site.building for h in b.hall]
    assert by["data-duct"] == [f"{d.from_}-{d.to}" for d in site.duct]
    text = " ".join(root.itertext())
    # where the pods are: the fabric's pods, each named in the hall its servers stand in
    pods = design_of("campus-100k").fabric.devices["pod"].max() + 1
    assert all(re.search(rf"\bpods? ([0-9, -]*\b)?{p}\b", text) for p in range(pods)), text
    assert "H1" in text and "MW" in text


def test_site_plan_of_a_one_hall_site_names_the_hall(plans: Callable[[str], list[Path]]) -> None:
    (path,) = [p for p in plans("superpod-4su") if p.name == "superpod-4su-site.svg"]
    root = ET.parse(path).getroot()
    assert [e.attrib["data-hall"] for e in root.iter() if "data-hall" in e.attrib] == ["B1/H1"]


def test_runs_of_pod_numbers_collapse() -> None:
    from layout.export.labels import runs_text

    assert runs_text([0, 1, 2, 5, 7, 8]) == "0-2, 5, 7-8"
