"""The whole design on every shipped site, the 100k campus against seed 000, and `dclayout design`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import numpy as np
import pandas as pd
import pytest
import shapely
from shapely.geometry import Polygon, box

from layout import place
from layout.cli import main
from layout.load import Inputs

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.stem for p in (ROOT / "sites").glob("*.toml"))
SVG = "{http://www.w3.org/2000/svg}"


# ----------------------------------------------------------------------------- every shipped site
@pytest.mark.parametrize("stem", SHIPPED)
def test_no_rack_overlaps_anything(design_of: Callable[[str], Any], stem: str) -> None:
    d = design_of(stem)
    racks = d.placement.racks
    polys = place.rack_polygons(racks)
    obstacles = []
    for b in d.inputs.site.building:
        for h in b.hall:
            obstacles += [box(c.at[0] - c.size_m[0] / 2, c.at[1] - c.size_m[1] / 2, c.at[0] + c.size_m[0] / 2,
                              c.at[1] + c.size_m[1] / 2) for c in h.columns]  # fmt: skip
            obstacles += [Polygon(k.polygon) for k in h.keepouts]
    shapes = np.concatenate([polys, np.asarray(obstacles, dtype=object)])
    tree = shapely.STRtree(shapes)
    a, b = tree.query(polys, predicate="intersects")
    clash = [
        (i, j) for i, j in zip(a, b, strict=True) if i != j and polys[i].intersection(shapes[j]).area > 1e-9
    ]
    assert clash == []


@pytest.mark.parametrize("stem", SHIPPED)
def test_every_rack_inside_its_hall_minus_clearance(design_of: Callable[[str], Any], stem: str) -> None:
    d = design_of(stem)
    racks = d.placement.racks
    polys = place.rack_polygons(racks)
    for b, h in d.inputs.site.halls():
        inner = Polygon(h.polygon).buffer(-h.wall_clearance_m + 1e-6, join_style="mitre")
        m = (racks["hall"] == f"{b.id}/{h.id}").to_numpy()
        assert shapely.contains(inner, polys[m]).all()
        # racks stand in their hall's polygon (not in another hall's)
        assert shapely.contains(Polygon(h.polygon), polys[m]).all()


@pytest.mark.parametrize("stem", SHIPPED)
def test_every_device_placed_once_in_free_ru(design_of: Callable[[str], Any], stem: str) -> None:
    d = design_of(stem)
    p, fab = d.placement, d.fabric
    assert len(p.device_rack) == len(fab.devices) and (p.device_rack >= 0).all() and (p.device_ru >= 1).all()
    # no two devices share rack units: each occupies [ru, ru + height - 1] within the rack's height
    cat = d.inputs.catalog
    height = np.array(
        [(cat.server.get(m) or cat.switch.get(m) or cat.node[m]).height_ru for m in fab.devices["model"]]
    )
    df = pd.DataFrame({"rack": p.device_rack, "lo": p.device_ru, "hi": p.device_ru + height - 1}).sort_values(
        ["rack", "lo"]
    )
    same = df["rack"].to_numpy()[1:] == df["rack"].to_numpy()[:-1]
    assert (df["lo"].to_numpy()[1:][same] > df["hi"].to_numpy()[:-1][same]).all()
    tpl_height = np.array([d.inputs.templates[t].height_ru for t in p.racks["template"]])
    assert (df["hi"].to_numpy() <= tpl_height[df["rack"].to_numpy()]).all()
    # racks hold what their kind says
    role = fab.devices["role"].to_numpy()
    kind = p.racks["kind"].to_numpy()[p.device_rack]
    assert set(kind[role == "server"]) == {"gpu"}
    assert set(kind[role == "spine"]) <= {"spine"}
    assert set(kind[np.isin(role, ["core", "super"])]) <= {"core"}
    assert set(kind[role == "storage_node"]) <= {"storage"} and set(kind[role == "cpu_node"]) <= {
        "management"
    }
    assert p.racks_missing == 0
    servers = np.bincount(p.device_rack[role == "server"], minlength=len(p.racks))
    assert servers.tolist() == p.racks["servers"].tolist()


@pytest.mark.parametrize("stem", SHIPPED)
def test_it_power_is_the_sum_of_the_devices(design_of: Callable[[str], Any], stem: str) -> None:
    d = design_of(stem)
    pw = d.power
    assert pw.it_mw * 1000 == pytest.approx(pw.device_kw.sum())
    assert pw.rack_kw.sum() == pytest.approx(pw.device_kw.sum())
    assert pw.buildings["it_kw"].sum() == pytest.approx(pw.device_kw.sum())
    s = d.summary()
    assert s["power"]["it_mw"] == pytest.approx(pw.device_kw.sum() / 1000, abs=1e-4)
    assert s["power"]["max_rack_kw"] == pytest.approx(pw.rack_kw.max(), abs=1e-3)
    assert s["racks"]["total"] == len(d.placement.racks) == sum(s["racks"]["by_template"].values())


@pytest.mark.parametrize("stem", SHIPPED)
def test_ids_and_rows_are_consistent(design_of: Callable[[str], Any], stem: str) -> None:
    p = design_of(stem).placement
    r = p.racks
    assert r["rack_id"].is_unique and r["rack_id"].str.fullmatch(r"B\w+/H\w+/R\d{2,}/K\d{2,}").all()
    assert (r["rack_id"].str.rsplit("/K", n=1).str[0] == r["row"]).all()
    assert (r["rack_id"].str.rsplit("/K", n=1).str[1].astype(int) == r["pos"]).all()
    assert (r["row"].str.rsplit("/", n=1).str[0] == r["hall"]).all()
    assert set(r["row"]) == set(p.rows["row"])
    # positions 1..n along each row, rows and racks sorted by id within a hall
    assert (r.groupby("row")["pos"].apply(lambda s: list(s) == list(range(1, len(s) + 1)))).all()
    # the row line runs from the first rack's end to the last rack's end
    for row in p.rows.to_dict("records"):
        m = r[r["row"] == row["row"]]
        a = "x" if row["axis"] == "x" else "y"
        assert (m[f"{a}_m"] - m["width_m"] / 2).min() == pytest.approx(row[f"{a}0_m"])
        assert (m[f"{a}_m"] + m["width_m"] / 2).max() == pytest.approx(row[f"{a}1_m"])


# --------------------------------------------------------------------------------- the 100k campus
def test_campus_100k_against_seed_000(design_of: Callable[[str], Any]) -> None:
    d = design_of("campus-100k")
    p, fab, pw = d.placement, d.fabric, d.power
    racks = p.racks
    srv = (fab.devices["role"] == "server").to_numpy()
    gpus = int(racks["servers"].sum()) * d.inputs.catalog.server["hgx-h100"].gpus
    assert gpus == 98_304
    # four buildings, one pod each
    bld = racks["building"].to_numpy()[p.device_rack[srv]]
    pod = fab.devices["pod"].to_numpy()[srv]
    pairs = set(zip(pod.tolist(), bld.tolist(), strict=True))
    assert len(pairs) == 4 and len({b for _, b in pairs}) == 4
    # IT within a few % of 98,304 x 1,275 W x 1.1 = 137.9 MW (seed 000)
    seed_mw = 98_304 * 1.275 * 1.1 / 1000
    assert pw.it_mw == pytest.approx(seed_mw, rel=0.05)
    # energy and cost follow PUE and $/kWh
    site = d.inputs.site.site
    assert pw.facility_mw == pytest.approx(pw.it_mw * site.pue)
    assert pw.annual_twh == pytest.approx(pw.facility_mw * 8760 / 1e6)
    assert pw.annual_cost_usd == pytest.approx(pw.annual_twh * 1e9 * site.electricity_usd_per_kwh)
    # seed 000's 150 MW x 8,760 h x 1.21 = 1.59 TWh, $124 M: scaled to our IT
    assert pw.annual_twh == pytest.approx(1.59 * pw.it_mw / 150, rel=0.01)
    assert pw.annual_cost_usd == pytest.approx(123.9e6 * pw.it_mw / 150, rel=0.01)
    # 4 servers per rack at ~41 kW in 50 kW halls; spine rows and an MDF per building
    assert p.racks_by_template()["hgx-h100-x4"] == 3072
    assert 40 < pw.max_rack_kw <= 50
    for b in ("B1", "B2", "B3", "B4"):
        kinds = set(racks.loc[racks["building"] == b, "kind"])
        assert {"gpu", "network", "spine", "core"} <= kinds
    assert d.placement.violations == () and d.power.violations == ()


def test_campus_top_tier_in_one_building(design_of: Callable[[str], Any]) -> None:
    d = design_of("campus-100k")
    fab, p = d.fabric, d.placement
    top = (fab.devices["role"] == "super").to_numpy()
    assert top.any()
    assert set(p.racks["building"].to_numpy()[p.device_rack[top]]) == {"B1"}
    assert set(p.racks["kind"].to_numpy()[p.device_rack[top]]) == {"core"}


def test_spines_near_their_leaves(design_of: Callable[[str], Any]) -> None:
    # spines stand in the hall of the leaves they are wired to: the campus pods span both halls of their
    # building (24 MW per hall), and the placer moves to the next hall at a spine-group boundary
    d = design_of("campus-100k")
    fab, p = d.fabric, d.placement
    links = fab.links[fab.links["kind"] == "leaf_spine"]
    hall = p.racks["hall"].to_numpy()
    assert (hall[p.device_rack[links["a"].to_numpy()]] == hall[p.device_rack[links["b"].to_numpy()]]).all()
    assert len(set(p.racks.loc[p.racks["kind"] == "gpu", "hall"])) == 8  # the pods use both halls


# ---------------------------------------------------------------------------------- seed 002 density
def test_seed002_two_servers_per_rack_at_30kw(design_of: Callable[[str], Any]) -> None:
    d = design_of("seed002-32k")
    assert d.placement.racks_by_template()["dgx-h100-x2"] == 2000
    assert set(d.placement.racks.loc[d.placement.racks["kind"] == "gpu", "servers"]) == {2}
    assert d.power.max_rack_kw <= 30


def test_seed002_four_servers_per_rack_at_60kw(inputs_of: Callable[[str], Inputs]) -> None:
    from layout import design

    seed = inputs_of("seed002-32k")
    blds = [
        b.model_copy(update={"hall": [h.model_copy(update={"max_rack_kw": 60.0}) for h in b.hall]})
        for b in seed.site.building
    ]
    d = design.run(
        Inputs(seed.site.model_copy(update={"building": blds}), seed.catalog, seed.templates, seed.path)
    )
    assert d.placement.racks_by_template()["dgx-h100-x4"] == 1000
    assert set(d.placement.racks.loc[d.placement.racks["kind"] == "gpu", "servers"]) == {4}
    assert 40 < d.power.max_rack_kw <= 60


# ------------------------------------------------------------------------------------ the command
def test_design_command_writes_summary_and_svgs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(["design", str(ROOT / "sites" / "superpod-4su.toml"), "--out", str(out)]) == 0
    text = (out / "summary.json").read_text()
    s = json.loads(text)
    assert text == json.dumps(s, indent=2, sort_keys=True) + "\n"
    assert s["site"] == "SuperPOD 4-SU H100 hall"
    assert (s["gpus"], s["servers"]) == (1024, 128)
    assert s["switches"]["leaf"] == 32 and s["switches"]["spine"] == 16
    assert s["racks"]["by_template"]["dgx-h100-x4"] == 32
    for key in ("media", "cable_length_m", "power", "reliability", "cost_usd", "violations", "links"):
        assert key in s
    assert set(s["power"]) >= {"it_mw", "facility_mw", "annual_twh", "annual_cost_usd", "max_rack_kw"}
    svg = out / "superpod-4su-B1-H1.svg"
    root = ElementTree.parse(svg).getroot()
    titles = [t.text or "" for t in root.iter(f"{SVG}title")]
    racks = [t for t in titles if not t.endswith(" fibre cabinet")]
    assert len(racks) == s["racks"]["total"] and all(re.match(r"B1/H1/R\d+/K\d+ ", t) for t in racks)
    # and every fibre cabinet, named by its location: B1/H1/R25/K01/FC01
    cabinets = [t for t in titles if t.endswith(" fibre cabinet")]
    assert len(cabinets) == s["plant"]["fibre_cabinets"] > 0
    assert all(re.match(r"B1/H1/R\d+/K\d+/FC\d\d ", t) for t in cabinets)
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert "N" in texts and any(t.endswith(" m") for t in texts) and "Legend" in texts
    assert sorted(p.name for p in out.iterdir()) == [
        "summary.json",
        "superpod-4su-B1-H1.svg",
        "superpod-4su-site.svg",
    ]
    printed = capsys.readouterr().out
    assert "1,024 GPUs" in printed and "no violations" in printed
    # the same input gives the same bytes
    again = tmp_path / "again"
    assert main(["design", str(ROOT / "sites" / "superpod-4su.toml"), "--out", str(again)]) == 0
    for f in out.iterdir():
        assert (again / f.name).read_bytes() == f.read_bytes()


def write_site(tmp_path: Path, old: str, new: str) -> Path:
    text = (ROOT / "sites" / "superpod-4su.toml").read_text()
    assert old in text
    (tmp_path / "sites").mkdir(exist_ok=True)
    path = tmp_path / "sites" / "tight.toml"
    path.write_text(text.replace(old, new))
    return path


def test_strict_exits_1_on_violations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = write_site(tmp_path, "it_mw = 1.5", "it_mw = 1.0")
    assert main(["design", str(site), "--out", str(tmp_path / "o"), "--no-svg"]) == 0
    assert main(["design", str(site), "--out", str(tmp_path / "o"), "--strict", "--no-svg"]) == 1
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert [v["kind"] for v in s["violations"]] == ["hall_mw"]
    assert "hall_mw at B1/H1" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["summary.json"]


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = write_site(tmp_path, 'switch = "qm9700"', 'switch = "qm9999"')
    assert main(["design", str(site), "--out", str(tmp_path / "o")]) == 2
    assert "cluster.switch" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_export_failure_exits_3_and_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    assert main(["design", str(ROOT / "sites" / "superpod-4su.toml"), "--out", str(blocker / "out")]) == 3
    assert "export failed" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-folder"]


def test_management_switches_stand_with_what_they_manage(design_of: Callable[[str], Any]) -> None:
    d = design_of("campus-100k")
    fab, p = d.fabric, d.placement
    role = fab.devices["role"].to_numpy()
    links = fab.links[fab.links["kind"] == "oob"]
    a, b = links["a"].to_numpy(), links["b"].to_numpy()
    kind = p.racks["kind"].to_numpy()
    # the out-of-band aggregation the management switches uplink to stands in the MDF
    agg = np.flatnonzero(role == "oob_agg")
    assert len(agg) and set(kind[p.device_rack[agg]]) == {"core"}
    managed = pd.DataFrame({"sw": b, "role": role[a], "rack": p.device_rack[a]})
    for sw in np.unique(b):
        m = managed[managed["sw"] == sw]
        here = kind[p.device_rack[sw]]
        roles = set(m["role"])
        if "server" in roles:  # with the servers' SU: in its network rack
            assert here == "network" and set(kind[m["rack"]]) >= {"gpu"}
        elif set(kind[m["rack"]]) <= {"core", "storage", "management"}:  # all MDF gear: in the MDF
            assert here == "core"
        else:  # leaves of several SUs, spines, cores: beside the spines, in the middle of the hall
            assert here in ("network", "spine")


class ManualTimer:
    """A threading.Timer stand-in that fires only when the test says the time has passed."""

    def __init__(self, interval_s: float, function: Callable[[], None]):
        self.interval_s, self.function = interval_s, function
        self.started = self.cancelled = False
        self.daemon = False

    def start(self) -> None:
        self.started = True

    def cancel(self) -> None:
        self.cancelled = True

    def fire(self) -> None:  # the interval has passed
        if self.started and not self.cancelled:
            self.function()


def test_progress_shows_only_on_long_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No clock: the progress display's timer is one the test fires, during the run (a long run) or not
    at all (a short one); so the test says the same however loaded the machine is."""
    import layout.commands.design as cmd
    from layout import design

    site = str(ROOT / "sites" / "superpod-4su.toml")
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich treats stderr as a terminal
    timers: list[ManualTimer] = []
    real_progress = cmd._Progress

    def progress(stages: tuple[str, ...]) -> Any:
        shown = real_progress(stages, timer=ManualTimer)
        timers.append(shown.timer)
        return shown

    monkeypatch.setattr(cmd, "_Progress", progress)
    assert main(["design", site, "--out", str(tmp_path / "a"), "--no-svg"]) == 0
    (short,) = timers
    assert (short.interval_s, short.started, short.cancelled) == (cmd.SHOW_PROGRESS_AFTER_S, True, True)
    assert capsys.readouterr().err == ""  # it ended before the threshold: no progress display
    short.fire()  # a timer that fires once the run has ended shows nothing
    assert capsys.readouterr().err == ""

    real = design.run

    def long(inputs: Inputs, progress: Any = None) -> Any:
        timers[-1].fire()  # the threshold passes while the design runs
        return real(inputs, progress)

    monkeypatch.setattr(design, "run", long)
    assert main(["design", site, "--out", str(tmp_path / "b"), "--no-svg"]) == 0
    err = capsys.readouterr().err
    assert len(timers) == 2 and all(stage in err for stage in design.STAGES)


def test_superpod_one_row_per_su_with_its_leaves_in_the_middle(design_of: Callable[[str], Any]) -> None:
    d = design_of("superpod-4su")
    fab, p = d.fabric, d.placement
    dev = fab.devices
    racks = p.racks
    rows_of_su = []
    for su in range(4):
        srv = ((dev["role"] == "server") & (dev["su"] == su)).to_numpy()
        leaf = ((dev["role"] == "leaf") & (dev["su"] == su)).to_numpy()
        rows = set(racks["row"].to_numpy()[p.device_rack[srv]]) | set(
            racks["row"].to_numpy()[p.device_rack[leaf]]
        )
        assert len(rows) == 1  # the SU's 8 GPU racks and its leaf rack share a row
        (row,) = rows
        rows_of_su.append(row)
        in_row = racks[racks["row"] == row]
        assert in_row["kind"].tolist() == ["gpu"] * 4 + ["network"] * 2 + ["gpu"] * 4
        assert set(racks["pos"].to_numpy()[p.device_rack[leaf]]) == {5}
    # consecutive SUs in consecutive rows
    assert rows_of_su == ["B1/H1/R25", "B1/H1/R27", "B1/H1/R29", "B1/H1/R31"]
