"""The inspector's per-link arrays (Result.link_codes, made in the design worker from the categorical
columns' codes) name the same kind, medium class and problem for every link as the links table's text."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from layout.load import Inputs
from layout.tui.session import compute


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
