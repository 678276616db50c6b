"""The placement options that gather racks around a point (layout.place.anchors): ``building.mdf_at`` and
``hall.spine_at``, on the shipped 4-SU SuperPOD hall (44 m x 26 m, rows along x), checked against the
racks' own coordinates; and the clean lines a point outside its building or hall gets."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from layout import design
from layout.errors import InputError
from layout.load import DEFAULT_TEMPLATES_DIR, load_library, site_from_data

ROOT = Path(__file__).resolve().parents[2]
CATALOG, TEMPLATES = load_library(DEFAULT_TEMPLATES_DIR)
BASE = tomllib.loads((ROOT / "sites" / "superpod-4su.toml").read_text(encoding="utf-8"))


def _inputs(building: dict[str, Any] | None = None, hall: dict[str, Any] | None = None) -> Any:
    data = copy.deepcopy(BASE)
    data["building"][0].update(building or {})
    data["building"][0]["hall"][0].update(hall or {})
    return site_from_data(data, Path("x.toml"), CATALOG, TEMPLATES, DEFAULT_TEMPLATES_DIR)


def _l1(racks: Any, point: tuple[float, float]) -> np.ndarray:
    return np.abs(racks["x_m"].to_numpy() - point[0]) + np.abs(racks["y_m"].to_numpy() - point[1])


def test_spine_at_puts_the_spines_nearest_the_point_and_the_sus_around_them() -> None:
    point = (40.0, 8.0)  # the hall's lower right, far from the default middle spine row
    base = design.run(_inputs()).placement.racks
    moved = design.run(_inputs(hall={"spine_at": list(point)})).placement.racks
    assert len(moved) == len(base) and moved["template"].value_counts().equals(
        base["template"].value_counts()
    )
    spine = moved[moved["kind"] == "spine"]
    others = moved[moved["kind"].isin(["gpu", "network"])]
    assert len(spine) > 0
    # the spine racks stand in the row cell nearest the point (a 9.6 m stretch between cross aisles,
    # filled from its start: x 35.4..45 on row line y 8.4), and much nearer it than they were
    assert spine["y_m"].eq(8.4).all() and spine["x_m"].between(35.4, 45.0).all()
    assert _l1(spine, point).max() < 5.0
    assert _l1(spine, point).mean() < _l1(base[base["kind"] == "spine"], point).mean() - 5.0
    # the SU racks gather around the point too
    assert _l1(others, point).mean() < _l1(base[base["kind"].isin(["gpu", "network"])], point).mean()


def test_mdf_at_moves_the_mdf_racks_to_the_point() -> None:
    point = (44.0, 15.0)  # the far end of the hall from the entry at [0, 15]
    base = design.run(_inputs()).placement.racks
    moved = design.run(_inputs(building={"mdf_at": list(point)})).placement.racks
    core_b, core_m = base[base["kind"] == "core"], moved[moved["kind"] == "core"]
    assert len(core_m) == len(core_b) > 0
    assert core_m["x_m"].min() > 30.0 and core_b["x_m"].max() < 15.0  # entry side -> far side
    assert _l1(core_m, point).max() < 10.0


def test_an_anchor_outside_its_building_or_hall_is_refused() -> None:
    with pytest.raises(InputError) as e:
        _inputs(building={"mdf_at": [60.0, 15.0]}, hall={"spine_at": [47.0, 15.0]})
    lines = sorted(f"{p.key}: {p.problem} (allowed: {p.allowed})" for p in e.value.problems)
    assert lines == [
        "building[0].hall[0].spine_at: spine_at (47, 15) is outside hall B1/H1 (allowed: a point inside "
        "the hall, x 2..46, y 2..28)",
        "building[0].mdf_at: mdf_at (60, 15) is outside building B1's footprint (allowed: a point inside "
        "the footprint, x 0..48, y 0..30)",
    ]
