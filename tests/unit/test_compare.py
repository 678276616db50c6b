"""`layout.engine.compare`: the sixteen variants, their clusters, and the comparison on the SuperPOD site."""

from __future__ import annotations

import dataclasses
import io
from typing import Any

import pandas as pd
import pytest

from layout import design, fabric
from layout.engine import compare
from layout.engine.compare import Variant
from layout.export.tables import csv_bytes


@pytest.fixture(scope="module")
def superpod(inputs_of: Any) -> Any:
    return inputs_of("superpod-4su")


@pytest.fixture(scope="module")
def table(superpod: Any) -> pd.DataFrame:
    return compare.compare(superpod, jobs=1)


def row(df: pd.DataFrame, name: str) -> dict[str, Any]:
    return dict(df.loc[df["variant"] == name].iloc[0])


def test_twenty_variants_in_order() -> None:
    names = [v.name for v in compare.variants()]
    assert len(set(names)) == 20
    assert names[:4] == ["ib-nb/rail/cx7", "ib-nb/rail/cedar7", "ib-nb/mor/cx7", "ib-nb/mor/cedar7"]
    assert [n.split("/")[0] for n in names[::4]] == [
        "ib-nb",
        "ib-pods",
        "ib-islands",
        "spectrum-x",
        "tomahawk5",
    ]


def test_variant_clusters_of_the_campus(inputs_of: Any) -> None:
    cl = inputs_of("campus-100k").site.cluster  # qm9700, rail, cx7, 24,576-GPU pods 7:1, link MTBF 5 set
    nb = compare.variant_cluster(cl, Variant("ib-nb", "mor", "cx7"))
    assert (nb.switch, nb.design, nb.nic, nb.pod_gpus, nb.oversubscription, nb.tiers) == (
        "qm9700",
        "mor",
        "cx7",
        0,
        1.0,
        None,
    )
    assert "link_mtbf_years" in nb.model_fields_set  # same NIC as the site: its MTBF stays
    pods = compare.variant_cluster(cl, Variant("ib-pods", "rail", "cedar7"))
    assert (pods.pod_gpus, pods.oversubscription, pods.nic) == (24_576, 7.0, "cedar7")
    assert "link_mtbf_years" not in pods.model_fields_set  # another NIC: the site's figure does not apply
    assert compare.variant_cluster(cl, Variant("spectrum-x", "rail", "cx7")).switch == "sn5600"
    assert compare.variant_cluster(cl, Variant("tomahawk5", "rail", "cx7")).switch == "tomahawk5"
    # everything else of the site is kept
    assert (nb.gpus, nb.server, nb.rack, nb.networks) == (cl.gpus, cl.server, cl.rack, cl.networks)


def test_pods_default_to_seed_size_and_a_small_cluster_is_one_pod(superpod: Any, inputs_of: Any) -> None:
    cl = inputs_of("campus-100k").site.cluster.model_copy(update={"pod_gpus": 0})
    assert compare.variant_cluster(cl, Variant("ib-pods", "rail", "cx7")).pod_gpus == compare.DEFAULT_POD_GPUS
    one = compare.variant_cluster(superpod.site.cluster, Variant("ib-pods", "rail", "cx7"))  # 1,024 GPUs
    assert (one.pod_gpus, one.oversubscription) == (0, 1.0)


def test_128_port_switches_need_fewer_tiers_than_qm9700_at_100k(inputs_of: Any) -> None:
    campus = inputs_of("campus-100k")
    tiers, node = {}, {}
    for v in (Variant("ib-nb", "rail", "cx7"), Variant("ib-pods", "rail", "cx7"), Variant("spectrum-x", "rail", "cx7"),
              Variant("tomahawk5", "rail", "cx7"), Variant("ib-nb", "rail", "cedar7"), Variant("ib-nb", "mor", "cx7")):  # fmt: skip
        f = fabric.build(
            compare.variant_cluster(campus.site.cluster, v), campus.catalog, 4 if v.design == "mor" else None
        )
        tiers[v.name], node[v.name] = f.tiers, f.node_optics
    # seed 000: 64-port QM9700 holds 65,536 GPUs in 3 tiers, so 98,304 need 4; 128 ports: 3 suffice
    assert tiers["ib-nb/rail/cx7"] == 4
    assert tiers["ib-pods/rail/cx7"] == 4  # 3 inside a 24,576-GPU pod + the 7:1 tier above
    assert tiers["spectrum-x/rail/cx7"] == tiers["tomahawk5/rail/cx7"] == 3
    # seed 000 at the fabric level: 98,304 node-side optics, 49,152 with Cedar-7, none middle-of-rack
    assert (node["ib-nb/rail/cx7"], node["ib-nb/rail/cedar7"], node["ib-nb/mor/cx7"]) == (98_304, 49_152, 0)


def test_superpod_comparison(table: pd.DataFrame) -> None:
    assert table["variant"].tolist() == [v.name for v in compare.variants()]
    assert (table["error"] == "").all()
    ib = row(table, "ib-nb/rail/cx7")
    assert (ib["switches_leaf"], ib["switches_spine"], ib["tiers"]) == (32, 16, 2)  # NVIDIA SuperPOD 4 SU
    sx = row(table, "spectrum-x/rail/cx7")
    assert (sx["switches_leaf"], sx["switches_spine"]) == (16, 8)  # 128 ports: half the switches
    optics = [c for c in table.columns if c.startswith("optics_") and c != "optics_total"]
    assert (table[optics].sum(axis=1) == table["optics_total"]).all()
    for f in compare.FABRICS:
        for nic in compare.NICS:
            rail, mor = row(table, f"{f}/rail/{nic}"), row(table, f"{f}/mor/{nic}")
            assert mor["copper_share_pct"] > rail["copper_share_pct"]
            assert mor["node_optics"] < rail["node_optics"]
            assert mor["cost_network_usd"] < rail["cost_network_usd"]
    # QM9700 middle-of-rack: every GPU link is copper in the rack, so no node optics and no TTFF
    assert row(table, "ib-nb/mor/cx7")["node_optics"] == 0
    assert pd.isna(row(table, "ib-nb/mor/cx7")["ttff_min"])
    # ... yet its copper and its uplinks still fail: every backend link counts, and never less often
    # than the node-side optics alone
    assert row(table, "ib-nb/mor/cx7")["ttff_all_links_min"] > 0
    both = table.dropna(subset=["ttff_min"])
    assert len(both) and (both["ttff_all_links_min"] < both["ttff_min"]).all()
    # 2 tiers: GPU links are half the backend links, all copper middle-of-rack
    assert row(table, "ib-nb/mor/cx7")["copper_share_pct"] == 50.0


def test_cedar7_halves_the_node_side_optics(superpod: Any) -> None:
    """On the server with one PCIe ConnectX-7 per GPU (seed 000's): a DGX H100 has twin-port cages
    whatever the NIC (test_ports.py), so the superpod's own servers are swapped for HGX H100 here."""
    cluster = superpod.site.cluster.model_copy(
        update={"server": "hgx-h100", "rack": "hgx-h100-x4", "rack_low_density": "hgx-h100-x2"}
    )
    hgx = dataclasses.replace(superpod, site=superpod.site.model_copy(update={"cluster": cluster}))
    table = compare.compare(hgx, chosen=[Variant("ib-nb", "rail", n) for n in ("cx7", "cedar7")], jobs=1)
    runs = {}
    for nic in ("cx7", "cedar7"):
        vin = compare.variant_inputs(hgx, Variant("ib-nb", "rail", nic))
        runs[nic] = design.run(vin).cabling.links
    gpu = {k: v[v["kind"] == "gpu_leaf"] for k, v in runs.items()}
    reach = {m: spec.reach_m for m, spec in superpod.catalog.media.items()}
    r_cx7 = gpu["cx7"]["media"].astype(str).map(reach).to_numpy()
    r_cedar7 = gpu["cedar7"]["media"].astype(str).map(reach).to_numpy()
    assert (r_cedar7 >= r_cx7).all()  # same floor; sharing a twin-port server cage only adds reach
    optics = ["mmf", "smf-dr", "smf-fr", "coherent"]
    per_server = gpu["cx7"][gpu["cx7"]["media"].isin(optics)].groupby("a").size()
    per_server7 = gpu["cedar7"][gpu["cedar7"]["media"].isin(optics)].groupby("a").size()
    cx7, cedar7 = row(table, "ib-nb/rail/cx7"), row(table, "ib-nb/rail/cedar7")
    assert cx7["node_optics"] == per_server.sum()
    assert (per_server7 % 2 == 0).all()  # a twin-port module carries two links of one medium
    assert cedar7["node_optics"] == per_server7.sum() // 2  # a dual-port module per 2 links
    assert cedar7["ttff_min"] > cx7["ttff_min"]  # fewer modules, despite 4 years instead of 5


def test_parallel_run_gives_the_same_rows_and_bytes(superpod: Any, table: pd.DataFrame) -> None:
    chosen = [Variant("tomahawk5", "mor", "cedar7"), Variant("ib-nb", "rail", "cx7")]
    par = compare.compare(superpod, chosen=chosen, jobs=2)
    ser = table.set_index("variant").loc[[v.name for v in chosen]].reset_index()
    # the same figures; the rank is among the variants compared (2 here, 20 in the table)
    pd.testing.assert_frame_equal(par.drop(columns="rank"), ser.drop(columns="rank"))
    again = compare.compare(superpod, jobs=2)
    assert csv_bytes(again) == csv_bytes(table)


def test_csv_reads_back(table: pd.DataFrame) -> None:
    back = pd.read_csv(io.BytesIO(csv_bytes(table)), keep_default_na=False, na_values=[""])
    assert back.columns.tolist() == table.columns.tolist()
    assert back["variant"].tolist() == table["variant"].tolist()
    for c in ("tiers", "switches_leaf", "optics_total", "node_optics", "cost_total_usd", "copper_share_pct"):
        assert back[c].tolist() == pytest.approx(table[c].astype(float).tolist())


def test_a_variant_the_site_cannot_build_is_an_error_row(inputs_of: Any) -> None:
    gb200 = inputs_of("gb200-hall")  # 72 backend ports per NVL72 rack: more than half of any radix
    df = compare.compare(gb200, chosen=[Variant("ib-nb", "mor", "cx7")], jobs=1)
    r = row(df, "ib-nb/mor/cx7")
    assert "middle-of-rack" in r["error"]
    assert pd.isna(r["tiers"]) and pd.isna(r["cost_total_usd"])


def test_the_sites_own_variant_shows_the_summarys_copper_share_and_switches(
    superpod: Any, table: pd.DataFrame, design_of: Any
) -> None:
    """compare, summary.json and the report share one copper share and one switch count: the variant
    that is the site itself (QM9700, rail, CX-7) shows the figures of the site's own design."""
    s = design_of("superpod-4su").summary()
    own = row(table, "ib-nb/rail/cx7")
    assert own["copper_share_pct"] == s["copper_share_pct"]
    assert (own["switches_backend"], own["switches_all"]) == (
        s["switches"]["total"],
        s["switches_all_networks"],
    )
