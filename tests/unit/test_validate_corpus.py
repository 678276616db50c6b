"""The corpus of bad input files: `dclayout validate FILE` prints exactly the expected line(s) on stderr
and exits 2. Each file in tests/data/bad/ is a small complete site with one problem (named in its top
comment), except multiple-problems.toml; tests/data/bad_templates/ is a rack template folder whose
catalog and templates each carry problems of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from layout.cli import main
from layout.model.base import TEXT_ALLOWED

ROOT = Path(__file__).resolve().parents[2]
BAD = Path("tests/data/bad")
BAD_TEMPLATES = Path("tests/data/bad_templates")
TEXT = f"(allowed: {TEXT_ALLOWED})"

# file stem -> the one stderr line after "FILE: "
EXPECTED = {
    "absurd-utility-power": "site.utility_mw: must be <= 5000, got 1000000 (allowed: > 0 and <= 5000 MW)",
    "bad-date-format": 'site.date: must be a date written YYYY-MM-DD, got "29.11.2026" (allowed: e.g. 2026-11-29)',
    "bad-hall-id": 'building[0].hall[1].id: must be an id of 1 to 16 letters, digits, "_" or "-", got "Hall 2" '
    '(allowed: e.g. "B1" or "H2")',
    "bad-row-axis": 'building[0].hall[0].row_axis: unknown value "north" (allowed: "x", "y")',
    "column-not-a-point": "building[0].hall[0].columns[0].at: must be a pair [x, y], got [15] "
    "(allowed: two numbers, e.g. [12.5, 30])",
    "column-outside-hall": "building[0].hall[0].columns[0].at: column at (40, 20) is outside hall B1/H1 "
    "(allowed: a point inside the hall, x 2..29, y 2..38)",
    "duct-end-far-from-entry": "duct[0].path[5]: path ends at (100, 35), 15 m from building B2's entry at (100, 20) "
    "(allowed: a point within 5 m of it, e.g. (100, 20))",
    "duct-unknown-building": 'duct[0].to: unknown building "B3" (allowed: B1, B2)',
    "duplicate-hall-id": 'building[0].hall[1].id: duplicate hall id "H1", building[0].hall[0] already uses it '
    "(allowed: an id no other hall of building B1 uses)",
    "entry-far-from-footprint": "building[0].entry: entry at (4, 20) is 4 m from building B1's outer wall "
    "(allowed: a point within 1 m of the footprint outline, e.g. (0, 20))",
    "gpus-fractional": "cluster.gpus: must be a whole number, got 256.5 (allowed: > 0 and <= 2000000)",
    "gpus-not-whole-servers": "cluster.gpus: 252 GPUs is not a whole number of dgx-h100 servers of 8 GPUs "
    "(allowed: a multiple of 8, e.g. 248 or 256)",
    "hall-open-polygon": "building[0].hall[0].polygon: open polygon: only 2 corners "
    "(allowed: at least 3 corners [[x, y], ...] enclosing an area)",
    "hall-outside-building": "building[0].hall[1].polygon: hall B1/H2 reaches 180 m² outside building B1's footprint "
    "(allowed: a polygon within the footprint, x 0..60, y 0..40)",
    "hall-self-intersecting": "building[0].hall[0].polygon: edges cross each other at (15.5, 20) "
    "(allowed: corners listed in order around the outline, edges that do not cross)",
    "halls-overlap": "building[0].hall[1].polygon: hall B1/H2 overlaps hall B1/H1 by 144 m² "
    "(allowed: halls of one building that do not overlap)",
    "impossible-date": 'site.date: must be a day of the calendar, got "2026-02-30" (allowed: a real date YYYY-MM-DD)',
    "infinite-utility-power": "site.utility_mw: must be a finite number, got inf (allowed: > 0 and <= 5000 MW)",
    "keepout-outside-hall": "building[0].hall[0].keepouts[0].polygon: keep-out lies outside hall B1/H1 "
    "(allowed: a polygon within the hall, x 2..29, y 2..38)",
    "missing-required-key": 'cluster.server: required key is missing (allowed: add server = "...", '
    "one of: dgx-b200, dgx-b300, dgx-h100, gb200-nvl72, gb300-nvl72, hgx-b200, hgx-b300, hgx-h100)",
    "negative-rack-power": "building[0].hall[0].max_rack_kw: must be > 0, got -5 (allowed: > 0 and <= 300 kW)",
    "no-halls": "building[1].hall: needs at least 1 entry, got 0 (allowed: 1 or more [[building.hall]] tables)",
    "pod-larger-than-cluster": "cluster.pod_gpus: a pod of 512 GPUs is larger than the cluster's 256 GPUs "
    "(allowed: 0 for one pod, or a multiple of 8 up to 256)",
    "pue-below-one": "site.pue: must be >= 1, got 0.9 (allowed: >= 1 and <= 3)",
    "rack-not-gpu-template": 'cluster.rack: "net-leaf" is a network rack, not a GPU rack '
    "(allowed: dgx-b200-x2, dgx-h100-x2, dgx-h100-x4, gb200-nvl72, gb300-nvl72, hgx-h100-x2, hgx-h100-x4)",
    "row-outside-hall": "row[0].origin: row origin (40, 4) is outside hall B1/H1 "
    "(allowed: a point inside the hall, x 2..29, y 2..38)",
    "row-too-long": "row[0].racks: 60 racks of dgx-h100-x4 (36 m along x) run out of hall B1/H1 at (40, 4) "
    "(allowed: at most 41 racks from this origin)",
    "row-bad-front": 'row[0].front: unknown value "north" (allowed: "+", "-")',
    "row-templates-count": "row[0].templates: 3 templates for 4 racks "
    "(allowed: one template per rack: racks = 3, or 4 templates)",
    "row-template-and-templates": "row[0].template: a row with templates (one per rack) takes no template "
    "(allowed: either template (every rack) or templates (one per rack))",
    "row-templates-unknown": 'row[0].templates[1]: unknown rack template "net-lef" '
    "(allowed: dgx-b200-x2, dgx-h100-x2, dgx-h100-x4, gb200-nvl72, gb300-nvl72, hgx-h100-x2, hgx-h100-x4, mgmt-rack, net-core, "
    "net-leaf, net-spine, storage-rack)",
    "row-no-template": 'row[0].template: required key is missing (allowed: add template = "..." (every rack) or '
    'templates = ["...", ...] (one per rack), of: dgx-b200-x2, dgx-h100-x2, dgx-h100-x4, gb200-nvl72, gb300-nvl72, '
    "hgx-h100-x2, hgx-h100-x4, mgmt-rack, net-core, net-leaf, net-spine, storage-rack)",
    "row-unknown-hall": 'row[0].hall: unknown hall "B1/H9" (allowed: B1/H1, B1/H2, B2/H1)',
    "row-unknown-template": 'row[0].template: unknown rack template "dgx-h100-x5" '
    "(allowed: dgx-b200-x2, dgx-h100-x2, dgx-h100-x4, gb200-nvl72, gb300-nvl72, hgx-h100-x2, hgx-h100-x4, mgmt-rack, net-core, "
    "net-leaf, net-spine, storage-rack)",
    "template-wrong-server": 'cluster.rack: template "gb200-nvl72" holds gb200-nvl72 servers, '
    'not cluster.server = "dgx-h100" (allowed: dgx-h100-x2, dgx-h100-x4)',
    "toml-syntax-error": 'line 5, column 8: TOML syntax error: invalid value (allowed: a quoted "text", a number, '
    'true/false, a [list] or an { inline = "table" })',
    "tray-line-outside-hall": "tray_block[0].line: point (20, 45) is outside hall B1/H1 "
    "(allowed: a line inside the hall, x 2..29, y 2..38)",
    "unknown-format-version": "format: unknown value 2 (allowed: 1)",
    "unknown-key": 'building[0].hall[0].max_rack_kW: unknown key, did you mean "max_rack_kw"? '
    "(allowed: id, polygon, cooling, max_rack_kw, floor_load_kg_m2, floor, point_load_kg, tile_m, tile_load_kg, it_mw, cooling_mw, air_cooling_mw, power, row_axis, cold_aisle_m, hot_aisle_m, "
    "wall_clearance_m, cross_aisle_m, max_row_racks, fibre_positions, columns, keepouts, tray, spine_at, su_order)",
    "unknown-nic": 'cluster.nic: unknown NIC "cx9" (allowed: bf3, cedar7, cx7, cx8, cx8-2x400)',
    "unknown-rack-template": 'cluster.rack: unknown GPU rack template "dgx-h100-x8" '
    "(allowed: dgx-b200-x2, dgx-h100-x2, dgx-h100-x4, gb200-nvl72, gb300-nvl72, hgx-h100-x2, hgx-h100-x4)",
    "unknown-server": 'cluster.server: unknown server "dgx-a100" (allowed: dgx-b200, dgx-b300, dgx-h100, gb200-nvl72, gb300-nvl72, hgx-b200, hgx-b300, hgx-h100)',
    "unknown-switch": 'cluster.switch: unknown switch "qm9790" (allowed: q3400, q3450-ld, qm9700, sn2201, sn2700, sn5600, sn5610, tomahawk5)',
    "wrong-type": 'building[0].hall[0].max_rack_kw: must be a number, got "forty-five" (allowed: > 0 and <= 300 kW)',
}

# the families tests/data/make_bad.py writes (variations of tests/data/small-site.toml)
GENERATED = {
    "type-pue-boolean": "site.pue: must be a number, got true (allowed: >= 1 and <= 3)",
    "type-gpus-text": 'cluster.gpus: must be a whole number, got "256" (allowed: > 0 and <= 2000000)',
    "type-storage-number": "cluster.networks.storage: must be true or false, got 1 (allowed: true or false)",
    "type-name-number": 'site.name: must be text in quotes, got 42 (allowed: "...")',
    "type-racks-float": "row[0].racks: must be a whole number, got 8.0 (allowed: >= 1 and <= 200)",
    "text-name-newline": f"site.name: must be plain text, got a newline (U+000A) at character 6 {TEXT}",
    "text-name-nul": f"site.name: must be plain text, got a NUL (U+0000) at character 6 {TEXT}",
    "text-name-fffe": f"site.name: must be plain text, got a noncharacter (U+FFFE) at character 6 {TEXT}",
    "text-name-bidi": f"site.name: must be plain text, got right-to-left override (U+202E) at character 6 {TEXT}",
    "text-revision-markup": f'site.revision: must be plain text, got "<" (U+003C) at character 1 {TEXT}',
    "text-reason-tab": "building[0].hall[0].keepouts[0].reason: must be plain text, got a tab (U+0009) "
    f"at character 11 {TEXT}",
    "coord-beyond-campus": "building[1].footprint[1][0]: coordinate 2,000,000 m is beyond any campus "
    "(allowed: -100000 to 100000 m, 100 km either side of the origin)",
    "hall-too-large": "building[1].hall[0].polygon: hall B2/H1 of 4,000,000 m² is larger than the tool designs "
    "(allowed: a hall of at most 1,000,000 m² (1 km²); split it into several halls)",
    "buildings-same-footprint": "building[1].footprint: building B2's footprint is the same as building B1's "
    "(allowed: buildings that do not overlap)",
    "buildings-overlap": "building[1].footprint: building B2's footprint overlaps building B1's by 400 m² "
    "(allowed: buildings that do not overlap)",
    "duct-to-itself": 'duct[0].to: a duct from building "B1" to itself (allowed: two different buildings)',
    "rows-identical": "row[1].origin: racks of this row overlap those of row[0] in hall B1/H1 "
    "(allowed: rows whose racks do not overlap)",
    "rows-overlap": "row[1].origin: racks of this row overlap those of row[0] in hall B1/H1 "
    "(allowed: rows whose racks do not overlap)",
    "backend-1gbe-switch": "cluster.switch: sn2201 ports (1 Gb/s) are slower than the dgx-h100 backend ports "
    "(400 Gb/s) (allowed: q3400, q3450-ld, qm9700, sn5600, sn5610, tomahawk5)",
    "tiers-too-few": "cluster.tiers: 1 tier(s) cannot hold 256 GPUs per pod on qm9700 (radix 64) non-blocking; "
    "2 needed (allowed: >= 2)",
    "su-order-unknown-su": 'building[1].hall[0].su_order[1]: the cluster has no SU "p0-u7" (allowed: p0-u0)',
    "su-order-twice": 'building[1].hall[0].su_order[0]: SU "p0-u00" is already listed in B1/H2\'s order '
    "(allowed: each SU once in the whole site)",
    "su-order-not-an-id": 'building[1].hall[0].su_order[0]: must be an SU id pPOD-uSU, got "SU3" '
    '(allowed: e.g. "p0-u03", pod 0\'s SU 3)',
    "sheet-name-case": 'building[0].hall[1].id: the plan of hall B1/h1 would be named "B1-h1", as the plan of '
    "hall B1/H1 is (drawing and file names ignore case) "
    "(allowed: ids that give each building and hall names of their own, as BUILDING-HALL)",
    "sheet-name-dash": 'building[1].id: the sheet of building B1-H2 would be named "B1-H2", as the plan of '
    "hall B1/H2 is (drawing and file names ignore case) "
    "(allowed: ids that give each building and hall names of their own, as BUILDING-HALL)",
    "sheet-name-model": 'building[1].id: the sheet of building model would be named "model", the DXF model '
    "space's name (drawing and file names ignore case) "
    "(allowed: ids that give each building and hall names of their own, as BUILDING-HALL)",
}
EXPECTED |= GENERATED

# multiple-problems.toml: every problem, one line each, in file order ([cluster] precedes the buildings
# in that file; pydantic field errors and cross checks are interleaved).
MULTIPLE = [
    "site.pue: must be >= 1, got 0.9 (allowed: >= 1 and <= 3)",
    'cluster.gpus: must be a whole number, got "many" (allowed: > 0 and <= 2000000)',
    'cluster.switch: unknown switch "qm9790" (allowed: q3400, q3450-ld, qm9700, sn2201, sn2700, sn5600, sn5610, tomahawk5)',
    "building[0].entry: entry at (4, 20) is 4 m from building B1's outer wall "
    "(allowed: a point within 1 m of the footprint outline, e.g. (0, 20))",
    EXPECTED["unknown-key"],
    EXPECTED["column-outside-hall"],
    EXPECTED["halls-overlap"],
    "building[0].hall[1].max_rack_kw: must be > 0, got -5 (allowed: > 0 and <= 300 kW)",
    'duct[0].to: unknown building "B3" (allowed: B1)',
    'row[0].hall: unknown hall "B1/H9" (allowed: B1/H1, B1/H2)',
]

# `dclayout validate sites/superpod-4su.toml --templates tests/data/bad_templates`: (file name, line)
TEMPLATE_PROBLEMS = [
    (
        "catalog.toml",
        "media.dac.stock_lengths_m: stock lengths must rise from shortest to longest without repeats, "
        "got [0.5, 1, 3, 2] (allowed: e.g. [0.5, 1, 2, 3])",
    ),
    (
        "catalog.toml",
        'media.mmf.optical: class "mmf" is an optical medium, got optical = false (allowed: optical = true)',
    ),
    (
        "kind-unknown.toml",
        'kind: unknown value "compute" '
        '(allowed: "gpu", "network", "spine", "core", "storage", "management", "cdu")',
    ),
    (
        "no-server.toml",
        "slot: a gpu rack template holds no server (allowed: a [[slot]] with device = one of dgx-h100)",
    ),
    (
        "pdu-too-small.toml",
        "pdu_kw: the servers draw 40.8 kW, more than pdu_kw = 30 (allowed: >= 40.8 kW, or fewer servers)",
    ),
    (
        "ru-above-top.toml",
        "slot[0].ru[3]: dgx-h100 (8 U) at U45 reaches U52, above the rack's 48 U "
        "(allowed: U1 to U41 for dgx-h100)",
    ),
    ("ru-out-of-range.toml", "slot[0].ru[0]: must be >= 1, got 0 (allowed: >= 1 and <= 60)"),
    (
        "ru-overlap.toml",
        "slot[0].ru[1]: dgx-h100 at U8-U15 overlaps dgx-h100 at U3-U10 "
        "(allowed: RU positions where devices do not overlap)",
    ),
    (
        "same-id-as-gpu-ok.toml",
        'id: duplicate template id "gpu-ok", gpu-ok.toml already uses it '
        "(allowed: an id no other template uses, ignoring case)",
    ),
    (
        "unknown-device.toml",
        'slot[0].device: unknown device "dgx-a100", did you mean "dgx-h100"? '
        '(allowed: a catalog server (dgx-h100), "leaf" or "switch")',
    ),
    (
        "unknown-key.toml",
        'slots: unknown key, did you mean "slot"? '
        "(allowed: id, name, kind, width_mm, depth_mm, height_ru, cooling, weight_kg_empty, feet, pdu_kw, pdu_positions_per_side, slot)",
    ),
]


def _validate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["validate", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture(autouse=True)
def _in_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_bad_site_gives_exact_message(stem: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = BAD / f"{stem}.toml"
    rc, out, err = _validate(capsys, str(path))
    assert rc == 2
    assert out == ""
    assert err == f"{path}: {EXPECTED[stem]}\n"


def test_corpus_is_complete_and_documented() -> None:
    files = sorted(p.stem for p in (ROOT / BAD).glob("*.toml"))
    assert sorted([*EXPECTED, "multiple-problems"]) == files  # every bad file has its expected message
    assert len(EXPECTED) >= 20
    for stem in files:
        first = (ROOT / BAD / f"{stem}.toml").read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# BAD: ") and len(first) > 20, stem


def test_every_problem_of_a_file_is_reported_in_file_order(capsys: pytest.CaptureFixture[str]) -> None:
    path = BAD / "multiple-problems.toml"
    rc, out, err = _validate(capsys, str(path))
    assert rc == 2
    assert out == ""
    assert err.splitlines() == [f"{path}: {line}" for line in MULTIPLE]


def test_several_files_report_each_and_fail_if_any_is_bad(capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = "sites/superpod-4su.toml", str(BAD / "unknown-nic.toml")
    rc, out, err = _validate(capsys, good, bad)
    assert rc == 2
    assert out.startswith(f"{good}: ok")
    assert err == f"{bad}: {EXPECTED['unknown-nic']}\n"


def test_bad_templates_and_catalog_give_exact_messages(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _validate(capsys, "sites/superpod-4su.toml", "--templates", str(BAD_TEMPLATES))
    assert rc == 2
    assert out == ""
    assert err.splitlines() == [f"{BAD_TEMPLATES / name}: {line}" for name, line in TEMPLATE_PROBLEMS]


def test_bad_template_folder_is_documented() -> None:
    files = sorted(p.name for p in (ROOT / BAD_TEMPLATES).glob("*.toml"))
    reported = {name for name, _ in TEMPLATE_PROBLEMS}
    assert set(files) - reported == {"gpu-ok.toml"}  # the one good template the others vary
    for name in files:
        assert (ROOT / BAD_TEMPLATES / name).read_text(encoding="utf-8").startswith("# BAD: "), name


def test_generated_families_are_what_the_generator_writes() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_bad", ROOT / "tests/data/make_bad.py")
    assert spec is not None and spec.loader is not None
    make_bad = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_bad)
    files = make_bad.generate()
    assert sorted(files) == sorted(f"{stem}.toml" for stem in GENERATED)
    for name, text in files.items():
        assert (ROOT / BAD / name).read_text(encoding="utf-8") == text, name


def test_the_base_of_the_families_is_a_good_site(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _validate(capsys, "tests/data/small-site.toml")
    assert (rc, err) == (0, "")
    assert out.startswith("tests/data/small-site.toml: ok")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_design_refuses_every_bad_file_with_the_lines_validate_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """validate and design agree over the whole corpus: the same stderr, exit 2, nothing written."""
    files = sorted((ROOT / BAD).glob("*.toml"))
    for path in files:
        rel = str(path.relative_to(ROOT))
        v = _run(capsys, "validate", rel)
        d = _run(capsys, "design", rel, "--out", str(tmp_path / path.stem))
        assert v[0] == d[0] == 2, rel
        assert v[2] == d[2] and v[2].startswith(f"{rel}: "), rel
        assert d[1] == "" and not (tmp_path / path.stem).exists(), rel
    assert len(files) >= 60
