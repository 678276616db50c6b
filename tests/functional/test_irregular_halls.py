"""Issue 27 item 4: placement that uses the floor it is given. An L-shaped hall (a 16 m wide west leg
and a 44 x 16 m wing along the south wall) with 512 DGX B200 GPUs: 32 GPU racks, 3 leaf racks and a
spine. The placer used to centre its row lines in the hall, i.e. in the narrow leg: rows of 14 and 16
racks there, one GPU rack split off into a row of its own, the spine rack alone in a row, the wing
empty."""

from __future__ import annotations

from pathlib import Path

import pytest

from layout import design
from layout.load import load_site

ROOT = Path(__file__).resolve().parents[2]


def l_shaped_site(tmp_path: Path) -> Path:
    text = (ROOT / "sites" / "b200-quantum-x800.toml").read_text(encoding="utf-8")
    for old, new in (
        (
            "footprint = [[0, 0], [70, 0], [70, 44], [0, 44]]",
            "footprint = [[0, 0], [64, 0], [64, 62], [0, 62]]",
        ),
        ("entry = [0, 22]", "entry = [0, 30]"),
        (
            "polygon = [[2, 2], [68, 2], [68, 42], [2, 42]]",
            "polygon = [[2, 2], [62, 2], [62, 18], [18, 18], [18, 60], [2, 60]]",
        ),
        (
            "columns = [{ at = [23.0, 22.0], size_m = [0.6, 0.6] }, { at = [46.0, 22.0], size_m = [0.6, 0.6] }]",
            "",
        ),
        (
            'keepouts = [{ polygon = [[58, 34], [68, 34], [68, 42], [58, 42]], reason = "electrical room" }]',
            "",
        ),
        ("gpus = 2048", "gpus = 512"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    site = tmp_path / "l-hall.toml"
    site.write_text(text, encoding="utf-8")
    return site


@pytest.fixture(scope="module")
def l_hall(tmp_path_factory: pytest.TempPathFactory) -> design.Design:
    return design.run(load_site(l_shaped_site(tmp_path_factory.mktemp("l"))))


def test_an_l_shaped_hall_fills_its_wing_in_whole_rows(l_hall: design.Design) -> None:
    d = l_hall
    assert d.violations == () and d.placement.racks_missing == 0
    racks = d.placement.racks
    gpu = racks[racks["kind"] == "gpu"]
    assert len(gpu) == 32
    # every GPU rack in the wing (y 2..18), none in the leg above it
    assert (gpu["y_m"] + gpu["depth_m"] / 2 <= 18.0).all()
    # two rows of 16 GPU racks with their leaf racks: the SU laid evenly over two rows
    per_row = gpu.groupby("row").size()
    assert sorted(per_row.tolist()) == [16, 16]
    # no row of one or two racks: the spine rack joins a GPU row that has room
    sizes = racks.groupby("row").size()
    assert sizes.min() >= 3, sizes.to_dict()
    spine_row = racks.loc[racks["kind"] == "spine", "row"].iat[0]
    assert set(racks.loc[racks["row"] == spine_row, "kind"]) >= {"gpu", "spine"}
    # every row within max_row_racks
    assert sizes.max() <= d.inputs.site.building[0].hall[0].max_row_racks


def test_the_empty_part_of_the_hall_is_unused_not_stranded_by_space(l_hall: design.Design) -> None:
    """The hall was given more power than its 36 racks draw, and every rack found floor: what is left
    is unused (the cluster needs no more), not stranded by space (the PDF said "space" for the 2.27 MW
    of a hall that was mostly empty)."""
    (h,) = l_hall.chain.halls.to_dict("records")
    assert h["stranded_mw"] > 1.0
    assert h["stranded_space_mw"] == 0.0
    assert h["unused_mw"] + h["stranded_cooling_mw"] == pytest.approx(h["stranded_mw"], abs=1e-3)
