"""The placement option ``hall.su_order`` (layout.place.su_order): the placer lays a hall's SUs in its
order, on the shipped 4-SU SuperPOD hall (one row of four SU blocks along x); the loader and the fabric
check refuse what it cannot mean, with the same lines in ``validate`` and ``design``."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest

from layout import design
from layout.errors import InputError
from layout.load import DEFAULT_TEMPLATES_DIR, load_library, site_from_data
from layout.place.su_order import ordered

ROOT = Path(__file__).resolve().parents[2]
CATALOG, TEMPLATES = load_library(DEFAULT_TEMPLATES_DIR)
BASE = tomllib.loads((ROOT / "sites" / "superpod-4su.toml").read_text(encoding="utf-8"))


def _inputs(order: list[str] | None) -> Any:
    data = copy.deepcopy(BASE)
    if order is not None:
        data["building"][0]["hall"][0]["su_order"] = order
    return site_from_data(data, Path("x.toml"), CATALOG, TEMPLATES, DEFAULT_TEMPLATES_DIR)


def _su_x(d: design.Design) -> list[float]:
    """The mean x of each SU's servers' racks, SU 0 first."""
    dev = d.fabric.devices
    srv = (dev["role"] == "server").to_numpy()
    x = d.placement.racks["x_m"].to_numpy()
    su = dev["su"].to_numpy()
    return [round(float(x[d.placement.device_rack[srv & (su == u)]].mean()), 3) for u in range(4)]


def test_the_hall_lays_its_sus_in_the_order_given() -> None:
    plain = _su_x(design.run(_inputs(None)))
    assert plain == sorted(plain)  # SU 0 to 3 from west to east
    rev = _su_x(design.run(_inputs(["p0-u3", "p0-u2", "p0-u1", "p0-u0"])))
    assert rev == plain[::-1]
    # only SU 2 named: it comes first, the others follow in their own order; "p0-u02" is the same SU
    assert _su_x(design.run(_inputs(["p0-u02"]))) == [plain[1], plain[2], plain[0], plain[3]]


def test_ordered_lists_the_named_sus_first_and_keeps_the_rest() -> None:
    assert ordered([3, 4, 5, 6], {6: 0, 4: 1, 9: 2}) == [6, 4, 3, 5]
    assert ordered([3, 4], None) == [3, 4]


def test_an_su_the_cluster_lacks_is_refused_by_validate_and_design_alike() -> None:
    inputs = _inputs(["p0-u1", "p1-u0"])
    for run in (design.check, design.run):
        with pytest.raises(InputError) as e:
            run(inputs)
        assert [str(p) for p in e.value.problems] == [
            'x.toml: building[0].hall[0].su_order[1]: the cluster has no SU "p1-u0" (allowed: p0-u0..p0-u3)'
        ]


def test_an_su_listed_twice_or_no_su_id_is_refused_by_the_loader() -> None:
    with pytest.raises(InputError) as e:
        _inputs(["p0-u1", "p0-u01", "SU3"])
    assert [f"{p.key}: {p.problem}" for p in e.value.problems] == [
        'building[0].hall[0].su_order[2]: must be an SU id pPOD-uSU, got "SU3"'
    ]
    with pytest.raises(InputError) as e:
        _inputs(["p0-u1", "p0-u01"])
    assert [f"{p.key}: {p.problem}" for p in e.value.problems] == [
        'building[0].hall[0].su_order[1]: SU "p0-u01" is already listed earlier in this hall\'s order'
    ]


def test_a_kept_layout_is_not_reused_when_only_the_su_order_changed() -> None:
    from layout.memo import Memo

    cache = Memo()
    design.run(_inputs(None), memo=cache)
    order = ["p0-u3", "p0-u2", "p0-u1", "p0-u0"]
    warm, cold = design.run(_inputs(order), memo=cache), design.run(_inputs(order))
    assert _su_x(warm) == _su_x(cold) == _su_x(design.run(_inputs(None)))[::-1]


def test_the_tui_says_a_hall_lays_its_sus_in_a_new_order() -> None:
    from layout.tui.optimizer import moved_lines

    site = _inputs(None).site
    assert moved_lines(site, {"B1/H1": {"su_order": ["p0-u2", "p0-u0", "p0-u1", "p0-u3"]}}) == [
        ("B1/H1", "4 SUs in a new order, p0-u2 first (was its own order)")
    ]


def test_the_report_shows_an_su_order_by_its_first_ids_and_count() -> None:
    from layout.export.pdf.chapters.optimization import _option_text

    ids = [f"p0-u{i:02d}" for i in range(56)]
    assert _option_text(ids) == "p0-u00, p0-u01, p0-u02, p0-u03, ... (56 SUs)"
    assert _option_text(["p0-u1", "p0-u0"]) == "p0-u1, p0-u0"
    assert _option_text([66.8, 55.0]) == "66.8 55" and _option_text("y") == "y"
