"""layout.cable.ports: every link end on a port and a cage, one medium per cage; hand-checked small cases and
the invariants on every shipped site (no port used twice, no cage with two media, no switch over its
cages, unique cable ids), and the ports table read back against the links table."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from layout import design
from layout.cable import ports
from layout.cable.cages import ASSEMBLIES, FORMS, GROUPS, links_per_cage
from layout.cable.media import MediaTable
from layout.export import tables
from layout.load import DEFAULT_TEMPLATES_DIR, InputError, load_catalog, load_site

ROOT = Path(__file__).resolve().parents[2]
SITES = sorted((ROOT / "sites").glob("*.toml"))
CAT = load_catalog()
MT = MediaTable.of(CAT)


def _assign(
    devices: list[tuple[str, str, str]],
    links: list[tuple[int, int, str, float]],
    nic: str = "cx7",
    speed_gbps: int = 400,
):
    """Small case: devices (id, role, model); links (a, b, kind, length_m), every device in rack 0."""
    dev = pd.DataFrame(devices, columns=["device_id", "role", "model"])
    lk = pd.DataFrame(
        [(a, b, k, speed_gbps) for a, b, k, _ in links], columns=["a", "b", "kind", "speed_gbps"]
    )
    length = np.array([x[3] for x in links], dtype=float)
    code = MT.pick(length, speed_gbps)
    zeros = np.zeros(len(links), dtype=np.int64)
    pm = ports.assign(dev, lk, code, length, zeros, zeros, MT, CAT, nic, np.array(["B1/H1/R01/K01"]))
    return pm, code


def _media(pm: ports.PortMap) -> list[str]:
    return [MT.ids[c] for c in pm.code]


def test_a_twin_cage_with_a_3_m_and_a_40_m_link_carries_two_multimode_links() -> None:
    pm, before = _assign(
        [("leaf", "leaf", "qm9700"), ("s0", "server", "dgx-h100"), ("s1", "server", "dgx-h100")],
        [(1, 0, "gpu_leaf", 3.0), (2, 0, "gpu_leaf", 40.0)],
    )
    assert [MT.ids[c] for c in before] == ["dac", "mmf"]  # per link, the 3 m one would be copper
    assert _media(pm) == ["mmf", "mmf"]
    assert pm.changed == 1
    n = 2
    assert pm.cage[n:].tolist() == [0, 0] and pm.port[n:].tolist() in ([0, 1], [1, 0])  # one leaf cage
    assert pm.port[:n].tolist() == [0, 0]  # each server's first backend cage
    assert [ASSEMBLIES[a] for a in pm.assembly] == ["fibre", "fibre"]
    assert pm.stock_basis_m.tolist() == [3.0, 40.0]  # fibre: every link its own patch cord


def test_two_copper_links_in_one_switch_cage_to_two_servers_are_one_breakout_cable() -> None:
    pm, _ = _assign(
        [("leaf", "leaf", "qm9700"), ("s0", "server", "dgx-h100"), ("s1", "server", "dgx-h100")],
        [(1, 0, "gpu_leaf", 1.0), (2, 0, "gpu_leaf", 2.5)],
    )
    assert _media(pm) == ["dac", "dac"]
    assert [ASSEMBLIES[a] for a in pm.assembly] == ["breakout", "breakout"]
    assert pm.stock_basis_m.tolist() == [2.5, 2.5]  # one cable: the longer leg's length
    assert pm.changed == 0


def test_two_parallel_copper_links_between_two_switches_are_one_twin_cable_and_a_lone_one_straight() -> None:
    pm, _ = _assign(
        [("leaf", "leaf", "qm9700"), ("spine", "spine", "qm9700")],
        [(0, 1, "leaf_spine", 2.0), (0, 1, "leaf_spine", 2.0), (0, 1, "leaf_spine", 2.0)],
    )
    a = [ASSEMBLIES[x] for x in pm.assembly]
    assert sorted(a) == ["straight", "twin", "twin"]
    assert pm.port[:3].tolist() == [0, 1, 2] and pm.cage[:3].tolist() == [0, 0, 1]


def test_cedar7_servers_use_four_twin_port_cages_and_their_leaf_cages_pair_the_same_servers() -> None:
    # two servers, 8 rails each, to 8 leaves; server 0's rail 0 is 3 m, everything else 40 m
    devs = [("s0", "server", "dgx-h100"), ("s1", "server", "dgx-h100")]
    devs += [(f"leaf{r}", "leaf", "qm9700") for r in range(8)]
    links = [(s, 2 + r, "gpu_leaf", 3.0 if (s, r) == (0, 0) else 40.0) for s in (0, 1) for r in range(8)]
    pm, before = _assign(devs, links, nic="cedar7")
    n = len(links)
    assert MT.ids[before[0]] == "dac"
    assert pm.port[:n].tolist() == [r for _ in (0, 1) for r in range(8)]  # rail i on backend port i
    assert pm.cage[:n].tolist() == [r // 2 for _ in (0, 1) for r in range(8)]  # 4 twin-port cages
    assert pm.per_cage[:n].tolist() == [2] * n
    # at leaf r both servers' rail r share cage 0
    assert pm.cage[n:].tolist() == [0] * n
    assert set(_media(pm)) == {"mmf"}
    summary = pm.summary()["by_model"]["dgx-h100"]["backend"]
    assert (summary["cages"], summary["used_cages"], summary["used_ports"]) == (8, 8, 16)


def test_management_links_go_to_rj45_ports_not_to_data_cages() -> None:
    devs = [("leaf", "leaf", "qm9700"), ("oob", "oob", "sn2201"), ("s0", "server", "dgx-h100")]
    pm, _ = _assign(devs, [(0, 1, "oob", 10.0), (2, 1, "oob", 10.0), (2, 0, "gpu_leaf", 10.0)])
    assert [GROUPS[g] for g in pm.group[:3]] == ["mgmt", "mgmt", "backend"]
    assert [GROUPS[g] for g in pm.group[3:]] == ["data", "data", "data"]
    assert [FORMS[f] for f in pm.form[:3]] == ["rj45", "rj45", "osfp"]
    cages = pm.cages.set_index(["model", "group"])
    assert cages.loc[("qm9700", "data"), "used_ports"] == 1  # the GPU link only
    assert cages.loc[("qm9700", "mgmt"), "used_ports"] == 1


def test_a_leaf_with_more_links_than_ports_is_a_ports_violation_with_device_rack_and_counts() -> None:
    devs = [("leaf", "leaf", "qm9700"), *[(f"s{i}", "server", "dgx-h100") for i in range(9)]]
    links = [(1 + i // 8, 0, "gpu_leaf", 10.0) for i in range(66)]  # 9 servers x 8 > 64 after 66
    pm, _ = _assign(devs, links)
    assert len(pm.violations) == 1
    v = pm.violations[0]
    assert v.kind == "ports" and v.where == "B1/H1/R01/K01"
    assert "leaf (qm9700)" in v.message and "needs 33 data OSFP cages for 66 ports; it has 32" in v.message
    assert v.figures["cages_needed"] == 33 and v.figures["cages"] == 32
    assert pm.summary()["overflows"] == 1


def test_catalog_cages_must_match_the_ports(tmp_path: Path) -> None:
    shutil.copytree(DEFAULT_TEMPLATES_DIR, tmp_path / "t")
    cat = tmp_path / "t" / "catalog.toml"
    text = cat.read_text()
    cat.write_text(text.replace("cages = 32\n", "cages = 33\n", 1))
    with pytest.raises(InputError) as e:
        load_catalog(tmp_path / "t")
    msg = str(e.value)
    assert (
        "catalog.toml: switch.qm9700.cages: 33 cages x 2 ports per cage is not the switch's 64 ports" in msg
    )
    assert "(allowed: cages = 32)" in msg
    cat.write_text(text.replace('cage = "osfp"', 'cage = "cfp"', 1))
    with pytest.raises(InputError) as e:
        load_catalog(tmp_path / "t")
    assert (
        'catalog.toml: server.dgx-h100.backend_cage: unknown value "cfp" (allowed: "osfp", "qsfp", "sfp", "rj45")'
        in str(e.value)
    )


# ------------------------------------------------------------------------------------- shipped sites
@pytest.fixture(scope="module")
def designs() -> dict[str, Any]:
    return {p.stem: design.run(load_site(p)) for p in SITES}


def _check_invariants(d: Any) -> None:
    c = d.cabling
    pm = c.ports
    links = c.links
    n = len(links)
    dev = np.r_[links["a"].to_numpy(), links["b"].to_numpy()]
    g = pm.group.astype(np.int64)
    # no port used twice
    key = (dev * len(GROUPS) + g) * 4096 + pm.port
    assert len(np.unique(key)) == 2 * n
    # no cage with two media
    media = np.r_[pm.code, pm.code]
    has = media >= 0
    cage_key = (dev * len(GROUPS) + g) * 4096 + pm.cage
    per_cage = pd.Series(media[has]).groupby(cage_key[has]).nunique()
    assert (per_cage == 1).all()
    # the links table shows the medium the cage decided
    assert (links["media"].cat.codes.to_numpy()[pm.code >= 0] == pm.code[pm.code >= 0]).all()
    # no device over its cages: the highest cage used is below the model's count
    models = d.fabric.devices["model"].to_numpy()[dev]
    for (model, group), have in pm.cages.set_index(["model", "group"])["cages"].items():
        sel = (models == model) & (g == GROUPS.index(group))
        per_dev = have // int(pm.cages.set_index(["model", "group"]).loc[(model, group), "devices"])
        assert pm.cage[sel].max(initial=-1) < per_dev
    assert not [v for v in d.violations if v.kind == "ports"]


@pytest.mark.parametrize("stem", [p.stem for p in SITES])
def test_every_shipped_site_uses_each_port_once_one_medium_per_cage_and_no_switch_over_its_cages(
    designs: dict[str, Any], stem: str
) -> None:
    _check_invariants(designs[stem])


@pytest.mark.parametrize("stem", [p.stem for p in SITES])
def test_ports_csv_reads_back_as_the_links_table_with_unique_cable_ids(
    designs: dict[str, Any], stem: str
) -> None:
    d = designs[stem]
    pt = tables.ports_table(d.fabric, d.placement, d.cabling, stem.upper())
    back = pd.read_csv(io.BytesIO(tables.csv_bytes(pt)), keep_default_na=False, dtype=str)
    lt = tables.links_table(d.fabric, d.placement, d.cabling)
    assert len(back) == len(lt)
    assert back["cable_id"].is_unique
    for a, b in (
        ("a_device", "a_device"),
        ("b_device", "b_device"),
        ("media", "media"),
        ("a_rack", "rack_a"),
    ):
        assert (back[a].to_numpy() == lt[b].astype(str).to_numpy()).all()
    stock = pd.to_numeric(back["stock_length_m"], errors="coerce").to_numpy()
    assert np.allclose(stock, lt["stock_length_m"].to_numpy(float), equal_nan=True)
    assert set(tables.PORT_COLUMNS) <= set(back.columns)
    # every cable id names the site, then both ends' rack, RU and port
    first = back.iloc[0]
    ru = f"{int(first['a_ru']):02d}"
    assert first["cable_id"].startswith(f"{stem.upper()}.{first['a_rack'].replace('/', '.')}-U{ru}:")


def test_superpod_leaves_fit_their_32_osfp_cages(designs: dict[str, Any]) -> None:
    d = designs["superpod-4su"]
    pm = d.cabling.ports
    links = d.cabling.links
    dev = np.r_[links["a"].to_numpy(), links["b"].to_numpy()]
    roles = d.fabric.devices["role"].to_numpy()
    leaf = (roles[dev] == "leaf") & (pm.group == GROUPS.index("data"))
    cages_per_leaf = pd.Series(pm.cage[leaf]).groupby(dev[leaf]).nunique()
    assert len(cages_per_leaf) == 32
    assert (cages_per_leaf == 32).all()  # 32 down + 32 up 400G ports in exactly 32 twin-port cages
    # per-link media would need 33 on half of them (odd DAC / AEC / MMF runs): one medium per cage fixes it
    assert pm.changed > 0
    s = d.summary()["ports"]
    n_qm = int((d.fabric.devices["model"] == "qm9700").sum())  # backend; frontend/storage are SN5600
    assert n_qm == 48 and s["overflows"] == 0 and s["by_model"]["qm9700"]["data"]["cages"] == n_qm * 32


def test_breakout_and_twin_cables_are_one_bom_part_per_two_links(designs: dict[str, Any]) -> None:
    for d in designs.values():
        bom = d.bom[d.bom["category"] == "cables"]
        pair = bom["part_id"].str.contains("/breakout/|/twin/", regex=True)
        links = d.cabling.links
        asm = np.array(ASSEMBLIES, dtype=object)[d.cabling.ports.assembly]
        n_pair = int(np.isin(asm, ["breakout", "twin"]).sum())
        assert int(bom.loc[pair, "qty"].sum()) == -(-n_pair // 2) or n_pair % 2 == 0
        assert 2 * int(bom.loc[pair, "qty"].sum()) >= n_pair
        # every link with a medium is in exactly one cable part, or (through the cable plant) two
        # patch cords and a trunk (layout/cable/plant.py)
        plant_part = bom["part_id"].str.match(r"^(trunk|panel|cassette|cord|cabinet)/")
        covered = int(bom.loc[~pair & ~plant_part, "qty"].sum()) + n_pair
        ch = d.cabling.plant.channels
        assert covered + int(ch["structured"].sum()) == int((links["media"] != "").sum())


@pytest.mark.parametrize("stem", ["superpod-4su", "gb200-hall"])
def test_modules_are_the_optical_cages_grouped_by_device_medium_backend_width_and_form(
    designs: dict[str, Any], stem: str
) -> None:
    # reference: a plain pandas groupby over every cage, against PortMap.modules' precomputed cage parts
    d = designs[stem]
    pm, links = d.cabling.ports, d.cabling.links
    n = len(links)
    end = pm.cage_end
    lk = np.where(end < n, end, end - n)
    med = pm.code[lk]
    opt = (med >= 0) & MT.optical[np.clip(med, 0, None)]
    a, b = links["a"].to_numpy(), links["b"].to_numpy()
    cages = pd.DataFrame(
        {
            "device": np.where(end < n, a[lk], b[lk])[opt],
            "media": np.array(MT.ids, dtype=object)[med[opt]],
            "backend": (links["kind"].astype(str).to_numpy() == "gpu_leaf")[lk][opt],
            "links_per_module": pm.per_cage[end][opt],
            "form": np.array(FORMS, dtype=object)[pm.form[end]][opt],
            "links": pm.cage_size[opt],
            "code": med[opt],
        }
    )
    ref = (
        cages.groupby(["device", "code", "backend", "links_per_module", "form"], sort=True)
        .agg(links=("links", "sum"), modules=("links", "size"), media=("media", "first"))
        .reset_index()
    )
    got = pm.modules(d.fabric.devices, links, MT)
    assert len(got) == len(ref) > 0
    for c in ("device", "backend", "links_per_module", "links", "modules", "media", "form"):
        assert got[c].tolist() == ref[c].tolist(), c
    roles = d.fabric.devices["role"].to_numpy()[got["device"].to_numpy()]
    assert got["end"].tolist() == np.where(roles == "server", "server", "switch").tolist()
    assert got["device_id"].tolist() == d.fabric.devices["device_id"].to_numpy()[got["device"]].tolist()
    assert str(got["device_id"].dtype) == str(got["media"].dtype) == "str"


def test_a_cage_holds_at_most_one_link_per_lane_however_slow_the_links() -> None:
    # by hand: QM9700 cage = 2 x 400G on 8 lanes of 100G; Q3400 cage = 2 x 800G on 8 lanes of 200G;
    # SN5610 cage = 1 x 800G on 8 lanes of 100G. Lanes per link = ceil(speed / lane), at least 1.
    per = links_per_cage(
        np.array([800, 400, 100, 1, 400, 200, 100, 1, 400, 300, 1600]),
        np.array([2, 2, 2, 2, 2, 2, 2, 2, 1, 2, 2]),
        np.array([400, 400, 400, 400, 800, 800, 800, 800, 800, 400, 400]),
        np.array([8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8]),
    )
    #                    800 400 100 1G | 400 200 100 1G | 400 on 1x800 | 300 (3 lanes) | 1.6T
    assert per.tolist() == [1, 2, 8, 8, 4, 8, 8, 8, 2, 2, 1]
    # ten 1 Gb/s GPU links on one QM9700 leaf: eight share cage 0, two go to cage 1 (not 800 per cage)
    devs = [("leaf", "leaf", "qm9700"), *[(f"s{i}", "server", "dgx-h100") for i in range(10)]]
    pm, _ = _assign(devs, [(1 + i, 0, "gpu_leaf", 10.0) for i in range(10)], speed_gbps=1)
    n = 10
    assert pm.per_cage[n:].tolist() == [8] * n
    assert sorted(pm.cage[n:].tolist()) == [0] * 8 + [1] * 2
    assert pm.summary()["by_model"]["qm9700"]["data"]["used_cages"] == 2
    assert not pm.violations


def test_a_1_gbps_backend_that_needs_more_lanes_than_a_leaf_has_is_a_ports_violation() -> None:
    # 300 links of 1 Gb/s on one QM9700 (32 cages x 8 lanes = 256 links at most): 38 cages needed
    devs = [("leaf", "leaf", "qm9700"), *[(f"s{i}", "server", "dgx-h100") for i in range(38)]]
    links = [(1 + i // 8, 0, "gpu_leaf", 10.0) for i in range(300)]
    pm, _ = _assign(devs, links, speed_gbps=1)
    assert len(pm.violations) == 1
    v = pm.violations[0]
    assert v.kind == "ports" and "needs 38 data OSFP cages for 300 ports; it has 32" in v.message
    assert pm.per_cage[300:].max() == 8  # port labels stay within a cage's 16 slots
    names = ports.port_labels(pm.group[300:], pm.cage[300:], pm.port[300:], pm.per_cage[300:])
    assert len(set(names.tolist())) == 300


def test_a_kept_port_skeleton_gives_the_port_map_and_modules_of_a_fresh_one(designs: dict[str, Any]) -> None:
    from layout.cable.stage import port_skeleton
    from layout.memo import Memo, Scope, Token

    d = designs["gb200-hall"]
    cat, fab, c = d.inputs.catalog, d.fabric, d.cabling
    scope = Scope(Memo(), Token("a fabric"))
    kept = port_skeleton(fab, cat, scope)
    assert port_skeleton(fab, cat, scope) is kept  # the second run takes the kept one
    code = np.where(c.links["media"].cat.codes.to_numpy() < len(MT.ids), c.links["media"].cat.codes, -1)
    length = c.links["length_m"].to_numpy(float)
    ra, rb = c.links["rack_a"].to_numpy(), c.links["rack_b"].to_numpy()
    warm = ports.finish(kept, fab.devices, code, length, ra, rb, MT)
    cold = ports.assign(fab.devices, fab.links, code, length, ra, rb, MT, cat, fab.nic)
    for f in ("code", "stock_basis_m", "medium_for_m", "assembly", "cage", "port", "per_cage"):
        assert np.array_equal(getattr(warm, f), getattr(cold, f)), f
    pd.testing.assert_frame_equal(
        warm.modules(fab.devices, fab.links, MT), cold.modules(fab.devices, fab.links, MT)
    )


def test_copper_links_whose_cages_no_assembly_builds_go_optical() -> None:
    """Three switches, one link between each two (a triangle): each switch's first twin-port cage holds
    its two links, so the three links share cages in a ring: neither straight, twin nor breakout. No
    such copper cable exists: each link becomes a cord between two optical modules (the cheapest
    optical medium that reaches), and no copper link is left without an assembly."""
    pm, before = _assign(
        [("a", "leaf", "qm9700"), ("b", "spine", "qm9700"), ("c", "spine", "qm9700")],
        [(0, 1, "leaf_spine", 2.0), (0, 2, "leaf_spine", 2.0), (1, 2, "leaf_spine", 2.0)],
    )
    assert not MT.optical[before].any()  # by length alone: copper
    assert pm.cage.tolist() == [0] * 6  # every end in its device's first cage
    assert all(MT.optical[pm.code])
    assert len({MT.ids[c] for c in pm.code}) == 1
    assert MT.ids[pm.code[0]] == MT.ids[MT.pick(np.array([2.0]), 400, optical_only=True)[0]]
    assert [ASSEMBLIES[a] for a in pm.assembly] == ["fibre"] * 3
    assert pm.changed == 3
    assert not len(ports.copper_assembly_problems(pm.code, pm.assembly, MT))
    assert not pm.violations


def test_the_same_pairs_at_both_ends_stay_one_twin_copper_cable() -> None:
    """The buildable case next to the ring above: two links between the same two switches share one
    cage at both ends (a twin cable); a third link to another switch is straight."""
    pm, _ = _assign(
        [("a", "leaf", "qm9700"), ("b", "spine", "qm9700"), ("c", "spine", "qm9700")],
        [(0, 1, "leaf_spine", 2.0), (0, 1, "leaf_spine", 2.0), (0, 2, "leaf_spine", 2.0)],
    )
    assert [ASSEMBLIES[a] for a in pm.assembly] == ["twin", "twin", "straight"]
    assert not MT.optical[pm.code].any()


@pytest.mark.parametrize("stem", ["superpod-4su", "seed002-32k", "gb200-hall", "campus-100k"])
def test_every_copper_link_of_a_shipped_site_is_in_an_assembly_that_exists(stem: str, design_of: Any) -> None:
    """Straight, twin or breakout, and priced as such: the BOM's copper parts are one per straight link
    and one per two links of a twin or breakout (as counted from the port map here)."""
    d = design_of(stem)
    pm = d.cabling.ports
    mt = MediaTable.of(d.inputs.catalog)
    assert not len(ports.copper_assembly_problems(pm.code, pm.assembly, mt))
    copper = (pm.code >= 0) & ~mt.is_optical(pm.code)
    names = {ASSEMBLIES[a] for a in np.unique(pm.assembly[copper])}
    assert names <= {"straight", "twin", "breakout"}
    bom = d.bom[d.bom["category"] == "cables"]
    copper_ids = {mt.ids[k] for k in range(len(mt.ids)) if not mt.optical[k]}
    bought = int(bom.loc[bom["part_id"].str.split("/").str[0].isin(copper_ids), "qty"].sum())
    singles = int(np.count_nonzero(copper & (pm.assembly == ASSEMBLIES.index("straight"))))
    pairs = int(np.count_nonzero(copper & (pm.assembly != ASSEMBLIES.index("straight"))))
    assert pairs % 2 == 0 and bought == singles + pairs // 2


@pytest.mark.parametrize(("stem", "moved"), [("campus-100k", 40), ("seed002-32k", 970)])
def test_the_readmes_count_of_links_moved_off_unbuildable_copper(
    stem: str, moved: int, design_of: Any
) -> None:
    """The links whose cages no copper assembly builds and whose length would pick copper (README:
    "on the campus that is 40 links, on seed002 970"): each is optical now."""
    from layout.cable.stage import port_skeleton

    d = design_of(stem)
    pm, mt = d.cabling.ports, MediaTable.of(d.inputs.catalog)
    sk = port_skeleton(d.fabric, d.inputs.catalog)
    split = sk.copper_assembly == ASSEMBLIES.index("split")
    by_length = mt.pick(pm.medium_for_m[split], sk.speed[split])
    would_be_copper = (by_length >= 0) & ~mt.is_optical(by_length)
    assert int(np.count_nonzero(would_be_copper)) == moved
    assert mt.is_optical(pm.code[split][would_be_copper]).all()
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "on the campus that is 40 links, on seed002 970" in readme


def test_a_dgx_h100_leaves_through_four_twin_port_cages_and_an_hgx_through_eight() -> None:
    """DGX H100 user guide: 8 ConnectX-7 ports through 4 twin-port OSFP cages, whatever the NIC option;
    seed 000's 8-GPU server with 8 PCIe ConnectX-7: 8 single-port cages (Cedar-7: 4 twin-port)."""
    for server, nic, cages, per in (
        ("dgx-h100", "cx7", 4, 2),
        ("dgx-h100", "cedar7", 4, 2),
        ("hgx-h100", "cx7", 8, 1),
        ("hgx-h100", "cedar7", 4, 2),
    ):
        assert CAT.backend_per_cage(server, nic) == per, (server, nic)
        devs = [(server[:3], "server", server)] + [(f"leaf{r}", "leaf", "qm9700") for r in range(8)]
        pm, _ = _assign(devs, [(0, 1 + r, "gpu_leaf", 40.0) for r in range(8)], nic=nic)
        assert len(set(pm.cage[:8].tolist())) == cages, (server, nic)
        mods = pm.modules(pd.DataFrame(devs, columns=["device_id", "role", "model"]), pd.DataFrame(), MT)
        assert int(mods.loc[mods["end"] == "server", "modules"].sum()) == cages


def test_the_seeds_node_optics_hold_on_the_server_that_has_those_cages() -> None:
    """Seed 000: 98,304 node-side optics on 12,288 8-GPU servers with PCIe ConnectX-7, 49,152 with
    Cedar-7; a DGX H100 cluster of the same size has 49,152 either way (its cages are twin-port)."""
    from layout.fabric import size

    assert size(98_304, server="hgx-h100", catalog=CAT).node_optics == 98_304
    assert size(98_304, server="hgx-h100", nic="cedar7", catalog=CAT).node_optics == 49_152
    assert size(98_304, server="dgx-h100", catalog=CAT).node_optics == 49_152
