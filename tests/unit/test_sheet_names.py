"""The names drawings give buildings and halls: one rule (layout.sheet_names) that the exporters name by
and the loader checks, so no two halls can share a plan file or a DXF layout."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import SMALL_SITE, merge

from layout import sheet_names
from layout.errors import InputError
from layout.export import dxf
from layout.export.svg import write_svgs
from layout.scene import scene_of


def _named(site: dict[str, list[str]]) -> list[tuple[str, str]]:
    return [(what, name) for b, halls in site.items() for _, what, name in sheet_names.names_of(b, halls)]


@pytest.mark.parametrize(
    ("site", "clash"),
    [
        ({"B1": ["H1", "H2"], "B2": ["H1"]}, None),
        ({"B1": ["H1", "h1"]}, ("the plan of hall B1/h1", "the plan of hall B1/H1")),
        ({"B1-H1": ["X"], "B1": ["H1-X"]}, ("the plan of hall B1/H1-X", "the plan of hall B1-H1/X")),
        ({"B1": ["X", "X-PWR"]}, ("the plan of hall B1/X-PWR", "the power sheet of hall B1/X")),
        ({"B1": ["H1"], "B1-H1": ["Y"]}, ("the sheet of building B1-H1", "the plan of hall B1/H1")),
        ({"B1": ["H1"], "MODEL": ["H1"]}, ("the sheet of building MODEL", None)),
    ],
)
def test_a_name_taken_before_ignoring_case_is_a_clash(
    site: dict[str, list[str]], clash: tuple[str, str | None] | None
) -> None:
    named = _named(site)
    found = [(named[i][0], first) for i, first in sheet_names.clashes(named)]
    assert found[:1] == ([clash] if clash else [])


def test_the_power_sheet_of_the_hall_and_the_plan_of_its_namesake_are_one_loader_line(
    make_inputs: Callable[..., Any],
) -> None:
    h1 = SMALL_SITE["building"][0]["hall"][0]
    h2 = merge(h1, {"id": "H1-PWR", "polygon": [[12, 0], [22, 0], [22, 6], [12, 6]]})
    with pytest.raises(InputError) as e:
        make_inputs({"building": {0: {"hall": [h1, h2]}}})
    assert [str(p) for p in e.value.problems] == [
        'small.toml: building[0].hall[1].id: the plan of hall B1/H1-PWR would be named "B1-H1-PWR", as the '
        "power sheet of hall B1/H1 is (drawing and file names ignore case) "
        "(allowed: ids that give each building and hall names of their own, as BUILDING-HALL)"
    ]


def test_every_name_the_exporters_give_is_one_the_rule_checks(
    design_of: Callable[[str], Any], tmp_path: Any
) -> None:
    """The DXF layouts (but the site overview) and the hall SVGs of a multi-building site with power
    sheets are all names of layout.sheet_names, so the loader's check covers every one."""
    design = design_of("seed002-32k")
    scene = scene_of(design)
    site = design.inputs.site
    rule = {name for _, name in _named({b.id: [h.id for h in b.hall] for b in site.building})}
    sheets = [s.name for s in dxf.plan_sheets(scene)]
    assert sheets[0] == "00 SITE" and any(s.endswith("-PWR") for s in sheets)
    assert set(sheets[1:]) <= rule and len(sheets) > 1 + len(site.building)
    svgs = [p.name.removeprefix("S-").removesuffix(".svg") for p in write_svgs(scene, tmp_path, "S")]
    assert set(svgs) - {"site"} <= rule and len(svgs) == 1 + sum(len(b.hall) for b in site.building)
