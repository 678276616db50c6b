"""``dclayout sweep`` (layout.engine.sweep): the spec file's checks, the Pareto front on a hand-made
table, and a small sweep of the shipped SuperPOD hall in this process (an impossible point is a row
with its error, the others are designed)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from layout.engine import Engine
from layout.engine import sweep as sw
from layout.errors import InputError
from layout.export.pareto import pareto_svg

ROOT = Path(__file__).resolve().parents[2]


def _spec(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "spec.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_the_pareto_front_of_a_hand_made_table() -> None:
    df = pd.DataFrame(
        {
            "cost_total_usd": [10.0, 12.0, 8.0, 10.0, 5.0],
            "optics_total": [100, 120, 150, 100, 1],
            "network_power_mw": [1.0, 1.0, 2.0, 1.0, 0.1],
            "error": ["", "", "", "", "cannot be built"],
        }
    )
    # row 1 is beaten by row 0 on cost and optics; rows 0 and 3 tie (neither beats the other); row 2
    # is cheapest; row 4 has no design
    assert sw.pareto(df).tolist() == [True, False, True, True, False]


def test_a_bad_spec_is_every_problem_in_one_go(tmp_path: Path) -> None:
    path = _spec(tmp_path, 'sites = []\nextra = 1\n[grid]\ncolour = ["red"]\ngpus = 5\n')
    with pytest.raises(InputError) as e:
        sw.load_spec(path)
    got = sorted(f"{p.key}: {p.problem}" for p in e.value.problems)
    assert got == [
        "extra: unknown key",
        "grid.colour: unknown key",
        "grid.gpus: must be a non-empty list of values",
        "sites: must be a non-empty list of site files",
    ]


def test_a_small_sweep_designs_each_point_and_reports_the_impossible_one(tmp_path: Path) -> None:
    site = ROOT / "sites" / "superpod-4su.toml"
    path = _spec(tmp_path, f'sites = ["{site}"]\n[grid]\ndesign = ["rail", "mor"]\nnic = ["cx7", "none"]\n')
    spec = sw.load_spec(path)
    assert [k for _, k in spec.points()] == [
        {"design": "rail", "nic": "cx7"},
        {"design": "rail", "nic": "none"},
        {"design": "mor", "nic": "cx7"},
        {"design": "mor", "nic": "none"},
    ]
    with Engine(workers=1) as engine:
        df = sw.sweep(spec, engine)
    assert df["site"].tolist() == ["superpod-4su"] * 4
    assert df["error"].tolist()[1] == df["error"].tolist()[3] == 'cluster.nic: unknown NIC "none"'
    good = df[df["error"] == ""]
    assert len(good) == 2 and (good["gpus"] == 1024).all()
    # middle-of-rack puts the GPU links on copper: fewer optics, and it is on the front
    rail, mor = good.iloc[0], good.iloc[1]
    assert mor["optics_total"] < rail["optics_total"] and bool(mor["pareto"])
    assert (good["cost_optics_usd"] > 0).all()
    svg = pareto_svg(df, ["design", "nic"], "sweep")
    assert svg.count("<circle") == 2 and "superpod-4su mor cx7" in svg
