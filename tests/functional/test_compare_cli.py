"""`dclayout compare SITE` end to end: JSON on stdout, the CSV on disk, the table, exit codes."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from layout import figures

ROOT = Path(__file__).resolve().parents[2]


def test_json_and_csv_agree(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    res = dclayout(
        "compare", str(ROOT / "sites/superpod-4su.toml"), "--out", str(tmp_path), "--json", "--jobs", "1"
    )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["site"] == "SuperPOD 4-SU H100 hall"
    assert Path(out["csv"]) == tmp_path / "compare.csv"
    rows = out["variants"]
    assert len(rows) == 20 and rows[0]["variant"] == "ib-nb/rail/cx7"
    csv = pd.read_csv(tmp_path / "compare.csv", keep_default_na=False, na_values=[""])
    assert csv["variant"].tolist() == [r["variant"] for r in rows]
    assert csv["cost_total_usd"].tolist() == [r["cost_total_usd"] for r in rows]
    assert csv["node_optics"].tolist() == [r["node_optics"] for r in rows]
    mor = next(r for r in rows if r["variant"] == "ib-nb/mor/cx7")
    assert mor["ttff_min"] is None and mor["node_optics"] == 0  # JSON null, not NaN
    assert sorted(p.name for p in tmp_path.iterdir()) == ["compare.csv"]


def test_table_on_screen_and_default_folder(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    site = tmp_path / "sp.toml"
    site.write_text((ROOT / "sites/superpod-4su.toml").read_text())
    res = dclayout("compare", str(site), "--templates", str(ROOT / "rack_templates"), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    for name in (
        "ib-nb/rail/cx7",
        "tomahawk5/mor/cedar7",
        "copper %",
        "network cost",
        "fullest tray segment",
    ):
        assert name in res.stdout
    words = set(res.stdout.replace(",", " ").split())  # the headers wrap; the labels are layout.figures'
    for key in ("ttff_min", "ttff_all_links_min", "cost_total_usd", "cost_without_power_chain_usd"):
        assert set(figures.SPEC[key].label.replace(",", " ").split()) <= words, key
    assert (tmp_path / "outputs" / "sp" / "compare.csv").is_file()


def test_bad_site_exits_2(tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    res = dclayout("compare", str(tmp_path / "missing.toml"))
    assert res.returncode == 2
    assert "file not found" in res.stderr


def test_bad_jobs_is_refused(dclayout: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    res = dclayout("compare", str(ROOT / "sites/superpod-4su.toml"), "--jobs", "0")
    assert res.returncode == 2
    assert "not a number of processes: '0'" in res.stderr


def test_unwritable_output_exits_3(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    res = dclayout(
        "compare", str(ROOT / "sites/superpod-4su.toml"), "--out", str(blocker / "sub"), "--jobs", "1"
    )
    assert res.returncode == 3
    assert "export failed" in res.stderr
    assert blocker.read_text() == "not a folder"


def test_the_ranking_leaves_out_variants_that_cannot_be_built() -> None:
    """Hand-built rows: the cheapest row has a violation and another an error; the ranking (and the
    best line) orders only the clean ones, by capital cost, ties in table order."""
    from layout.engine.compare import best, ranked

    rows = [
        {"variant": "a", "cost_total_usd": 10.0, "violations": 3, "error": ""},
        {"variant": "b", "cost_total_usd": 30.0, "violations": 0, "error": ""},
        {"variant": "c", "cost_total_usd": 20.0, "violations": 0, "error": ""},
        {"variant": "d", "error": "tiers: 5 needed"},
        {"variant": "e", "cost_total_usd": 20.0, "violations": 0, "error": ""},
    ]
    got = ranked(rows)
    assert [r["rank"] for r in got] == [None, 3, 1, None, 2]
    top = best(pd.DataFrame(got))
    assert top is not None and top["variant"] == "c"
    assert best(pd.DataFrame(ranked(rows[:1]))) is None


def test_compare_has_the_seeds_hybrid_and_names_the_best_buildable_variant(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    res = dclayout(
        "compare", str(ROOT / "sites/superpod-4su.toml"), "--out", str(tmp_path), "--json", "--jobs", "1"
    )
    out = json.loads(res.stdout)
    rows = {r["variant"]: r for r in out["variants"]}
    hybrid = rows["ib-islands/rail/cx7"]
    assert hybrid["seed"] == "hybrid InfiniBand + front end"
    ranked_rows = [r for r in rows.values() if r["rank"] is not None]
    assert all(r["violations"] == 0 and not r["error"] for r in ranked_rows)
    cheapest = min(ranked_rows, key=lambda r: (r["cost_total_usd"], list(rows).index(r["variant"])))
    assert out["best"] == cheapest["variant"] and cheapest["rank"] == 1
    # one pod on this 1,024-GPU site: every server sends its whole 8 x 400G to the rest
    assert hybrid["between_pods_gbps_per_server"] == 3200.0


@pytest.mark.slow
def test_the_campus_single_fabric_variant_is_laid_across_its_buildings() -> None:
    """Issue 26: the one-fabric Spectrum-X variant of the 100k campus used to put all 98,304 GPUs in
    B1 (139 MW on a 45 MW building). Now its SUs go to every building within its budget, its links
    between buildings are counted, and it breaks no rule, so compare may rank it."""
    from layout import design
    from layout.engine.compare import Variant, variant_inputs
    from layout.load import load_site

    inputs = load_site(ROOT / "sites/campus-100k.toml")
    d = design.run(variant_inputs(inputs, Variant("spectrum-x", "rail", "cx7")))
    assert d.violations == ()
    racks = d.placement.racks
    dev = d.fabric.devices
    server = (dev["role"] == "server").to_numpy()
    b_of = racks["building"].to_numpy()[d.placement.device_rack[server]]
    per_b = pd.Series(b_of).value_counts()
    assert per_b.sum() == 98_304 // 8 and len(per_b) == len(inputs.site.building)
    halls = d.power.halls
    it_mw = halls.assign(b=halls["hall"].str.split("/").str[0]).groupby("b")["it_kw"].sum() / 1000.0
    for b in inputs.site.building:
        assert it_mw[b.id] <= b.it_mw + 1e-6, b.id
    assert d.inter_building["links"] == d.figures.value("links_cross_building") > 0
