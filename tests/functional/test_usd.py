"""`dclayout design --usd`: the OpenUSD stage, opened by usd-core's ``pxr`` (PyPI, the ``[twin]`` extra):
every rack a prim at the design's position with its attributes, every tray segment, busway and CDU there,
and usd-core's validators (the UsdValidation framework that replaced UsdUtils.ComplianceChecker; the old
checker too where the installed usd-core still has it) report no error."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pxr", reason="usd-core (PyPI, dclayout[twin]) is not installed")


@pytest.fixture(scope="module")
def written(
    design_of: Callable[[str], Any], tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], Any]:
    """``written(stem)``: (design, the path of its STEM.usda)."""
    from layout.export.usd import write_usd
    from layout.scene import scene_of

    done: dict[str, Any] = {}

    def get(stem: str) -> Any:
        if stem not in done:
            design = design_of(stem)
            done[stem] = (
                design,
                write_usd(design, tmp_path_factory.mktemp("usd") / f"{stem}.usda", scene_of(design)),
            )
        return done[stem]

    return get


def validation_errors(path: Path) -> list[str]:
    """What usd-core's checks say is wrong with the stage at ``path``: every registered validator (the
    usdz package ones apply to packages only), and the ComplianceChecker where usd-core still has it."""
    from pxr import Usd, UsdUtils, UsdValidation

    stage = Usd.Stage.Open(str(path))
    validators = [
        v
        for v in UsdValidation.ValidationRegistry().GetOrLoadAllValidators()
        if "UsdzValidators" not in v.GetMetadata().GetKeywords()
    ]
    found = UsdValidation.ValidationContext(validators).Validate(stage)
    errors = [f"{e.GetName()}: {e.GetMessage()}" for e in found]
    checker = getattr(UsdUtils, "ComplianceChecker", None)
    if checker is not None:  # pragma: no cover - usd-core before the UsdValidation framework
        c = checker(arkit=False)
        c.CheckCompliance(str(path))
        errors += list(c.GetErrors()) + list(c.GetFailedChecks())
    return errors


@pytest.mark.parametrize("stem", ["superpod-4su", "gb200-hall"])
def test_usd_cores_checks_pass(stem: str, written: Callable[[str], Any], tmp_path: Path) -> None:
    _, path = written(stem)
    assert validation_errors(path) == []
    # and they do catch a stage that breaks their rules (no units, no up axis, a cube in a cube)
    bad = tmp_path / "bad.usda"
    bad.write_text('#usda 1.0\ndef Xform "A"\n{\ndef Cube "B"\n{\ndef Cube "C"\n{\n}\n}\n}\n')
    assert len(validation_errors(bad)) >= 3


@pytest.mark.parametrize("stem", ["superpod-4su", "gb200-hall"])
def test_every_rack_a_prim_with_the_designs_figures(stem: str, written: Callable[[str], Any]) -> None:
    from pxr import Usd, UsdGeom

    design, path = written(stem)
    stage = Usd.Stage.Open(str(path))
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0 and UsdGeom.GetStageUpAxis(stage) == "Z"
    assert stage.GetDefaultPrim().GetPath() == "/Site"
    racks = design.placement.racks
    # ports: link ends in the rack, counted here from the fabric's links and the devices' racks
    dev_rack = np.asarray(design.placement.device_rack)
    ends = np.zeros(len(racks), np.int64)
    for col in ("a", "b"):
        at = dev_rack[design.fabric.links[col].to_numpy()]
        ends += np.bincount(at[at >= 0], minlength=len(racks))
    ids = design.fabric.devices["device_id"].astype(str).to_numpy()
    area = racks["width_m"].to_numpy(float) * racks["depth_m"].to_numpy(float)
    cache = UsdGeom.BBoxCache(Usd.TimeCode.Default(), [UsdGeom.Tokens.default_])
    found = 0
    for i, r in enumerate(racks.to_dict("records")):
        b, h, row, pos = r["rack_id"].split("/")
        prim = stage.GetPrimAtPath(f"/Site/Building_{b}/Hall_{h}/Racks/{row}/{pos}")
        assert prim.IsValid(), r["rack_id"]
        found += 1

        def attr(name: str, prim: Any = prim) -> Any:
            return prim.GetAttribute(f"dclayout:{name}").Get()

        assert attr("rack_id") == r["rack_id"] and attr("template") == r["template"]
        assert attr("power_kw") == pytest.approx(design.power.rack_kw[i], abs=1e-9)
        assert attr("heat_kw") == attr("power_kw")
        assert attr("weight_kg") == pytest.approx(design.power.rack_floor_kg_m2[i] * area[i], abs=1e-9)
        assert attr("ports") == ends[i]
        assert sorted(attr("devices")) == sorted(ids[dev_rack == i].tolist())
        world = UsdGeom.Xformable(prim).ComputeLocalToWorldTransform(Usd.TimeCode.Default())
        assert tuple(world.ExtractTranslation()) == pytest.approx((r["x_m"], r["y_m"], 0.0), abs=1e-6)
        a = math.radians(r["rotation_deg"])
        assert tuple(world.GetRow3(0))[:2] == pytest.approx((math.cos(a), math.sin(a)), abs=1e-6)
        box = cache.ComputeWorldBound(prim).ComputeAlignedRange()
        quarter = round(r["rotation_deg"]) % 180 == 90
        w, d = (r["depth_m"], r["width_m"]) if quarter else (r["width_m"], r["depth_m"])
        size = box.GetSize()
        assert (size[0], size[1]) == pytest.approx((w, d), abs=1e-5) and 1.5 < size[2] < 2.6
    assert found == len(racks) == sum(1 for p in stage.Traverse() if p.HasAttribute("dclayout:rack_id"))
    print(f"{stem}: pxr read {found} rack prims with the design's attributes")


@pytest.mark.parametrize("stem", ["superpod-4su", "gb200-hall"])
def test_trays_busways_and_cdus(stem: str, written: Callable[[str], Any]) -> None:
    from pxr import Usd

    design, path = written(stem)
    stage = Usd.Stage.Open(str(path))
    prims = list(stage.Traverse())

    def under(name: str) -> list[Any]:
        return [p for p in prims if p.GetParent().GetName() == name and p.GetParent().GetParent().IsValid()]

    trays = under("Trays")
    assert len(trays) == len(design.cabling.trays.edges)
    lengths = sorted(p.GetAttribute("dclayout:length_m").Get() for p in trays)
    assert lengths == pytest.approx(sorted(design.cabling.trays.edges["length_m"].astype(float)))
    assert len(under("Busways")) == len(design.chain.busways)
    cdus = design.liquid.cdus
    assert len(under("CDUs")) == (int(cdus["placed"].astype(bool).sum()) if len(cdus) else 0)
    # the cable plant's fibre cabinets, each at its place with its id and floor run
    cab = design.cabling.plant.cabinets
    fibre = {p.GetAttribute("dclayout:cabinet_id").Get(): p for p in under("FibreCabinets")}
    assert set(fibre) == set(cab["cabinet_id"]) and len(fibre) > 0
    for c in cab.to_dict("records"):
        p = fibre[c["cabinet_id"]]
        at = p.GetAttribute("xformOp:translate").Get()
        assert (at[0], at[1]) == pytest.approx((c["x_m"], c["y_m"]))
        assert p.GetAttribute("dclayout:run_m").Get() == pytest.approx(c["run_m"])
    print(f"{stem}: pxr read {len(trays)} trays, {len(under('Busways'))} busways, {len(under('CDUs'))} CDUs")


def test_same_design_same_bytes(design_of: Callable[[str], Any], tmp_path: Path) -> None:
    from layout.export.usd import write_usd
    from layout.scene import scene_of

    design = design_of("gb200-hall")
    a = write_usd(design, tmp_path / "a.usda", scene_of(design)).read_bytes()
    b = write_usd(design, tmp_path / "b.usda", scene_of(design)).read_bytes()
    assert a == b


def test_prim_names_are_valid() -> None:
    from pxr import Sdf

    from layout.export.usd import prim_name

    for text in ("K07", "7up", "a/b c-d", "", "é"):
        assert Sdf.Path.IsValidIdentifier(prim_name(text)), text


def test_the_cli_writes_it(dclayout: Any, tmp_path: Path) -> None:
    done = dclayout("design", "sites/superpod-4su.toml", "--no-svg", "--usd", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json", "superpod-4su.usda"]


def test_the_readme_example_is_what_pxr_reads(written: Callable[[str], Any]) -> None:
    from pxr import Usd

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    shown = readme.split(".GetAttribute('dclayout:power_kw').Get())\"\n", 1)[1].splitlines()[0]
    _, path = written("gb200-hall")
    stage = Usd.Stage.Open(str(path))  # held: its prims expire with it
    prim = stage.GetPrimAtPath("/Site/Building_B1/Hall_H1/Racks/R081/K01")
    assert shown == str(prim.GetAttribute("dclayout:power_kw").Get())
