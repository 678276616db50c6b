"""Bill of materials, cost and the design's reliability figures.

The hand case is the conftest's one-SU site (32 DGX H100 on QM9700, rail): its fabric and placement are
real, its cabling is written out by hand (every GPU link multimode 10 m, every uplink multimode 15 m,
12.3 m of row tray) so that every price below comes straight from rack_templates/catalog.toml.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from layout import bom, design, reliability
from layout.reliability import MINUTES_PER_YEAR


@pytest.fixture(scope="module")
def one_su(make_inputs: Any) -> Any:
    inputs = make_inputs()
    d = design.run(inputs)
    cabling = d.cabling
    return SimpleNamespace(inputs=inputs, design=d, cabling=cabling,
                           bom=bom.build(bom.BomInput.of(inputs), d.fabric, d.placement, cabling))  # fmt: skip


@pytest.fixture(scope="module")
def superpod(inputs_of: Any, design_of: Any) -> Any:
    inputs = inputs_of("superpod-4su")
    d = design_of("superpod-4su")
    cabling = d.cabling
    return SimpleNamespace(inputs=inputs, design=d, cabling=cabling,
                           bom=bom.build(bom.BomInput.of(inputs), d.fabric, d.placement, cabling))  # fmt: skip


def _hand_cabling(fabric: Any) -> Any:
    """All 256 GPU links and 256 leaf-spine links of the one-SU fabric on multimode, written by hand in
    the shape of layout.cable.media.Cabling (modules per device, medium and GPU-link flag)."""
    dev = fabric.devices
    rows = []
    for i, role in enumerate(dev["role"]):
        if role == "server":  # 8 GPU links, one single-port module each (ConnectX-7)
            rows.append((i, "server", True, 8, 8))
        elif role == "leaf":  # 32 GPU links and 32 uplinks, twin-port modules
            rows += [(i, "switch", True, 32, 16), (i, "switch", False, 32, 16)]
        elif role == "spine":  # 64 downlinks from 8 leaves, twin-port modules
            rows.append((i, "switch", False, 64, 32))
    modules = pd.DataFrame(rows, columns=["device", "end", "backend", "links", "modules"])
    modules.insert(5, "links_per_module", np.where(modules["end"] == "server", 1, 2))
    modules.insert(1, "device_id", dev["device_id"].to_numpy()[modules["device"]])
    modules.insert(3, "media", "mmf")
    cables = pd.DataFrame({"media": ["mmf", "mmf"], "stock_length_m": [10.0, 15.0], "count": [256, 256]})
    trays = SimpleNamespace(
        tray_m=lambda: {"row": 12.3, "cross": 0.0, "trunk": 0.0, "riser": 0.0, "duct": 0.0, "user": 0.0}
    )
    return SimpleNamespace(modules=modules, cables=cables, trays=trays)


def test_one_su_hand_computed_prices(one_su: Any) -> None:
    d = one_su.design
    s = d.fabric.summary()
    assert (d.fabric.servers, s["switches"]["leaf"], s["switches"]["spine"]) == (32, 8, 4)
    assert d.placement.racks_by_template() == {"dgx-h100-x4": 8, "net-leaf": 1, "net-spine": 1}
    df = bom.build(bom.BomInput.of(one_su.inputs), d.fabric, d.placement, _hand_cabling(d.fabric))
    got = {(r.category, r.part_id): (r.qty, r.unit_price_usd, r.extended_usd) for r in df.itertuples()}
    assert got == {
        ("servers", "dgx-h100"): (32, 300_000.0, 9_600_000.0),
        ("gpus", "dgx-h100/gpu"): (256, 0.0, 0.0),
        ("racks", "dgx-h100-x4"): (8, 3_500.0, 28_000.0),
        ("racks", "net-leaf"): (1, 3_500.0, 3_500.0),
        ("racks", "net-spine"): (1, 3_500.0, 3_500.0),
        ("nics", "cx7"): (256, 0.0, 0.0),
        ("transceivers", "mmf/x1"): (256, 700.0, 179_200.0),  # half of a $1,400 multimode link per end
        ("transceivers", "mmf/x2"): (8 * 32 + 4 * 32, 1_400.0, 537_600.0),  # twin-port: two ends
        ("cables", "mmf/10m"): (256, 30.0, 7_680.0),  # $3/m of fibre
        ("cables", "mmf/15m"): (256, 45.0, 11_520.0),
        ("trays", "tray/row"): (13, 60.0, 780.0),  # whole metres
        ("power", "power-cord/c19"): (32 * 6, 18.0, 3_456.0),  # six PSU cords per DGX H100
        ("power", "power-cord/c13"): (12 * 2, 10.0, 240.0),  # two per switch: 8 leaves and 4 spines
    } | {("switches", "qm9700"): got[("switches", "qm9700")]}
    switches = df[df["category"] == "switches"]
    assert switches["item"].str.endswith(("backend leaf", "backend spine")).all()
    assert switches["qty"].tolist() == [8, 4]  # leaf before spine
    assert switches["extended_usd"].sum() == 12 * 30_000.0
    t = bom.totals(df)
    assert t["total"] == 9_600_000 + 35_000 + 360_000 + 179_200 + 537_600 + 7_680 + 11_520 + 780 + 3_456 + 240
    assert t["network"] == 360_000 + 179_200 + 537_600 + 7_680 + 11_520 + 780
    # fully used modules: every optical link costs exactly its catalog price_usd + price_usd_per_m x length
    links = 256 * (1_400 + 3 * 10) + 256 * (1_400 + 3 * 15)
    assert t["by_category"]["transceivers"] + t["by_category"]["cables"] == links


def test_categories_in_order_and_extended_is_qty_times_price(one_su: Any, superpod: Any) -> None:
    for case in (one_su, superpod):
        df = case.bom
        assert list(df.columns) == bom.BOM_COLUMNS
        ranks = [bom.CATEGORIES.index(c) for c in df["category"]]
        assert ranks == sorted(ranks)
        assert df["qty"].dtype == np.int64
        assert np.allclose(df["extended_usd"], df["qty"] * df["unit_price_usd"])
        again = bom.build(
            bom.BomInput.of(case.inputs), case.design.fabric, case.design.placement, case.cabling
        )
        pd.testing.assert_frame_equal(df, again)


def test_quantities_equal_the_design_counts(one_su: Any, superpod: Any) -> None:
    for case in (one_su, superpod):
        df, d = case.bom, case.design
        qty = df.groupby(["category", "part_id"])["qty"].sum()
        assert qty[("servers", "dgx-h100")] == d.fabric.servers
        assert qty[("gpus", "dgx-h100/gpu")] == d.fabric.gpus
        assert qty[("nics", "cx7")] == d.fabric.servers * 8
        assert {
            t: int(qty[("racks", t)]) for t in d.placement.racks_by_template()
        } == d.placement.racks_by_template()
        assert df.loc[df["category"] == "racks", "qty"].sum() == len(d.placement.racks)
        dev = d.fabric.devices
        is_sw = ~dev["role"].isin(["server", "storage_node", "cpu_node"])
        by_model = dev[is_sw].groupby("model").size().to_dict()
        assert {m: int(qty[("switches", m)]) for m in by_model} == by_model
        # storage and CPU nodes are bought too, each model once per kind of node
        nodes = dev[dev["role"].isin(["storage_node", "cpu_node"])].groupby("model").size().to_dict()
        assert {m: int(qty[("nodes", m)]) for m in nodes} == nodes
        # one row per switch model and role: backend tiers first
        sw = df[df["category"] == "switches"]
        assert len(sw) == dev.loc[is_sw, ["role", "model"]].drop_duplicates().shape[0]
        assert sw["item"].iloc[0].endswith("backend leaf")


def test_superpod_switch_rows_per_network(superpod: Any) -> None:
    sw = superpod.bom[superpod.bom["category"] == "switches"]
    assert [(i.rsplit(", ", 1)[1], q) for i, q in zip(sw["item"], sw["qty"], strict=True)] == [
        ("backend leaf", 32), ("backend spine", 16),  # NVIDIA SuperPOD 4 SU: 32 leaf + 16 spine
        # frontend on 128-port SN5600 at 3:1 (96 down): 48 DGX x 2 ports per leaf -> 3 leaves, one more
        # for the 9 CPU nodes (2 head, 2 login, 3 management, 2 UFM) x 2 ports; their 92 links up fit one
        # spine. Storage 1:1 (64 down): 32 DGX per leaf -> 4, one for the 11 storage servers (1,024 GPUs
        # x 4 Gb/s / 400 Gb/s each); 4 x 64 + 22 links up need 3 spines of 128
        ("frontend leaf", 4), ("frontend spine", 1), ("storage leaf", 5), ("storage spine", 3),
        # 128 BMCs + 20 node BMCs + 61 switch ports = 209 -> 5 SN2201 for the pod, 1 above it; 2 uplinks each
        ("out-of-band", 6), ("out-of-band aggregation", 2),
    ]  # fmt: skip


def _modules_from_links(case: Any) -> dict[str, int]:
    """Transceivers counted from the routed links alone: every optical link has two ends; on a switch a
    twin-port module takes two links of one medium (GPU links and the rest on separate modules), on a
    server a GPU link takes a module per NIC port (ports_per_module) and other links one each."""
    cat = case.inputs.catalog
    links = case.cabling.links
    dev = case.design.fabric.devices
    optical = links["media"].astype(str).map(lambda m: bool(m) and cat.media[m].optical).to_numpy(bool)
    ol = links[optical]
    ends = pd.DataFrame({
        "device": np.r_[ol["a"].to_numpy(), ol["b"].to_numpy()],
        "media": np.r_[ol["media"].astype(str), ol["media"].astype(str)],
        "gpu": np.r_[ol["kind"] == "gpu_leaf", ol["kind"] == "gpu_leaf"],
    })  # fmt: skip
    counts = ends.groupby(["device", "media", "gpu"]).size().reset_index(name="n")
    role = dev["role"].to_numpy()[counts["device"]]
    model = dev["model"].to_numpy()[counts["device"]]
    nic = cat.backend_per_cage(case.design.fabric.server, case.design.fabric.nic)
    per = [
        (nic if g else 1) if r == "server" else 1 if m in cat.node else cat.switch[m].ports_per_cage
        for r, m, g in zip(role, model, counts["gpu"], strict=True)
    ]
    counts["modules"] = [math.ceil(n / p) for n, p in zip(counts["n"], per, strict=True)]
    return {str(k): int(v) for k, v in counts.groupby("media")["modules"].sum().items()}


def test_transceivers_are_optical_link_ends_on_twin_port_modules(one_su: Any, superpod: Any) -> None:
    for case in (one_su, superpod):
        tr = case.bom[case.bom["category"] == "transceivers"]
        by_media = (
            tr.assign(media=tr["part_id"].str.split("/").str[0]).groupby("media")["qty"].sum().to_dict()
        )
        assert by_media == _modules_from_links(case)
        assert by_media == case.cabling.transceivers()
    # one SU: 256 uplinks leave on twin-port modules at both ends: 8 leaves x 16 + 4 spines x 32
    links = one_su.cabling.links
    assert (links.loc[links["kind"] == "leaf_spine", "media"] == "mmf").all()
    up = one_su.cabling.modules
    assert up.loc[(up["end"] == "switch") & ~up["backend"], "modules"].sum() == 8 * 16 + 4 * 32


def test_cables_per_medium_and_length_sum_to_the_links(one_su: Any, superpod: Any) -> None:
    for case in (one_su, superpod):
        cables = case.bom[case.bom["category"] == "cables"]
        plant_part = cables["part_id"].str.match(r"^(trunk|panel|cassette|cord|cabinet)/")
        cords = cables[cables["part_id"].str.startswith("cord/")]
        cables = cables[~plant_part]
        links = case.cabling.links
        ch = case.cabling.plant.channels
        through = np.zeros(len(links), bool)  # plant links: two patch cords and a trunk, not one cable
        through[ch.loc[ch["structured"], "link"].to_numpy()] = True
        assert int(cords["qty"].sum()) == 2 * int(through.sum())
        ok = links[(links["status"] == "ok").to_numpy() & ~through]
        # a breakout or twin cable is one part for two links (both cut to the longer leg)
        per = np.where(cables["part_id"].str.contains("/breakout/|/twin/", regex=True), 2, 1)
        carried = cables["qty"].to_numpy() * per
        assert carried.sum() == len(ok)
        media_of = cables["part_id"].str.split("/").str[0]
        assert (
            pd.Series(carried, index=cables.index).groupby(media_of).sum().to_dict()
            == ok["media"].astype(str).value_counts().to_dict()
        )
        # the length in each row is the stock length of that many links
        lengths = cables["part_id"].str.split("/").str[-1].str.removesuffix("m").astype(float)
        assert float((carried * lengths).sum()) == pytest.approx(float(ok["stock_length_m"].sum()))


def test_totals_add_up(one_su: Any, superpod: Any) -> None:
    for case in (one_su, superpod):
        t = bom.totals(case.bom)
        assert list(t["by_category"]) == list(bom.CATEGORIES)
        assert t["total"] == pytest.approx(case.bom["extended_usd"].sum())
        assert sum(t["by_category"].values()) == pytest.approx(t["total"])
        assert t["network"] == pytest.approx(sum(t["by_category"][c] for c in bom.NETWORK_CATEGORIES))
        assert t["by_category"]["servers"] == case.design.fabric.servers * 300_000
        assert t["by_category"]["gpus"] == 0.0


def _reliability(inputs: Any, fabric: Any, cabling: Any) -> dict[str, Any]:
    return reliability.design_reliability(reliability.ReliabilityInput.of(inputs, fabric, cabling))


def _stub_fabric(gpus: int, nic: str) -> Any:
    return SimpleNamespace(gpus=gpus, nic=nic, server="dgx-h100")


def _node_modules(links: int, modules: int, media_id: str = "mmf", others: Any = None) -> Any:
    m = pd.DataFrame({"device": [0], "device_id": ["srv-00000"], "end": ["server"], "media": [media_id],
                      "backend": [True], "links": [links], "modules": [modules]})  # fmt: skip
    rows = [("gpu_leaf", "backend", media_id)] * links + list(others or [])
    return SimpleNamespace(modules=m, links=pd.DataFrame(rows, columns=["kind", "network", "media"]))


def _without_site_mtbf(inputs: Any) -> Any:
    import dataclasses

    data = inputs.site.cluster.model_dump(exclude_unset=True)
    data.pop("link_mtbf_years", None)
    cluster = type(inputs.site.cluster).model_validate(data)
    return dataclasses.replace(inputs, site=inputs.site.model_copy(update={"cluster": cluster}))


def test_reliability_reproduces_seed_000(inputs_of: Any) -> None:
    inputs = _without_site_mtbf(inputs_of("campus-100k"))
    # 100,000 single-port node links on multimode (5-year MTBF each): one failure every 26.28 min
    r = _reliability(inputs, _stub_fabric(100_000, "cx7"), _node_modules(100_000, 100_000))
    assert (r["time_to_first_failure_min"], r["mtbf_source"]) == (26.28, "media")
    assert r["by_media"] == {"mmf": {"links": 100_000, "modules": 100_000, "mtbf_years": 5.0}}
    c = r["checkpoint"]
    assert round(c["restart_gpu_days"]) == 229  # 100,000 x 99 steps x 2 s
    assert (round(c["in_memory_step_gpu_days"], 1), round(c["in_memory_copy_gpu_days"], 2)) == (2.3, 1.85)
    failures_per_day = 1440 / (MINUTES_PER_YEAR * 5 / 100_000)
    assert c["restart_gpu_days_per_day"] == pytest.approx(
        100_000 * 99 * 2 / 86_400 * failures_per_day, abs=1e-3
    )
    # Cedar-7: 50,000 dual-port modules, 4 years each (the NIC's own figure): 42.05 min
    r = _reliability(inputs, _stub_fabric(100_000, "cedar7"), _node_modules(100_000, 50_000))
    assert (r["time_to_first_failure_min"], r["mtbf_source"], r["node_optical_modules"]) == (
        42.05,
        "nic",
        50_000,
    )


def test_every_backend_link_counts_with_its_medium_s_mtbf(inputs_of: Any) -> None:
    inputs = _without_site_mtbf(inputs_of("campus-100k"))
    # the seed's case alone: the node-side links are the only ones, so every link gives the same 26.28 min
    r = _reliability(inputs, _stub_fabric(100_000, "cx7"), _node_modules(100_000, 100_000))
    assert r["all_links"]["time_to_first_failure_min"] == 26.28
    # by hand: 100 node-side multimode links (5 y, counted once), 50 leaf-spine multimode (5 y), 40 DAC
    # GPU jumpers (20 y), 10 AEC (10 y); frontend links and links without a medium do not stop the job
    others = ([("leaf_spine", "backend", "mmf")] * 50 + [("gpu_leaf", "backend", "dac")] * 40
              + [("leaf_spine", "backend", "aec")] * 10 + [("fe_leaf", "frontend", "mmf")] * 70
              + [("leaf_spine", "backend", "")] * 3)  # fmt: skip
    r = _reliability(inputs, _stub_fabric(1_024, "cx7"), _node_modules(100, 100, others=others))
    rate = 100 / 5 + 50 / 5 + 40 / 20 + 10 / 10  # failures per year
    every = r["all_links"]
    assert every["time_to_first_failure_min"] == round(MINUTES_PER_YEAR / rate, 2)
    assert every["failures_per_day"] == round(rate / 365, 3)
    assert every["links"] == 200 and every["node_side"] == {"links": 100, "modules": 100,
                                                             "failures_per_day": round(20 / 365, 3)}  # fmt: skip
    assert every["by_media"] == {"dac": {"links": 40, "mtbf_years": 20.0}, "aec": {"links": 10, "mtbf_years": 10.0},
                                 "mmf": {"links": 50, "mtbf_years": 5.0}}  # fmt: skip
    assert r["time_to_first_failure_min"] == round(
        MINUTES_PER_YEAR * 5 / 100, 2
    )  # the node-side figure stays
    # worst case: a failure just before the checkpoint (N - 1 steps redone); expected: half of it
    c = r["checkpoint"]
    assert c["restart_expected_gpu_days"] == round(c["restart_gpu_days"] / 2, 3)
    assert c["in_memory_expected_gpu_days"] == c["in_memory_gpu_days"]
    per_day = rate / 365
    assert every["restart_gpu_days_per_day"]["worst"] == pytest.approx(
        c["restart_gpu_days"] * per_day, abs=2e-3
    )
    assert every["restart_gpu_days_per_day"]["expected"] == pytest.approx(
        c["restart_gpu_days"] / 2 * per_day, abs=2e-3
    )
    assert every["in_memory_gpu_days_per_day"]["worst"] == pytest.approx(
        c["in_memory_gpu_days"] * per_day, abs=2e-3
    )


def test_reliability_of_real_designs(one_su: Any, superpod: Any) -> None:
    # one SU: the site sets no link MTBF, so the medium's (multimode, 5 years) applies per module; a
    # DGX H100's twin-port cages carry two links per module
    r = _reliability(one_su.inputs, one_su.design.fabric, one_su.cabling)
    links = one_su.cabling.links
    node = int(((links["kind"] == "gpu_leaf") & (links["media"] == "mmf")).sum())
    assert node > 0 and r["node_optical_links"] == node and r["node_optical_modules"] == node // 2
    assert r["time_to_first_failure_min"] == round(MINUTES_PER_YEAR * 5 / (node // 2), 2)
    assert r["mtbf_source"] == "media"
    # the superpod site sets link_mtbf_years = 5.0: it wins
    r = _reliability(superpod.inputs, superpod.design.fabric, superpod.cabling)
    assert r["mtbf_source"] == "site"
    assert r["time_to_first_failure_min"] == round(MINUTES_PER_YEAR * 5 / r["node_optical_modules"], 2)
    assert r["checkpoint"]["gpus"] == 1024


def test_middle_of_rack_has_no_node_optics(make_inputs: Any) -> None:
    inputs = make_inputs({"cluster": {"design": "mor"}})
    d = design.run(inputs)
    cabling = d.cabling
    r = _reliability(inputs, d.fabric, cabling)
    assert (r["time_to_first_failure_min"], r["failures_per_day"], r["node_optical_modules"]) == (
        None,
        0.0,
        0,
    )
    assert r["checkpoint"]["restart_gpu_days_per_day"] == 0.0
    # ... but its copper GPU links and its optical uplinks still fail: every backend link at its MTBF
    links = cabling.links
    be = links[links["network"] == "backend"]
    rate = sum(inputs.catalog.media[str(m)].mtbf_years ** -1 for m in be["media"])
    assert set(be.loc[be["kind"] == "gpu_leaf", "media"].astype(str)) <= {"dac", "aec"}
    assert r["all_links"]["time_to_first_failure_min"] == round(MINUTES_PER_YEAR / rate, 2)
    assert r["all_links"]["node_side"]["modules"] == 0


def test_orderable_lines_carry_part_numbers_and_spares_rounded_up() -> None:
    """Issue 29: every line has a part number (the maker's where the catalog gives one, with its
    source) and its category's spares, rounded up per line and priced; hand-worked."""
    import pandas as pd

    from layout.bom import orderable
    from layout.load import DEFAULT_TEMPLATES_DIR, load_catalog

    catalog = load_catalog(DEFAULT_TEMPLATES_DIR)
    df = pd.DataFrame(
        {
            "category": ["transceivers", "transceivers", "cables", "switches", "nics"],
            "part_id": ["mmf/x2", "mmf/x1", "dac/twin/0.5m", "qm9700", "cx7"],
            "qty": [150, 151, 7, 48, 1024],
            "unit_price_usd": [1400.0, 700.0, 320.0, 30000.0, 0.0],
        }
    )
    out = orderable(catalog, df)
    # 2 % of 150 is 3 exactly (not 4 from float noise); of 151, 3.02 -> 4; of 7 cables, 0.14 -> 1;
    # switches have no spares share; 1 % of 1,024 NICs is 10.24 -> 11
    assert out["spares"].tolist() == [3, 4, 1, 0, 11]
    assert out["spares_usd"].tolist() == [4200.0, 2800.0, 320.0, 0.0, 0.0]
    assert out["part_number"].tolist() == [
        "MMA4Z00-NS", "MMA4Z00-NS400", "DCL-DAC-TWIN-0.5M", "MQM9700-NS2F", "MCX75310AAS-NEAT",
    ]  # fmt: skip
    assert out["part_number_source"].iloc[2] == "dclayout id (no maker number)"
    assert out["part_number_source"].iloc[3].startswith("NVIDIA Quantum-2 QM9700")


def test_every_bom_line_of_every_shipped_site_is_orderable(design_of: Any) -> None:
    for stem in ("superpod-4su", "gb200-hall"):
        bom = design_of(stem).bom
        assert (bom["part_number"].str.len() > 0).all() and (bom["part_number_source"].str.len() > 0).all()
        assert (bom["spares"] >= 0).all() and (bom["spares_usd"] >= 0).all()
        # the capital cost stays the lines' own price: spares are apart
        assert design_of(stem).figures.value("cost_total_usd") == pytest.approx(bom["extended_usd"].sum())
