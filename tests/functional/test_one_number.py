"""One number everywhere: every shipped site through every output, each headline figure found with the
same value and the same label (layout/figures.py) in the CLI, summary.json, the PDF, the XLSX, the DXF,
the SVG site plan, ``compare`` and ``sweep``.

The values are checked against sums made here from the design's own tables (the BOM, the racks, the
links), not against the figures module alone, so a figure worked out wrongly in one place fails too.
"""

from __future__ import annotations

import io
import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader

from layout import figures
from layout.engine import compare
from layout.engine.sweep import Shared, run_point
from layout.load import load_site, read_toml

ROOT = Path(__file__).resolve().parents[2]
SITES = sorted((ROOT / "sites").glob("*.toml"))
CLI_KEYS = (
    "copper_share_pct", "switches_all", "it_mw", "facility_mw", "annual_twh", "annual_cost_usd", "max_rack_kw",
    "cost_total_usd", "cost_without_power_chain_usd", "ttff_min", "ttff_all_links_min", "cable_km",
    "tray_fill_max_pct",
)  # fmt: skip
COVER_KEYS = (
    "gpus", "racks", "it_mw", "cable_km", "copper_share_pct", "cost_total_usd", "cost_without_power_chain_usd",
    "ttff_min", "ttff_all_links_min", "tray_fill_max_pct", "violations",
)  # fmt: skip


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Each shipped site designed once by the CLI with every export: its folder and what it printed."""
    got = {}
    for site in SITES:
        out = tmp_path_factory.mktemp(site.stem)
        cmd = [
            sys.executable,
            "-m",
            "layout",
            "design",
            str(site),
            "--out",
            str(out),
            "--pdf",
            "--xlsx",
            "--dxf",
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=True)
        got[site.stem] = (out, done.stdout)
    return got


def dxf_texts(path: Path) -> list[str]:
    """Every TEXT, MTEXT and ATTRIB of a DXF file, read by ezdxf."""
    import ezdxf

    doc = ezdxf.readfile(path)
    out = []
    for lay in doc.layouts:
        for e in lay:
            if e.dxftype() == "TEXT":
                out.append(e.dxf.text)
            elif e.dxftype() == "MTEXT":
                out.append(e.text)
            elif e.dxftype() == "INSERT":
                out += [a.dxf.text for a in e.attribs]
    return out


def independent(design: Any) -> dict[str, Any]:
    """Headline figures summed here from the design's tables, not from layout.figures."""
    bom = design.bom
    total = round(float(bom["extended_usd"].sum()), 2)
    power = float(bom.loc[bom["category"] == "power", "extended_usd"].sum())
    kw = design.power.rack_kw
    links = design.cabling.links
    return {
        "gpus": int(design.fabric.gpus),
        "racks": len(design.placement.racks),
        "max_rack_kw": round(float(np.max(kw)), 3),
        "cost_total_usd": total,
        "cost_without_power_chain_usd": round(total - power, 2),
        "cable_km": round(float(np.nansum(links["stock_length_m"].to_numpy(float))) / 1000, 3),
        "violations": len(design.violations),
    }


@pytest.mark.parametrize("site", SITES, ids=[s.stem for s in SITES])
def test_each_headline_figure_has_one_value_and_one_label_in_every_output(
    site: Path, outputs: dict[str, tuple[Path, str]], design_of: Any
) -> None:
    design = design_of(site.stem)
    fig = design.figures
    for key, value in independent(design).items():
        assert fig.value(key) == pytest.approx(value, abs=1e-6), key
    out, printed = outputs[site.stem]

    # summary.json: the figures block, and every other key that holds a headline figure
    summary = json.loads((out / "summary.json").read_text())
    for spec in figures.SPECS:
        entry = summary["figures"][spec.key]
        assert (entry["label"], entry["unit"]) == (spec.label, spec.unit)
        assert entry["value"] == pytest.approx(fig.value(spec.key)), spec.key
        if spec.summary_key:
            held: Any = summary
            for part in spec.summary_key.split("."):
                held = held[part]
            if spec.key == "violations":
                held = len(held)
            assert held == pytest.approx(fig.value(spec.key)), spec.summary_key

    # the CLI: "label: text"
    cli = flat(printed)
    for key in CLI_KEYS:
        assert f"{fig[key].label}: {fig[key].text}" in cli, key

    # the PDF cover: each value above its label; the reliability chapter names both failure times
    pdf = PdfReader(out / f"{site.stem}.pdf")
    cover = flat(pdf.pages[0].extract_text())
    for key in COVER_KEYS:
        assert f"{fig[key].text} {fig[key].label}" in cover, key
    body = flat(" ".join(p.extract_text() for p in pdf.pages))
    for key in ("ttff_min", "ttff_all_links_min"):
        if fig.value(key) is not None:
            assert f"the {fig[key].label} is {fig[key].text}" in body, key
    assert f"The {fig['tray_fill_max_pct'].label}: {fig['tray_fill_max_pct'].text}." in body

    # the XLSX Summary sheet: each label once, with the figure's value
    sheet = pd.read_excel(io.BytesIO((out / f"{site.stem}.xlsx").read_bytes()), sheet_name="Summary")
    assert not sheet["figure"].duplicated().any()
    by_label = dict(zip(sheet["figure"], sheet["value"], strict=True))
    for spec in figures.SPECS:
        value = fig.value(spec.key)
        if value is not None:
            assert by_label[spec.label[:1].upper() + spec.label[1:]] == pytest.approx(value), spec.key

    # the DXF (read back by ezdxf): the title block's figures; busway metres as the BOM buys them; each
    # tray label's fill written as the headline fill is
    texts = dxf_texts(out / f"{site.stem}.dxf")
    for key in ("gpus", "racks", "it_mw", "violations"):
        assert any(f"{fig[key].label}: {fig[key].text}" in t for t in texts), key
    bom = design.bom.set_index("part_id")
    bought: dict[str, int] = {}
    for t in texts:
        m = re.match(r"\s+(\S+): \d+ runs, ([\d,]+) m as bought", t)
        if m:
            bought[m.group(1)] = bought.get(m.group(1), 0) + int(m.group(2).replace(",", ""))
    for model, metres in bought.items():
        assert bom.loc[f"{model}/m", "qty"] == metres, model
    # tray labels: the same fill, to the whole per cent (a label is left off where there is no room)
    fills = [int(m.group(1)) for t in texts if (m := re.search(r"\| (\d+)%$", t))]
    # the headline is the fill to 0.1 % (18.5 for 18.53), a label the same fill to the whole per cent (19)
    assert fills and max(fills) <= math.floor(fig.value("tray_fill_max_pct") + 0.05 + 0.5)

    # the SVG site plan (read back as XML): its line of headline figures
    import xml.etree.ElementTree as ET

    root = ET.parse(out / f"{site.stem}-site.svg").getroot()
    (line,) = [
        e.text or "" for e in root.iter("{http://www.w3.org/2000/svg}text") if e.get("data-kind") == "figures"
    ]
    for key in ("gpus", "racks", "it_mw", "cost_total_usd", "violations"):
        assert f"{fig[key].label}: {fig[key].text}" in line, key

    # sweep: a point that changes nothing is this design, with the same figures
    row = run_point(Shared((read_toml(site),), (load_site(site),)), (0, {}), {})
    for spec in figures.SPECS:
        assert row[spec.key] == pytest.approx(fig.value(spec.key)) or row[spec.key] is fig.value(spec.key), (
            spec.key
        )


@pytest.mark.parametrize("stem", ["superpod-4su", "campus-100k"])
def test_compare_prints_the_sites_own_variant_with_the_designs_figures(stem: str, design_of: Any) -> None:
    """The variant of compare that is the site's own cluster gives the design's figures (capital cost with
    the power chain, both failure times) and the same words."""
    inputs = load_site(ROOT / "sites" / f"{stem}.toml")
    own = [
        v
        for v in compare.variants()
        if compare.variant_cluster(inputs.site.cluster, v) == inputs.site.cluster
    ]
    assert own, "the site's cluster is one of compare's variants"
    table = compare.compare(inputs, chosen=own[:1], jobs=1)
    row = table.iloc[0]
    fig = design_of(stem).figures
    for spec in figures.SPECS:
        want = fig.value(spec.key)
        got = row[spec.key]
        assert (pd.isna(got) and want is None) or got == pytest.approx(want), spec.key
