"""DXF drawings of every shipped site, read back as a CAD program would, and rendered by LibreCAD.

Each site's design comes from the session cache (tests/conftest.py); each drawing is written once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ezdxf
import numpy as np
import pytest

from layout.export import dxf

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.stem for p in (ROOT / "sites").glob("*.toml"))


@pytest.fixture(scope="module")
def drawings(tmp_path_factory: pytest.TempPathFactory, design_of: Callable[[str], Any]) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dxf")
    return {stem: dxf.write_dxf(design_of(stem), out / f"{stem}.dxf") for stem in SHIPPED}


@pytest.fixture(scope="module")
def read_back(drawings: dict[str, Path]) -> Callable[[str], Any]:
    cache: dict[str, Any] = {}

    def get(stem: str) -> Any:
        if stem not in cache:
            cache[stem] = ezdxf.readfile(drawings[stem])
        return cache[stem]

    return get


@pytest.mark.parametrize("stem", SHIPPED)
def test_audit_is_clean_and_every_layer_exists(stem: str, read_back: Callable[[str], Any]) -> None:
    doc = read_back(stem)
    auditor = doc.audit()
    assert not auditor.has_errors, [e.message for e in auditor.errors][:5]
    for ly in dxf.layer_table():
        assert ly.name in doc.layers
    assert doc.header["$INSUNITS"] == 4


@pytest.mark.parametrize("stem", SHIPPED)
def test_inserts_per_block_equal_the_summary_rack_counts(
    stem: str, read_back: Callable[[str], Any], design_of: Callable[[str], Any]
) -> None:
    by_template = design_of(stem).summary()["racks"]["by_template"]
    counts = Counter(
        i.dxf.name for i in read_back(stem).modelspace().query("INSERT") if i.dxf.name.startswith("RACK-")
    )
    assert counts == {dxf.rack_block_name(t): n for t, n in by_template.items()}
    assert sum(counts.values()) > 0


@pytest.mark.parametrize("stem", SHIPPED)
def test_attribs_match_the_designs_racks(
    stem: str, read_back: Callable[[str], Any], design_of: Callable[[str], Any]
) -> None:
    design = design_of(stem)
    racks = design.placement.racks
    per_server = design.inputs.catalog.server[design.inputs.site.cluster.server].gpus
    expected = {
        rid: (tpl, f"{kw:.1f}", str(int(servers) * per_server), row, hall)
        for rid, tpl, kw, servers, row, hall in zip(
            racks["rack_id"], racks["template"], np.asarray(design.power.rack_kw, float), racks["servers"],
            racks["row"], racks["hall"], strict=True,
        )
    }  # fmt: skip
    got = {}
    for ins in read_back(stem).modelspace().query("INSERT"):
        if ins.dxf.name.startswith("RACK-"):
            a = {x.dxf.tag: x.dxf.text for x in ins.attribs}
            got[a["RACK_ID"]] = (a["TEMPLATE"], a["KW"], a["GPUS"], a["ROW"], a["HALL"])
    assert got == expected
    assert sum(int(v[2]) for v in got.values()) == design.summary()["gpus"]  # every GPU is in a rack


@pytest.mark.parametrize("stem", SHIPPED)
def test_one_a1_sheet_per_hall_and_an_overview(
    stem: str,
    read_back: Callable[[str], Any],
    inputs_of: Callable[[str], Any],
    design_of: Callable[[str], Any],
) -> None:
    site = inputs_of(stem).site
    doc = read_back(stem)
    halls = [f"{b.id}-{h.id}" for b in site.building for h in b.hall]
    buildings = [b.id for b in site.building] if len(site.building) > 1 else []
    racks = design_of(stem).summary()["halls"]
    power = [f"{h}-PWR" for h in halls if racks[h.replace("-", "/", 1)]["racks"]]  # per hall with racks
    sld = [f"{p[:-4]}-SLD" for p in power]  # and its single-line diagram
    assert sorted(doc.layouts.names_in_taborder()[1:]) == sorted(
        ["00 SITE", *halls, *buildings, *power, *sld]
    )
    for name in halls:
        (vp,) = [v for v in doc.paperspace(name).viewports() if v.dxf.id > 1]
        assert round(vp.dxf.view_height / vp.dxf.height, 6) in dxf.STANDARD_SCALES


def test_the_same_design_writes_the_same_bytes(
    drawings: dict[str, Path], design_of: Callable[[str], Any], tmp_path: Path
) -> None:
    for stem in ("superpod-4su", "gb200-hall"):
        again = dxf.write_dxf(design_of(stem), tmp_path / f"{stem}.dxf")
        assert again.read_bytes() == drawings[stem].read_bytes()


def test_campus_drawing_stays_small(drawings: dict[str, Path]) -> None:
    size_mb = drawings["campus-100k"].stat().st_size / 1e6
    assert size_mb < 30.0, size_mb


LIBRECAD = shutil.which("librecad")


@pytest.mark.skipif(LIBRECAD is None, reason="librecad is not installed (apt-get install librecad)")
@pytest.mark.parametrize("stem", SHIPPED)
def test_librecad_renders_a_non_empty_pdf(stem: str, drawings: dict[str, Path], tmp_path: Path) -> None:
    from pypdf import PdfReader

    src = tmp_path / f"{stem}.dxf"
    shutil.copyfile(drawings[stem], src)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    res = subprocess.run(
        [str(LIBRECAD), "dxf2pdf", "-a", "-p", "841x594", str(src)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    pdf = tmp_path / f"{stem}.pdf"
    assert pdf.exists(), res.stdout + res.stderr
    reader = PdfReader(pdf)
    assert len(reader.pages) == 1
    content = reader.pages[0].get_contents()
    assert content is not None and len(content.get_data()) > 20_000  # thousands of drawn paths


def test_bytes_do_not_depend_on_the_process(tmp_path: Path) -> None:
    """Two fresh interpreters with different hash seeds write the same file (no set-order leaks)."""
    code = (
        "import sys; from layout.load import load_site; from layout import design; from layout.export import dxf; "
        "dxf.write_dxf(design.run(load_site(sys.argv[1])), sys.argv[2])"
    )
    outs = []
    for seed in ("0", "4"):  # 0 and 4 ordered ezdxf's CLASSES section differently before it was sorted
        out = tmp_path / f"gb200-{seed}.dxf"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", code, str(ROOT / "sites" / "gb200-hall.toml"), str(out)],
                       cwd=ROOT, env=env, check=True, timeout=300)  # fmt: skip
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]


def test_cdu_headers_run_to_the_rows_each_cdu_serves(tmp_path: Path) -> None:
    """Issue 27: CDUs were plain boxes. Each working CDU now has a supply and a return header to each
    row it serves, ending at that row's nearer end (0.15 m either side), read back from the DXF; the
    notes give each CDU's flow."""
    import math

    import ezdxf

    from layout import design
    from layout.export.dxf import write_scene
    from layout.load import load_site
    from layout.scene import scene_of

    d = design.run(load_site(Path(__file__).resolve().parents[2] / "sites" / "gb200-hall.toml"))
    doc = ezdxf.readfile(str(write_scene(scene_of(d), tmp_path / "g.dxf")))
    cdus = d.liquid.cdus
    work = cdus[cdus["placed"].astype(bool) & ~cdus["standby"].astype(bool)]
    served = sum(len(str(r).split()) for r in work["rows"])
    supply = doc.modelspace().query('LWPOLYLINE[layer=="M-HYDR-SUPP"]')
    ret = doc.modelspace().query('LWPOLYLINE[layer=="M-HYDR-RETN"]')
    assert served > 0 and len(supply) == len(ret) == served
    rows = d.placement.rows
    ends = [(x * 1000, y * 1000) for x, y in zip(rows["x0_m"], rows["y0_m"], strict=True)] + [
        (x * 1000, y * 1000) for x, y in zip(rows["x1_m"], rows["y1_m"], strict=True)
    ]
    for line in [*supply, *ret]:
        end = line.get_points("xy")[-1]
        assert min(math.hypot(end[0] - ex, end[1] - ey) for ex, ey in ends) == pytest.approx(150, abs=1)
    notes = " ".join(t.dxf.text for t in doc.query("TEXT MTEXT") if hasattr(t.dxf, "text"))
    first = work.iloc[0]
    assert f"{float(first['load_flow_l_per_s']):,.1f} L/s" in notes
