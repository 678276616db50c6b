"""The single-line tree (layout/power/sld.py) on a hand-built schedule: blocks in the schedule's order,
each with its own switchboard and busways, tap-offs counted and their largest load taken per busway."""

from __future__ import annotations

import pandas as pd

from layout.power.sld import sld_trees


def _row(part: str, pid: str, hall: str, fed: str, load: float) -> dict[str, object]:
    return {"part": part, "part_id": pid, "hall": hall, "fed_from": fed, "load_kw": load}


def test_tree_of_a_hand_built_schedule() -> None:
    rows = [
        _row("UPS block", "H2/UPS-A1", "H2", "MV", 900.0),
        _row("UPS block", "H1/UPS-B1", "H1", "MV", 500.0),
        _row("UPS block", "H1/UPS-A1", "H1", "MV", 500.0),
        _row("switchboard", "H1/SWB-A1", "H1", "H1/UPS-A1", 500.0),
        _row("switchboard", "H1/SWB-B1", "H1", "H1/UPS-B1", 500.0),
        _row("switchboard", "H2/SWB-A1", "H2", "H2/UPS-A1", 900.0),
        _row("busway", "H1/R01/A", "H1", "H1/SWB-A1", 300.0),
        _row("busway", "H1/R02/A", "H1", "H1/SWB-A1", 200.0),
        _row("busway", "H1/R01/B", "H1", "H1/SWB-B1", 500.0),
        _row("tap-off", "H1/R01/K1/TAP-A", "H1", "H1/R01/A", 40.0),
        _row("tap-off", "H1/R01/K2/TAP-A", "H1", "H1/R01/A", 60.0),
        _row("tap-off", "H1/R01/K3/TAP-A", "H1", "H1/R01/A", 50.0),
        _row("tap-off", "H1/R01/K1/TAP-B", "H1", "H1/R01/B", 40.0),
    ]
    trees = sld_trees(pd.DataFrame(rows))
    assert list(trees) == ["H1", "H2"]  # halls sorted
    h1 = trees["H1"]
    assert [b.ups["part_id"] for b in h1] == ["H1/UPS-B1", "H1/UPS-A1"]  # the schedule's order
    assert [b.switchboard["part_id"] for b in h1] == ["H1/SWB-B1", "H1/SWB-A1"]
    a = h1[1]
    assert [(r["part_id"], r["taps"], r["tap_max_kw"]) for r in a.busways] == [
        ("H1/R01/A", 3, 60.0),
        ("H1/R02/A", 0, 0.0),
    ]
    assert [(r["taps"], r["tap_max_kw"]) for r in h1[0].busways] == [(1, 40.0)]
    assert trees["H2"][0].busways == ()


def test_no_schedule_no_tree() -> None:
    assert sld_trees(pd.DataFrame(columns=["part", "part_id", "hall", "fed_from", "load_kw"])) == {}
