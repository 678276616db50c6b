"""layout.export.write, the one writer the CLI and the TUI use: the files it writes read back as the
scene says (SVG parsed as XML, DXF read by ezdxf), and the TUI's export writes the same bytes."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import ezdxf
import pytest

from layout import design as design_mod
from layout import export
from layout.export import dxf
from layout.load import load_site
from layout.scene import scene_of
from layout.scene.palette import COLOURS
from layout.tui.session import compute
from layout.tui.session import export as tui_export

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "sites" / "superpod-4su.toml"
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, list[Path]]:
    d = design_mod.run(load_site(SITE))
    out = tmp_path_factory.mktemp("write")
    return d, export.write(d, ["dxf", "svg", "summary"], out)


def test_files_come_in_the_order_of_kinds(written: tuple[object, list[Path]]) -> None:
    _, paths = written
    names = [p.name for p in paths]
    assert names == ["summary.json", "superpod-4su-B1-H1.svg", "superpod-4su-site.svg", "superpod-4su.dxf"]


def test_unknown_kind_is_refused(tmp_path: Path, written: tuple[object, list[Path]]) -> None:
    d, _ = written
    with pytest.raises(ValueError, match="pfd"):
        export.write(d, ["pfd"], tmp_path)  # type: ignore[arg-type]
    assert not list(tmp_path.iterdir())


def test_svg_racks_carry_the_scenes_fills(written: tuple[object, list[Path]]) -> None:
    d, paths = written
    scene = scene_of(d)  # type: ignore[arg-type]
    fills = dict(zip(scene.racks["rack_id"], scene.racks["fill"], strict=True))
    root = ET.parse(next(p for p in paths if p.suffix == ".svg")).getroot()
    drawn = {}
    cabinets = {}
    for rect in root.iter(f"{SVG}rect"):
        title = rect.find(f"{SVG}title")
        if title is not None and title.text:
            into = cabinets if rect.get("data-kind") == "fibre-cabinet" else drawn
            into[title.text.split()[0]] = rect.get("fill")
    assert drawn == fills
    assert len(set(drawn.values())) >= 2  # GPU racks and network racks differ
    # every fibre cabinet of the plant, in the palette's fibre-cabinet colour
    assert set(cabinets) == set(d.cabling.plant.cabinets["cabinet_id"]) and len(cabinets) > 0  # type: ignore[attr-defined]
    assert set(cabinets.values()) == {COLOURS["fibre_cabinet"].hex}


def test_dxf_inserts_sit_where_the_scene_puts_the_racks(written: tuple[object, list[Path]]) -> None:
    d, paths = written
    scene = scene_of(d)  # type: ignore[arg-type]
    doc = ezdxf.readfile(next(p for p in paths if p.suffix == ".dxf"))
    at = {}
    for ins in doc.modelspace().query("INSERT"):
        if ins.dxf.name.startswith("RACK-"):
            at[ins.get_attrib_text("RACK_ID")] = (
                round(ins.dxf.insert.x, 3),
                round(ins.dxf.insert.y, 3),
                ins.dxf.layer,
                ins.get_attrib_text("KW"),
            )
    r = scene.racks
    want = {
        rid: (round(x * 1000.0, 3), round(y * 1000.0, 3), dxf.RACK_LAYER[k], f"{kw:.1f}")
        for rid, x, y, k, kw in zip(r["rack_id"], r["x_m"], r["y_m"], r["kind"], r["power_kw"], strict=True)
    }
    assert at == want
    assert not doc.audit().has_errors


def test_the_tui_export_writes_what_the_cli_writes(
    tmp_path: Path, written: tuple[object, list[Path]]
) -> None:
    _, paths = written
    inputs = load_site(SITE)
    result = compute(inputs, SITE.read_text())
    (path,) = tui_export(result, "dxf", tmp_path)
    assert path.read_bytes() == next(p for p in paths if p.suffix == ".dxf").read_bytes()
