"""Labels, pull sheets and the turn-up cable map (layout/export/plant_files.py), read back."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from layout.export import plant_files as pf


@pytest.fixture(scope="module")
def design(design_of: Any) -> Any:
    return design_of("superpod-4su")


@pytest.fixture(scope="module")
def labels(design: Any) -> pd.DataFrame:
    return pf.labels_table(design)


def test_every_cable_labelled_once_at_each_end(design: Any, labels: pd.DataFrame) -> None:
    links = design.cabling.links
    plant = design.cabling.plant
    n_plant = int(plant.channels["structured"].sum())
    with_medium = int((links["media"].astype(str) != "").sum())
    per_item = labels.groupby(["item", "end"]).size().to_dict()
    # a point-to-point cable: one label per end; a plant link: two cords, each labelled at both ends
    assert per_item[("cable", "A")] == per_item[("cable", "B")] == with_medium - n_plant
    assert per_item[("cord", "A")] == per_item[("cord", "B")] == 2 * n_plant
    assert per_item[("trunk", "A")] == per_item[("trunk", "B")] == len(plant.trunks)
    for item in ("cable", "cord", "trunk"):
        x = labels[labels["item"] == item]
        # unique at each end, and the same label at both ends with near and far swapped
        a, b = x[x["end"] == "A"], x[x["end"] == "B"]
        assert a["id"].is_unique and b["id"].is_unique and a["label"].is_unique and b["label"].is_unique
        assert set(a["id"]) == set(b["id"])
        a, b = a.set_index("id"), b.set_index("id")
        assert (a["near"] == b.loc[a.index, "far"]).all() and (a["far"] == b.loc[a.index, "near"]).all()
        # each end's label names its own end first, then the far end
        code = design.inputs.stem.upper() + "."
        for end in (a, b):
            assert (
                end["label"]
                == code
                + end["near"]
                + "/"
                + end["far"]
                + end.index.str.extract(r"(-T\d+)$", expand=False).fillna("").to_numpy()
            ).all()
    # panels and panel ports: each one label, all different; two panel ports per plant link
    for item, n in (("panel", int(plant.panels["panels"].sum())), ("panel port", 2 * n_plant)):
        x = labels.loc[labels["item"] == item, "label"]
        assert len(x) == n and x.is_unique
    # a cord's panel end is a panel port that exists, on a panel that exists
    ports = set(labels.loc[labels["item"] == "panel port", "label"])
    panels = set(labels.loc[labels["item"] == "panel", "label"])
    cords = labels[(labels["item"] == "cord") & (labels["end"] == "B")]
    assert set(cords["near"]) <= ports | set(cords["far"])
    assert {p.rsplit(":", 1)[0] for p in ports} <= panels


def test_panel_positions_by_hand(design: Any) -> None:
    # the first trunk's first link sits at position 1 of panel 1 of its panel-a location
    pp = pf.panel_ports(design)
    t0 = pp[pp["trunk"] == 0].sort_values("link")
    racks = design.placement.racks["rack_id"].str.replace("/", ".")
    first = design.cabling.plant.trunks.iloc[0]
    assert t0["port_a"].iloc[0] == f"{racks.iloc[int(first['panel_a'])]}-PP01:01"
    # 12 fibres a position: the second MPO-12 link at position 2
    if len(t0) > 1 and first["connector"] == "mpo":
        assert t0["port_a"].iloc[1].endswith("-PP01:02")


def test_pull_sheet_lengths_sum_to_the_routes_trunks(design: Any) -> None:
    pull = pf.pull_table(design)
    t = design.cabling.plant.trunks
    assert len(pull) == len(t)
    racks = design.placement.racks["rack_id"].str.replace("/", ".").to_numpy()
    route = [f"{racks[a]}-PP > {racks[b]}-PP" for a, b in zip(t["panel_a"], t["panel_b"], strict=True)]
    by_trunks = t.assign(route=route).groupby("route")["length_m"].sum()
    by_sheet = pull.groupby("route")["length_m"].sum()
    assert by_sheet.to_dict() == pytest.approx(by_trunks.to_dict())
    assert float(pull["length_m"].sum()) == pytest.approx(design.cabling.plant.summary()["trunk_m"])
    # pulling order: 1, 2, ... per route, longest first
    for _, g in pull.groupby("route", sort=False):
        assert g["order"].tolist() == list(range(1, len(g) + 1))
        assert (np.diff(g["length_m"].to_numpy()) <= 0).all()
    assert (pull["segments"] >= 1).all()
    assert pull["fibres"].sum() == t["fibres"].sum()


def test_label_pdf_reads_back(design: Any, labels: pd.DataFrame, tmp_path: Path) -> None:
    from pypdf import PdfReader

    some = labels.iloc[:130]
    path = pf.write_labels_pdf(some, tmp_path / "labels.pdf", "test")
    reader = PdfReader(str(path))
    assert len(reader.pages) == math.ceil(130 / 60)
    first = reader.pages[0].extract_text()
    last = reader.pages[-1].extract_text()

    def printed(label: str, page: str) -> bool:  # every line of it, as the sheet prints it
        return all(line in page for line in pf.label_lines(label, pf.LABEL_WIDTH_PT)[0])

    assert printed(some["label"].iloc[0], first) and printed(some["label"].iloc[59], first)
    assert printed(some["label"].iloc[129], last) and "labels 121-130 of 130" in last
    # the same labels give the same bytes
    again = pf.write_labels_pdf(some, tmp_path / "again.pdf", "test")
    assert again.read_bytes() == path.read_bytes()


def test_turnup_map_and_topology(design: Any) -> None:
    table = pf.turnup_table(design)
    links = design.cabling.links
    assert len(table) == len(links)
    dev = design.fabric.devices["device_id"].astype(str).to_numpy()
    assert (table["a_node"].to_numpy() == dev[links["a"].to_numpy()]).all()
    assert table["cable"].is_unique
    # rack and U of each end are where the placement put the device
    ru = np.asarray(design.placement.device_ru)
    assert (table["a_u"].to_numpy() == ru[links["a"].to_numpy()]).all()
    text = pf.topo_text(design, table)
    backend = int((links["network"].astype(str) == "backend").sum())
    assert text.count(" -> ") == 2 * backend  # each link from both its ends
    # each (node, port) is cabled once
    rows = [ln for ln in text.splitlines() if ln.startswith("   P")]
    blocks = text.split("\n\n")[1:]
    seen = set()
    for block in blocks:
        lines = block.strip().splitlines()
        node = lines[0].split()[1]
        for ln in lines[1:]:
            seen.add((node, ln.split()[0]))
    assert len(seen) == len(rows)


def test_panels_in_fibre_cabinets_are_named_by_their_cabinet(design_of: Any) -> None:
    # gb200-hall: NVL72 racks leave no U, so a GPU row's panels stand in cabinets of 42 at the row end
    d = design_of("gb200-hall")
    panels = d.cabling.plant.panels
    rack_ids = pf._dotted(d.placement.racks["rack_id"])
    per = d.inputs.catalog.plant.cabinet_ru
    row = panels[(panels["in_rack"] == 0) & (panels["panels"] > per)].iloc[0]
    r = int(row["rack"])
    names = pf.panel_names(d, rack_ids, np.full(3, r), np.array([1, per, per + 1]))
    assert names.tolist() == [
        f"{rack_ids[r]}-FC01-PP01",
        f"{rack_ids[r]}-FC01-PP{per:02d}",
        f"{rack_ids[r]}-FC02-PP01",
    ]
    some = panels[(panels["in_rack"] > 0) & (panels["cabinets"] > 0)]
    if len(some):  # the first panels in the rack's free U, the next in the first cabinet
        q, k = int(some["rack"].iloc[0]), int(some["in_rack"].iloc[0])
        got = pf.panel_names(d, rack_ids, np.full(2, q), np.array([k, k + 1])).tolist()
        assert got == [f"{rack_ids[q]}-PP{k:02d}", f"{rack_ids[q]}-FC01-PP01"]
    # every port's panel is a labelled panel, and the DCIM puts it on its location's enclosure
    from layout.export import dcim

    fronts = dcim.dcim_tables(d).front_ports
    assert fronts["device"].str.endswith("-PP").all() and fronts["name"].str.startswith("FC").any()
    labels = pf.labels_table(d)
    ports = set(labels.loc[labels["item"] == "panel port", "label"])
    assert {p.rsplit(":", 1)[0] for p in ports} <= set(labels.loc[labels["item"] == "panel", "label"])
    assert any("-FC" in p for p in ports)
    # every fibre cabinet has its label, the prefix its panels' labels carry, and the row it stands in
    cab = labels[labels["item"] == "fibre cabinet"]
    assert len(cab) == len(d.cabling.plant.cabinets) > 0
    panel_labels = set(labels.loc[labels["item"] == "panel", "label"])
    assert {p.rsplit("-PP", 1)[0] for p in panel_labels if "-FC" in p} == set(cab["label"])
    assert set(cab["near"]) == set(pf._dotted(d.cabling.plant.cabinets["row"]))


def test_every_label_fits_its_label(design_of: Any) -> None:
    # the longest labels (a cable from a port to a fibre cabinet's panel port, 64 characters on
    # gb200-hall) overran the 63.5 mm label at the old size rule (7 pt x 48 / length: 64 mm of text)
    from reportlab.pdfbase.pdfmetrics import stringWidth

    d = design_of("gb200-hall")
    labels = pf.labels_table(d)["label"].astype(str).unique().tolist()
    assert max(map(len, labels)) >= 60
    for label in labels:
        lines, size = pf.label_lines(label, pf.LABEL_WIDTH_PT)
        assert "".join(lines) == label and 1 <= len(lines) <= 2
        assert all(stringWidth(t, pf.LABEL_FONT, size) <= pf.LABEL_WIDTH_PT + 1e-6 for t in lines)
        assert size >= 5.5 or len(lines) == 1, label  # two lines only where one would be smaller
    # a 64-character cable label: two lines of about 7 pt, not one of 4.7 pt
    long = max(labels, key=len)
    lines, size = pf.label_lines(long, pf.LABEL_WIDTH_PT)
    assert len(lines) == 2 and size > 6.0
