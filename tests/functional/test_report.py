"""The PDF report of a real design, read back with pypdf, and `dclayout report` over several sites."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
from pypdf import PdfReader

from layout.design import Design, run
from layout.export import pdf
from layout.export.pdf.chapters.bom import BOM_TITLES
from layout.load import load_site

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "sites" / "superpod-4su.toml"


def flat(text: str) -> str:
    return " ".join(text.split())


def pdf_text(data: bytes) -> str:
    return flat("\n".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages))


@pytest.fixture(scope="module")
def small() -> tuple[Design, bytes]:
    design = run(load_site(SMALL))
    return design, pdf.render_pdf(design)


def overloaded_site(tmp_path: Path) -> Path:
    """The small hall with budgets it cannot meet: a 1.0 MW hall, a 600 kg/m2 floor, a 1.5 MW feed."""
    text = SMALL.read_text()
    for old, new in (
        ("it_mw = 1.5", "it_mw = 1.0"),
        ("floor_load_kg_m2 = 1500.0", "floor_load_kg_m2 = 600.0"),
        ("utility_mw = 2.5", "utility_mw = 1.5"),
    ):
        assert old in text
        text = text.replace(old, new)
    (tmp_path / "sites").mkdir(exist_ok=True)
    site = tmp_path / "sites" / "overloaded.toml"
    site.write_text(text)
    shutil.copytree(ROOT / "rack_templates", tmp_path / "rack_templates", dirs_exist_ok=True)
    return site


def test_headline_figures_match_summary_json(small: tuple[Design, bytes]) -> None:
    design, data = small
    s = design.summary()
    text = pdf_text(data)
    cover = flat(PdfReader(io.BytesIO(data)).pages[0].extract_text())
    pw = s["power"]
    for figure in (
        f"{s['gpus']:,}",
        f"{s['racks']['total']:,}",
        f"{pw['it_mw']:.2f} MW",
        f"{pw['facility_mw']:.2f} MW",
        f"{pw['annual_twh'] * 1000:.1f} GWh",
        f"{len(s['violations'])}",
    ):
        assert figure in cover, figure
    ttff = s["reliability"]["time_to_first_failure_min"]
    # the cover's grid: each value above its label
    assert f"{ttff:,.0f} min ({ttff / 60:,.1f} h) time to the first failure, node-side optical links" in cover
    every = s["reliability"]["all_links"]["time_to_first_failure_min"]
    assert f"{every:,.0f} min ({every / 60:,.1f} h) time to the first failure, every backend link" in cover
    total = s["cost_usd"]["total"]
    assert f"${total / 1e6:,.2f} M capital cost, power chain included" in cover
    power = s["cost_usd"]["by_category"]["power"]
    assert f"${(total - power) / 1e6:,.2f} M capital cost without the power chain" in cover
    # the body states the same figures under the same labels
    assert f"annual electricity cost at $0.078/kWh ${pw['annual_cost_usd'] / 1e6:,.2f} M" in text
    assert f"IT power (critical load) {pw['it_mw']:.2f} MW" in text
    assert f"most loaded rack {pw['max_rack_kw']:.1f} kW" in text
    for role, n in (("leaf", s["switches"]["leaf"]), ("spine", s["switches"]["spine"])):
        assert re.search(rf"backend {role} NVIDIA Quantum-2 QM9700 \(InfiniBand NDR\) {n:,} ", text), role
    for kind in ("gpu_leaf", "leaf_spine"):
        assert re.search(rf"backend {kind} 400G {s['links'][kind]:,}", text), kind


def test_every_chapter_is_in_the_contents_and_the_outline(small: tuple[Design, bytes]) -> None:
    _, data = small
    reader = PdfReader(io.BytesIO(data))
    chapters = [o.title for o in reader.outline if not isinstance(o, list)]
    assert chapters[:3] == ["Site and hall plans", "Power", "Network"]
    assert {"Reliability", "Violations", "Assumptions"} <= set(chapters)
    toc = flat(reader.pages[1].extract_text())
    for c in chapters:
        assert c in toc


def test_every_violation_is_listed_with_its_location(tmp_path: Path) -> None:
    design = run(load_site(overloaded_site(tmp_path)))
    kinds = {v.kind for v in design.violations}
    assert {"hall_mw", "floor_load", "site_mw"} <= kinds, kinds
    text = pdf_text(pdf.render_pdf(design))
    for v in design.violations:
        assert flat(v.message) in text, v.message
        assert f"{v.kind} {v.where}" in text
    cover = flat(PdfReader(io.BytesIO(pdf.render_pdf(design))).pages[0].extract_text())
    assert f"{len(design.violations)} design-rule violations" in cover


def test_assumptions_give_each_catalog_figure_its_source(small: tuple[Design, bytes]) -> None:
    _, data = small
    text = pdf_text(data)
    start = text.index("Catalog figures used")
    part = text[start:]
    assert "server.dgx-h100 height_ru 8 NVIDIA DGX H100 user guide" in part
    assert "switch.qm9700 power_w_optics 1500 seed 000 (Quantum-2 with multimode optics)" in part
    assert "server.dgx-h100 gpus 8 no source given" in part
    assert "gb200-nvl72" not in part, "only figures of parts the design uses"


def test_the_facilities_assumptions_and_the_energy_basis_are_stated(small: tuple[Design, bytes]) -> None:
    """Issue 27 item 7: every margin, the power factor, and how energy is stated (nameplate here)."""
    design, data = small
    text = pdf_text(data)
    part = text[text.index("Facilities assumptions What the power chain") :]
    m = design.inputs.catalog.margins
    assert f"power factor of the IT load {m.power_factor:g} catalog [margins]" in part
    assert f"continuous load of busways {m.busway:.0%} of rating catalog [margins]" in part
    assert f"continuous load of UPS blocks {m.ups:.0%} of rating catalog [margins]" in part
    assert "site.utilisation (energy) 1 site file, default: nameplate" in part
    assert "(8,760 h at nameplate: site.utilisation = 1)" in text
    assert "kg per foot (rated) kg per tile (rated)" in text
    foot, tile = design.power.rack_foot_kg.max(), design.power.rack_tile_kg.max()
    assert f"{foot:,.0f} (680) {tile:,.0f} (1,360)" in text


def test_energy_at_a_stated_utilisation(tmp_path: Path) -> None:
    """site.utilisation = 0.6: energy and its cost are 0.6 of nameplate, the power figures unchanged."""
    text = SMALL.read_text()
    assert "electricity_usd_per_kwh" in text
    site = tmp_path / "sites" / "sixty.toml"
    site.parent.mkdir()
    site.write_text(text.replace("electricity_usd_per_kwh", "utilisation = 0.6\nelectricity_usd_per_kwh", 1))
    shutil.copytree(ROOT / "rack_templates", tmp_path / "rack_templates")
    full, sixty = run(load_site(SMALL)), run(load_site(site))
    assert sixty.power.it_mw == full.power.it_mw
    assert sixty.power.annual_twh == pytest.approx(0.6 * full.power.annual_twh)
    assert sixty.power.annual_cost_usd == pytest.approx(0.6 * full.power.annual_cost_usd)
    assert "(8,760 h at 60% of nameplate: site.utilisation = 0.6)" in pdf_text(pdf.render_pdf(sixty))


def test_same_design_same_bytes_and_a_clean_file(small: tuple[Design, bytes], tmp_path: Path) -> None:
    design, data = small
    again = pdf.render_pdf(run(load_site(SMALL)))
    assert again == data
    out = pdf.write_pdf(design, tmp_path / "r.pdf")
    assert out.read_bytes() == data
    info = PdfReader(out).metadata
    assert info["/CreationDate"].startswith("D:" + design.inputs.site.site.date.replace("-", ""))
    if shutil.which("qpdf") is None:
        pytest.skip("qpdf not installed")
    res = subprocess.run(["qpdf", "--check", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_a_failed_export_leaves_no_file(
    small: tuple[Design, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    design, _ = small
    target = tmp_path / "r.pdf"
    target.write_bytes(b"the previous report")

    def broken(*_a: object) -> bytes:
        raise RuntimeError("layout failed")

    monkeypatch.setattr(pdf.report, "render", broken)  # where write_pdf looks it up
    with pytest.raises(RuntimeError):
        pdf.write_pdf(design, target)
    assert target.read_bytes() == b"the previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.pdf"]


# ------------------------------------------------------------------------------------- the batch command
def test_batch_writes_the_good_sites_and_reports_the_bad_one(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text(SMALL.read_text().replace("gpus = 1024", "gpus = 1023"))
    out = tmp_path / "out"
    res = dclayout(
        "report", str(SMALL), str(bad), str(ROOT / "sites" / "gb200-hall.toml"), "--out", str(out), "-j", "2"
    )
    assert res.returncode == 2, res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["gb200-hall.pdf", "superpod-4su.pdf"], (
        "nothing half-written"
    )
    err = flat(res.stderr)
    assert f"{bad}: cluster.gpus: 1023 GPUs is not a whole number" in err
    assert "2 of 3 report(s) written" in err
    for name in ("gb200-hall.pdf", "superpod-4su.pdf"):
        assert PdfReader(out / name).pages, name


DIES = """
import os, signal, sys
from layout import cli
from layout.commands import report

real = report.build_one

def build_one(site, out, templates):  # the worker of one site dies; what it would have done for others
    if site.endswith("exits.toml"):
        os._exit(7)
    if site.endswith("segfaults.toml"):
        os.kill(os.getpid(), signal.SIGSEGV)
    return real(site, out, templates)

report.build_one = build_one
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_worker_that_dies_is_reported_for_its_site_and_the_others_finish(tmp_path: Path, jobs: str) -> None:
    exits, segfaults = tmp_path / "exits.toml", tmp_path / "segfaults.toml"
    for site in (exits, segfaults):
        site.write_text(SMALL.read_text())
    out = tmp_path / "out"
    sites = [str(exits), str(SMALL), str(segfaults), str(ROOT / "sites" / "gb200-hall.toml")]
    res = subprocess.run(
        [sys.executable, "-c", DIES, "report", *sites, "--out", str(out), "-j", jobs],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert res.returncode == 3, res.stderr
    assert "Traceback" not in res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["gb200-hall.pdf", "superpod-4su.pdf"]
    err = flat(res.stderr)
    assert f"{exits}: worker died (exit code 7); no report written for it" in err
    assert f"{segfaults}: worker died (killed by SIGSEGV); no report written for it" in err
    assert "2 of 4 report(s) written" in err
    for name in ("gb200-hall.pdf", "superpod-4su.pdf"):
        assert PdfReader(out / name).pages, name


def test_batch_export_failure_exits_3(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    blocker = tmp_path / "out"
    blocker.write_text("a file where the output folder should be")
    res = dclayout("report", str(SMALL), "--out", str(blocker))
    assert res.returncode == 3, res.stderr
    assert "export failed" in res.stderr
    assert blocker.read_text().startswith("a file")


def test_batch_refuses_two_sites_that_would_write_the_same_file(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    other = tmp_path / "superpod-4su.toml"
    other.write_text(SMALL.read_text())
    res = dclayout("report", str(SMALL), str(other), "--out", str(tmp_path / "out"))
    assert res.returncode == 2
    assert "distinct file names" in res.stderr
    assert not (tmp_path / "out").exists()


def test_media_and_cable_figures_match_summary_json(small: tuple[Design, bytes]) -> None:
    design, data = small
    s = design.summary()
    text = pdf_text(data)
    media = s["media"]
    total = sum(media.values())
    assert total == len(design.fabric.links), "every link has a medium"
    for k, n in media.items():
        if n:
            assert f"{n:,} links ({n / total:.1%})" in text, k
    # the copper share of the GPU fabric, worked out here from the links table: the figure summary.json,
    # the cover and the cabling chapter all show (compare's too: test_compare)
    links = design.cabling.links
    backend = links[(links["network"] == "backend") & (links["media_class"] != "")]
    copper = backend["media_class"].isin(["dac", "aec"]).sum()
    assert s["copper_share_pct"] == round(100 * copper / len(backend), 2)
    cover = flat(PdfReader(io.BytesIO(data)).pages[0].extract_text())
    assert f"{100 * copper / len(backend):.1f} % copper share of the GPU fabric's links" in cover
    assert (
        f"{copper:,} of the GPU fabric's {len(backend):,} links ({100 * copper / len(backend):.1f} %)" in text
    )
    # switches: the backend fabric's (summary.json "switches") and every network's, both labelled
    every = int((~design.fabric.devices["role"].isin(["server", "storage_node", "cpu_node"])).sum())
    assert s["switches_all_networks"] == every > s["switches"]["total"]
    assert (
        f"{s['switches']['total']:,} / {every:,} switches of the GPU fabric / switches of every network"
        in cover
    )
    assert f"{s['cable_length_m']['total'] / 1000:,.1f} km of cable" in text
    longest = design.cabling.links["length_m"].max()
    assert re.search(rf"The longest links .*? {longest:,.1f} ", text), "the longest bundle leads the table"


def test_hall_plan_names_every_row_and_rack_position(small: tuple[Design, bytes]) -> None:
    design, data = small
    reader = PdfReader(io.BytesIO(data))
    page = next(
        p for p in reader.pages if "Hall B1/H1" in p.extract_text() and "GPU rack kW vs" in p.extract_text()
    )
    words = set(page.extract_text().split())
    rows = design.placement.rows
    for r in rows.itertuples():
        short = str(r.row).rsplit("/", 1)[-1]
        assert short in words, short
        if r.kind in ("spine", "core", "network"):
            assert f"{short} {r.kind}" in flat(page.extract_text()), short
    positions = {f"{p:02d}" for p in design.placement.racks["pos"]}
    assert positions <= words


def money(x: float) -> str:
    cents = round(x * 100)
    return f"${cents // 100:,}" if cents % 100 == 0 else f"${cents / 100:,.2f}"


def dollars(text: str) -> Decimal:
    return Decimal(text.replace("$", "").replace(",", ""))


def test_every_bom_line_is_listed_and_the_totals_add_up(small: tuple[Design, bytes]) -> None:
    design, data = small
    bom = design.bom
    text = pdf_text(data)
    body = text[text.index("Every line") :]
    sums: dict[str, Decimal] = {}
    for r in bom.itertuples():
        unit = "" if r.unit == "each" else f" {r.unit}"
        price = money(r.unit_price_usd) if r.unit_price_usd else "-"
        m = re.search(rf"{re.escape(r.part_id)} {r.qty:,}{unit} {re.escape(price)} (\$[\d,.]+)", body)
        assert m, (r.part_id, r.qty, price)
        assert m.group(1) == money(r.extended_usd)
        sums[r.category] = sums.get(r.category, Decimal(0)) + dollars(m.group(1))
    subtotals = re.findall(r"Subtotal ([a-z ]+?) (\$[\d,.]+)", body)
    assert len(subtotals) == len(sums) == bom["category"].nunique()
    for (name, amount), (category, total) in zip(subtotals, sums.items(), strict=True):
        assert dollars(amount) == total, (name, category)
    last = BOM_TITLES[str(bom["category"].iat[-1])].lower()  # power distribution, or cooling
    grand = re.search(rf"Subtotal {last} \$[\d,.]+ Total (\$[\d,.]+)", body)
    assert grand, "the grand total closes the table"
    assert dollars(grand.group(1)) == sum(sums.values())
    assert dollars(grand.group(1)) == Decimal(str(design.summary()["cost_usd"]["total"])).quantize(
        Decimal("0.01")
    )
    cover = flat(PdfReader(io.BytesIO(data)).pages[0].extract_text())
    assert (
        f"${design.summary()['cost_usd']['total'] / 1e6:,.2f} M capital cost, power chain included" in cover
    )


def test_long_bom_tables_repeat_their_header_on_every_page(small: tuple[Design, bytes]) -> None:
    _, data = small
    pages = [flat(p.extract_text()) for p in PdfReader(io.BytesIO(data)).pages]
    bom_pages = [t for t in pages if re.search(r"Subtotal [a-z]", t)]
    assert len(bom_pages) >= 2, "the small hall's BOM already spans two pages"
    for t in bom_pages:
        assert "Item Part Quantity Unit price Extended" in t


def test_reliability_states_the_designs_own_figures(small: tuple[Design, bytes]) -> None:
    design, data = small
    rel = design.summary()["reliability"]
    ck = rel["checkpoint"]
    text = pdf_text(data)
    assert f"{rel['node_optical_modules']:,} node-side modules" in text
    assert f"{rel['time_to_first_failure_min']:,.0f} min" in text
    # 1,024 GPUs x 99 steps x 2 s = 2.35 GPU-days restarting; one step 0.02 + 1.6 s copy 0.02 in memory
    assert round(1024 * 99 * 2 / 86400, 2) == 2.35
    assert "Checkpoint restart, GPU-days lost per failure 2.35" in text
    assert f"In-memory recovery, GPU-days lost per failure {ck['in_memory_gpu_days']:.2f}" in text


def test_the_structured_cabling_section_states_the_plant(small: tuple[Design, bytes]) -> None:
    """Issue 29: the plant in the PDF: trunks by size with their metres, the largest panel locations,
    the highest-loss channels against their budget and the installation hours, as the design has them."""
    design, data = small
    text = pdf_text(data)
    plant = design.cabling.plant
    f = design.figures
    assert "Structured cabling" in text
    n = int(plant.channels["structured"].sum())
    assert f"{n:,} of {len(plant.channels):,} optical links run through the panels" in text
    assert f"{f['trunks'].line()}, {f['patch_panels'].line()}, {f['worst_channel_db'].line()}" in text
    t = plant.trunks
    for (fibres, connector, fibre), g in t.groupby(["fibres", "connector", "fibre"]):
        row = f"{fibres:,}-fibre {fibre.upper()} {connector.upper()} {len(g):,} {g['length_m'].sum():,.0f} "
        assert row in text, row
    # the worst channel leads its table with its loss and budget
    ch = plant.channels
    worst = ch.sort_values(["loss_db", "link"], ascending=[False, True]).iloc[0]
    assert f" {worst['loss_db']:.2f} {worst['budget_db']:.2f}" in text
    assert worst["loss_db"] == design.figures.value("worst_channel_db")
    install = design.summary()["install"]
    assert f"{f['install_hours'].line()} ({install['days']:,} days for a crew of 10" in text
