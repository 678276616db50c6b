"""`dclayout compare SITE` end to end: JSON on stdout, the CSV on disk, the table, exit codes."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pandas as pd

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
    assert len(rows) == 16 and rows[0]["variant"] == "ib-nb/rail/cx7"
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
