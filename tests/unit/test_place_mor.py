"""Middle-of-rack keeps each leaf's racks side by side in one row: every GPU-leaf link is an in-rack or
adjacent-rack copper jumper, never a run along the trays, on a small site whose rows end mid-pair and on
every shipped site switched to middle-of-rack."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from layout import design
from layout.errors import InputError
from layout.load import Inputs


def mor(inputs: Inputs, **cluster: Any) -> Inputs:
    c = inputs.site.cluster.model_copy(update={"design": "mor", **cluster})
    return dataclasses.replace(inputs, site=inputs.site.model_copy(update={"cluster": c}))


def check_pairs(d: Any) -> int:
    """Every backend leaf's servers are in its own rack or the one beside it in the same row; its GPU
    links are copper jumpers; no node-side optics. Returns the number of GPU-leaf links."""
    links, racks = d.cabling.links, d.placement.racks
    gpu = links[links["kind"] == "gpu_leaf"]
    assert len(gpu) > 0
    assert gpu["route"].astype(str).isin(["rack", "adjacent"]).all()
    assert gpu["media_class"].astype(str).isin(["dac", "aec"]).all()
    assert d.cabling.node_optics() == 0
    # independently of the router: the two racks of each link are one rack or neighbours in one row
    ra, rb = gpu["rack_a"].to_numpy(), gpu["rack_b"].to_numpy()
    row, pos = racks["row"].to_numpy(), racks["pos"].to_numpy()
    assert ((ra == rb) | ((row[ra] == row[rb]) & (np.abs(pos[ra] - pos[rb]) == 1))).all()
    return len(gpu)


def test_rows_that_end_mid_pair_push_the_pair_to_the_next_row(make_inputs: Callable[..., Inputs]) -> None:
    # SN5600 leaves serve 64 GPUs: 8 DGX, a pair of 4-server racks; 512 GPUs make 8 pairs and rows hold 5
    # racks, so a row ends in the middle of a pair (the old placer split 2 pairs: 64 GPU links on trays)
    inputs = make_inputs({"cluster": {"design": "mor", "gpus": 512, "switch": "sn5600"},
                          "building": {0: {"footprint": [[0, 0], [60, 0], [60, 30], [0, 30]],
                                           "hall": {0: {"max_row_racks": 5,
                                                        "polygon": [[0, 0], [30, 0], [30, 14], [0, 14]]}}}}})  # fmt: skip
    d = design.run(inputs)
    racks = d.placement.racks
    assert d.placement.racks_missing == 0 and len(racks) == 17  # 16 GPU racks + 1 spine rack
    per_row = racks.groupby("row").size()
    assert per_row.max() <= 5 and (per_row < 5).any()  # a row left a place free rather than split a pair
    assert check_pairs(d) == 512


@pytest.mark.slow
@pytest.mark.parametrize(
    ("stem", "switch"),
    [("campus-100k", None), ("campus-100k", "sn5600"), ("seed002-32k", None), ("superpod-4su", None),
     ("gb200-hall", None)],
)  # fmt: skip
def test_every_shipped_site_switched_to_middle_of_rack(
    inputs_of: Callable[[str], Inputs], stem: str, switch: str | None
) -> None:
    inputs = mor(inputs_of(stem), **({"switch": switch} if switch else {}))
    try:
        d = design.run(inputs)
    except InputError as e:  # a 72-port NVL72 rack needs a leaf of at least 144 ports
        assert stem == "gb200-hall" and switch is None and "middle-of-rack" in str(e)
        return
    assert d.placement.racks_missing == 0
    servers = int((d.fabric.devices["role"] == "server").sum())
    assert check_pairs(d) == servers * inputs.catalog.server[inputs.site.cluster.server].backend_ports


@pytest.mark.parametrize("layout", ["rail", "mor"])
@pytest.mark.parametrize("stem", ["superpod-4su", "seed002-32k"])
def test_an_su_blocks_kw_alone_is_its_blocks_kw_and_builds_no_block(
    stem: str, layout: str, inputs_of: Callable[[str], Inputs]
) -> None:
    from layout.place.groups import RackGroups
    from layout.place.templates import GpuRack, gpu_racks

    inputs = inputs_of(stem) if layout == "rail" else mor(inputs_of(stem))
    fabric = design.build_fabric(inputs)
    first = next(iter(gpu_racks(inputs).values()))
    # the hall's GPU rack, and the same template with fewer servers a rack (a lower max kW)
    racks = [first, GpuRack(first.template, max(first.servers // 2, 1), first.est_kw / 2, True)]
    alone, built = RackGroups(inputs, fabric), RackGroups(inputs, fabric)
    n_su = len(built.devices.su_servers)
    assert n_su > 0
    for gpu in racks:
        for su in range(n_su):
            kw = alone.block_kw(su, gpu)
            assert kw == built.block(su, gpu).kw  # the very same float
            assert kw > 0
    assert not alone._blocks  # kW alone: no block (and no rack item) was built for it
