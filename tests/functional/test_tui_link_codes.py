"""The inspector's per-link arrays (Result.link_codes, made in the design worker from the categorical
columns' codes) name the same kind, medium class and problem for every link as the links table's text;
a design that re-cables nothing takes them from the design before."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from layout.load import Inputs
from layout.siteedit import SetHall
from layout.tui.session import Session, compute

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("site", ["seed002-32k", "too-small"])
def test_link_codes_read_back_as_the_links_tables_kind_medium_and_status(
    site: str, inputs_of: Callable[[str], Inputs], make_inputs: Callable[..., Inputs]
) -> None:
    # too-small: half the racks do not fit, their links are unplaced (status not ok)
    inputs = make_inputs({"cluster": {"gpus": 1024}}) if site == "too-small" else inputs_of(site)
    result = compute(inputs, "")
    links = result.design.cabling.links
    kind, kind_names, media, media_names, bad = result.link_codes
    assert np.array_equal(np.asarray(kind_names)[kind], links["kind"].astype(str).to_numpy())
    media_text = links["media_class"].astype(str).replace({"": "none"}).to_numpy()
    assert np.array_equal(np.asarray(media_names)[media], media_text)
    assert np.array_equal(bad, links["status"].astype(str).to_numpy() != "ok")
    if site == "too-small":
        assert 0 < bad.sum() < len(links)


def test_a_design_that_recables_nothing_takes_the_inspector_indexes_of_the_one_before(tmp_path: Path) -> None:
    site = tmp_path / "superpod-4su.toml"
    shutil.copy(ROOT / "sites" / "superpod-4su.toml", site)
    session = Session()
    session.open(site)
    first = session.design()
    hall = session.halls()[0]
    assert session.apply(SetHall(hall, "cooling", "liquid"))
    cooled = session.design()
    assert cooled.design.cabling is first.design.cabling
    assert cooled.link_codes is first.link_codes and cooled.device_arrays is first.device_arrays
    assert session.apply(SetHall(hall, "max_rack_kw", 15.0))  # another GPU rack: re-cabled
    low = session.design()
    assert low.design.cabling is not first.design.cabling and low.link_codes is not first.link_codes
    assert low.device_arrays is first.device_arrays  # the same fabric
    cold = compute(session.inputs, session.text)
    for mine, theirs in zip(low.link_codes, cold.link_codes, strict=True):
        assert np.array_equal(np.asarray(mine), np.asarray(theirs))
    rack = int(np.flatnonzero(low.racks["kind"].to_numpy() == "network")[0])
    assert np.array_equal(low.rack_links(rack), cold.rack_links(rack))


def test_a_racks_links_are_the_rows_with_an_end_in_it_ascending() -> None:
    from layout.tui.results import Result

    # links 0..5: rack pairs (a, b); -1 is an end in no rack
    a = np.array([2, 0, 1, 2, -1, 3])
    b = np.array([0, 2, 1, -1, 2, 3])
    r = Result(text="", design=None, bom=None, cost={}, seconds=0.0, link_rack_a=a, link_rack_b=b,  # type: ignore[arg-type]
               link_length_m=np.zeros(6))  # fmt: skip
    assert r.rack_links(2).tolist() == [0, 1, 3, 4]  # once each, a link within the rack too
    assert r.rack_links(1).tolist() == [2] and r.rack_links(3).tolist() == [5]
    assert r.rack_links(4).tolist() == []
