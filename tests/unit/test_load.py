"""layout.load: the shipped catalog and templates, the geometric tolerances of the cross checks
(hand-computed edge cases on the shipped sites), partial validation and file order."""

from __future__ import annotations

import copy
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from layout.load import (
    DEFAULT_TEMPLATES_DIR,
    DUCT_END_TOLERANCE_M,
    ENTRY_TOLERANCE_M,
    FABRIC_SLOT_DEVICES,
    InputError,
    Problem,
    check_site,
    in_file_order,
    load_catalog,
    load_library,
    load_site,
    load_templates,
    parse_toml,
    site_from_data,
)

ROOT = Path(__file__).resolve().parents[2]
SITES = sorted((ROOT / "sites").glob("*.toml"))
CATALOG, TEMPLATES = load_library(DEFAULT_TEMPLATES_DIR)


def _site(name: str) -> dict[str, Any]:
    return copy.deepcopy(tomllib.loads((ROOT / "sites" / name).read_text(encoding="utf-8")))


def _problems(data: dict[str, Any]) -> list[str]:
    """'key: problem' of every problem of a site given as data (empty if it loads)."""
    try:
        site_from_data(data, Path("x.toml"), CATALOG, TEMPLATES, DEFAULT_TEMPLATES_DIR)
    except InputError as e:
        assert all(p.file == "x.toml" for p in e.problems)
        return [f"{p.key}: {p.problem}" for p in e.problems]
    return []


# ------------------------------------------------------------------------------- shipped library
def test_every_shipped_template_and_the_catalog_load() -> None:
    catalog = load_catalog()
    templates = load_templates(catalog=catalog)
    files = sorted(p.stem for p in DEFAULT_TEMPLATES_DIR.glob("*.toml") if p.name != "catalog.toml")
    assert sorted(templates) == files  # each template's id is its file name
    assert {"dgx-h100", "gb200-nvl72"} <= set(catalog.server)
    assert {"qm9700", "sn5600", "tomahawk5", "q3400"} <= set(catalog.switch)


def test_shipped_templates_are_the_packages_data_and_the_top_level_folder() -> None:
    """One set of files: the package's rack_templates (what a wheel ships) is the folder people edit."""
    assert (ROOT / "rack_templates").resolve() == DEFAULT_TEMPLATES_DIR
    assert (ROOT / "layout" / "rack_templates").resolve() == DEFAULT_TEMPLATES_DIR


@pytest.mark.parametrize(
    ("site_at", "templates_at", "expected"),
    [
        ("site.toml", ["rack_templates"], "rack_templates"),  # in the site's own folder
        ("sites/site.toml", ["rack_templates"], "rack_templates"),  # a project: sites/ beside rack_templates/
        ("sites/site.toml", ["rack_templates", "sites/rack_templates"], "sites/rack_templates"),  # own first
        ("sites/site.toml", ["sites/rack_templates/empty"], None),  # a folder without catalog.toml: shipped
        ("a/b/site.toml", [], None),
    ],
)
def test_a_sites_own_rack_templates_win_over_the_shipped_ones(
    tmp_path: Path, site_at: str, templates_at: list[str], expected: str | None
) -> None:
    site = tmp_path / site_at
    site.parent.mkdir(parents=True, exist_ok=True)
    site.write_bytes((ROOT / "sites/superpod-4su.toml").read_bytes())
    for folder in templates_at:
        if folder.endswith("empty"):
            (tmp_path / folder).mkdir(parents=True)
        else:
            shutil.copytree(DEFAULT_TEMPLATES_DIR, tmp_path / folder)
    want = (tmp_path / expected).resolve() if expected else DEFAULT_TEMPLATES_DIR
    assert load_site(site).templates_dir == want


def test_every_slot_device_is_a_catalog_server_leaf_or_switch() -> None:
    for tid, tpl in TEMPLATES.items():
        for slot in tpl.slot:
            assert slot.device in CATALOG.server or slot.device in FABRIC_SLOT_DEVICES, (tid, slot.device)
        if tpl.kind == "gpu":
            assert tpl.server_id(set(CATALOG.server)) is not None, tid


def test_shipped_servers_fit_their_racks_and_pdus() -> None:
    # the checks load_templates makes, recomputed by hand: 4 x DGX H100 = 40.8 kW <= 57.6 kW PDU
    x4 = TEMPLATES["dgx-h100-x4"]
    h100 = CATALOG.server["dgx-h100"]
    assert 4 * h100.power_kw == pytest.approx(40.8) and x4.pdu_kw >= 40.8
    assert max(x4.server_slots({"dgx-h100"})) + h100.height_ru - 1 <= x4.height_ru


def test_without_a_catalog_templates_get_only_field_checks() -> None:
    folder = ROOT / "tests/data/bad_templates"
    with pytest.raises(InputError) as e:
        load_templates(folder)
    keys = {(Path(p.file).name, p.key) for p in e.value.problems}
    assert ("kind-unknown.toml", "kind") in keys
    assert ("unknown-device.toml", "slot[0].device") not in keys  # needs the catalog
    with pytest.raises(InputError) as e2:
        load_library(folder)
    assert ("unknown-device.toml", "slot[0].device") in {
        (Path(p.file).name, p.key) for p in e2.value.problems
    }


@pytest.mark.parametrize("path", SITES, ids=[p.stem for p in SITES])
def test_shipped_sites_pass_every_check(path: Path) -> None:
    inputs = load_site(path)
    assert check_site(inputs.site, inputs.catalog, inputs.templates, str(path)) == []


def test_missing_file_names_the_file() -> None:
    with pytest.raises(InputError) as e:
        load_site(ROOT / "sites/no-such-site.toml")
    assert [str(p) for p in e.value.problems] == [
        f"{ROOT / 'sites/no-such-site.toml'}: (file): file not found (allowed: a path to an existing .toml file)"
    ]


def test_syntax_error_at_end_of_file_gives_last_line() -> None:
    with pytest.raises(InputError) as e:
        parse_toml("a = 1\nb = [1, 2\n", "f.toml")
    assert (
        str(e.value.problems[0])
        == "f.toml: line 3, column 1 (end of file): TOML syntax error: unclosed array"
    )


# ------------------------------------------------------------------------- geometry tolerances
def test_entry_within_one_metre_of_the_wall_is_accepted() -> None:
    # superpod B1 footprint x 0..48, y 0..30; entry [0, 15] on the west wall
    data = _site("superpod-4su.toml")
    data["building"][0]["entry"] = [ENTRY_TOLERANCE_M, 15]  # exactly 1 m inside
    assert _problems(data) == []
    data["building"][0]["entry"] = [-1.5, 15]  # 1.5 m outside
    assert _problems(data) == [
        "building[0].entry: entry at (-1.5, 15) is 1.5 m from building B1's outer wall"
    ]


def test_duct_ends_within_five_metres_of_the_entries() -> None:
    # campus duct[0] B1 -> B2: entries [0, 55] and [300, 55]
    data = _site("campus-100k.toml")
    path = data["duct"][0]["path"]
    path[-1] = [300, 55 + DUCT_END_TOLERANCE_M]
    path[-2] = [290, 55 + DUCT_END_TOLERANCE_M]
    assert _problems(data) == []
    path[0] = [-3, 59]  # 5 m from [0, 55] (3-4-5 triangle): accepted
    assert _problems(data) == []
    path[0] = [-4.2, 59.4]  # sqrt(4.2^2 + 4.4^2) = 6.08 m
    assert _problems(data) == [
        "duct[0].path[0]: path starts at (-4.2, 59.4), 6.083 m from building B1's entry at (0, 55)"
    ]


def test_row_that_exactly_fits_is_accepted_one_more_rack_is_not() -> None:
    # superpod hall x 2..46; a row along x from x = 4 with 600 mm racks: (46 - 4) / 0.6 = 70 racks
    data = _site("superpod-4su.toml")
    data["row"] = [{"hall": "B1/H1", "origin": [4, 4], "axis": "x", "racks": 70, "template": "dgx-h100-x4"}]
    assert _problems(data) == []
    data["row"][0]["racks"] = 71
    assert _problems(data) == [
        "row[0].racks: 71 racks of dgx-h100-x4 (42.6 m along x) run out of hall B1/H1 at (46.6, 4)"
    ]
    # along y from y = 4: (28 - 4) / 0.6 = 40 racks fit
    data["row"][0].update(axis="y", racks=41)
    assert _problems(data) == [
        "row[0].racks: 41 racks of dgx-h100-x4 (24.6 m along y) run out of hall B1/H1 at (4, 28.6)"
    ]


def test_row_length_allowed_counts_racks_up_to_the_wall_of_an_l_shaped_hall() -> None:
    data = _site("superpod-4su.toml")
    hall = data["building"][0]["hall"][0]
    hall["polygon"] = [
        [2, 2],
        [46, 2],
        [46, 10],
        [20, 10],
        [20, 28],
        [2, 28],
    ]  # L: the arm at y > 10 ends at x 20
    hall["columns"] = []
    hall["keepouts"] = []
    data["row"] = [{"hall": "B1/H1", "origin": [5, 20], "axis": "x", "racks": 30, "template": "dgx-h100-x2"}]
    with pytest.raises(InputError) as e:
        site_from_data(data, Path("x.toml"), CATALOG, TEMPLATES, DEFAULT_TEMPLATES_DIR)
    (p,) = e.value.problems
    assert p.allowed == "at most 25 racks from this origin"  # (20 - 5) / 0.6 = 25


def test_tray_line_on_the_hall_wall_is_inside() -> None:
    data = _site("superpod-4su.toml")
    data["tray_add"] = [{"hall": "B1/H1", "line": [[2, 2], [46, 2]]}]  # along the south wall
    data["tray_block"] = [{"hall": "B1/H1", "line": [[10, 2], [10, 28]]}]
    assert _problems(data) == []
    data["tray_add"][0]["line"] = [[1, 2], [46, 2]]
    assert _problems(data) == ["tray_add[0].line: point (1, 2) is outside hall B1/H1"]


def test_column_centred_on_the_wall_is_accepted() -> None:
    data = _site("superpod-4su.toml")
    data["building"][0]["hall"][0]["columns"] = [{"at": [2, 15]}]
    assert _problems(data) == []


def test_keepout_partly_outside_and_hall_wholly_outside() -> None:
    data = _site("superpod-4su.toml")
    hall = data["building"][0]["hall"][0]
    hall["keepouts"] = [{"polygon": [[40, 22], [50, 22], [50, 28], [40, 28]]}]
    assert _problems(data) == ["building[0].hall[0].keepouts[0].polygon: keep-out reaches outside hall B1/H1"]
    data = _site("superpod-4su.toml")
    data["building"][0]["hall"][0]["polygon"] = [[100, 2], [146, 2], [146, 28], [100, 28]]
    data["building"][0]["hall"][0]["columns"] = []
    data["building"][0]["hall"][0]["keepouts"] = []
    assert _problems(data) == [
        "building[0].hall[0].polygon: hall B1/H1 lies entirely outside building B1's footprint"
    ]


def test_polygon_forms() -> None:
    data = _site("superpod-4su.toml")
    fp = data["building"][0]
    fp["footprint"] = [[0, 0], [48, 0], [48, 30], [0, 30], [0, 0]]  # closed ring: accepted
    assert _problems(data) == []
    fp["footprint"] = [[0, 0], [48, 0], [48, 30], [24, 0], [0, 30]]  # outline touches itself at (24, 0)
    assert _problems(data) == ["building[0].footprint: the outline touches itself at (24, 0)"]
    fp["footprint"] = [[0, 0], [24, 0], [48, 0]]
    assert _problems(data) == ["building[0].footprint: the corners lie on one line, the polygon has no area"]


def test_errors_on_every_item_of_a_list_are_merged() -> None:
    data = _site("superpod-4su.toml")
    data["building"][0]["footprint"] = [0, 0, 48, 30]
    assert _problems(data) == ["building[0].footprint[0]: must be a pair [x, y], got 0 (and 3 more like it)"]


# ------------------------------------------------------------------- partial checks and order
def test_cross_checks_still_run_beside_field_errors_without_false_alarms() -> None:
    data = _site("superpod-4su.toml")
    data["building"][0]["hall"][0]["max_rack_kw"] = -5  # field error in the hall
    data["row"] = [{"hall": "B1/H1", "origin": [60, 4], "racks": 2, "template": "dgx-h100-x4"}]
    data["cluster"]["switch"] = "qm9999"
    assert (
        _problems(data)
        == [
            "building[0].hall[0].max_rack_kw: must be > 0, got -5",
            'cluster.switch: unknown switch "qm9999"',
            "row[0].origin: row origin (60, 4) is outside hall B1/H1",  # the hall is still known, its polygon checked
        ]
    )


def test_problems_sort_by_position_in_the_file() -> None:
    data = tomllib.loads("b = 1\n[a]\nx = 1\n[[c]]\ny = 2\n[[c]]\ny = 3\n")
    problems = [Problem("f", k, "p") for k in ("c[1].y", "(file)", "a.z", "c[0]", "b", "a.x")]
    assert [p.key for p in in_file_order(problems, data)] == ["(file)", "b", "a.z", "a.x", "c[0]", "c[1].y"]


def test_table_versus_array_of_tables_mix_ups_say_which_brackets() -> None:
    data = tomllib.loads(
        (ROOT / "sites/superpod-4su.toml")
        .read_text(encoding="utf-8")
        .replace("[[building.hall]]", "[building.hall]")
        .replace("[cluster]", "[[cluster]]")
    )
    data["row"] = [{"hall": "B1/H1", "origin": [4, 4], "racks": 2, "template": "dgx-h100-x4"}]
    with pytest.raises(InputError) as e:
        site_from_data(data, Path("x.toml"), CATALOG, TEMPLATES, DEFAULT_TEMPLATES_DIR)
    got = [(p.key, p.allowed) for p in e.value.problems]
    assert got == [
        ("building[0].hall", "a [[building.hall]] header, with double brackets, before each entry"),
        ("cluster", "a single [cluster] header, with single brackets"),
    ]  # and no "unknown hall" for the row: hall B1/H1 is in the file, only refused


def test_a_single_building_table_gives_one_problem_not_unknown_halls() -> None:
    text = (
        (ROOT / "sites/superpod-4su.toml").read_text(encoding="utf-8").replace("[[building]]", "[building]")
    )
    data = tomllib.loads(text)
    data["row"] = [{"hall": "B1/H1", "origin": [4, 4], "racks": 2, "template": "dgx-h100-x4"}]
    assert _problems(data) == [
        "building: must be a list of tables, got a table {id, footprint, entry, it_mw, hall}"
    ]


def test_the_same_error_on_every_item_of_a_list_is_one_line() -> None:
    """20,000 columns with a size below the limit were 20,000 lines; one line says it, with the count."""
    import tomllib

    data = tomllib.loads((ROOT / "sites" / "superpod-4su.toml").read_text())
    hall = data["building"][0]["hall"][0]
    hall["columns"] = [{"at": [3.0 + i * 0.1, 3.0], "size_m": [0.01, 0.01]} for i in range(500)]
    assert _problems(data) == [
        "building[0].hall[0].columns[0].size_m[0]: must be >= 0.05, got 0.01 (and 999 more like it)"
    ]
