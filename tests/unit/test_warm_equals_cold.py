"""A design run with a memo kept across edits equals a run without one, after any random edits of any
site field, on every shipped site (Hypothesis draws the edits).

This is the one property every memo of the pipeline has to keep: what a front end keeps between runs
(layout/memo.py) may make a run faster, never different. It checks the whole design (every table,
array and figure: conftest.assert_same_design), not the keys of any one store.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layout import design as design_mod
from layout.errors import InputError
from layout.load import load_site, read_toml, site_from_data
from layout.memo import Memo

ROOT = Path(__file__).resolve().parents[2]
SITES = sorted((ROOT / "sites").glob("*.toml"))
EDITS_PER_EXAMPLE = 3

# an edit: (where, key, value); where is "hall" (a hall chosen by number), "building", "cluster",
# "site", "training" or "tray"
HALL_EDITS = st.one_of(
    st.tuples(st.just("max_rack_kw"), st.sampled_from([20.0, 30.0, 41.3, 45.0, 60.0, 132.0, 140.0])),
    st.tuples(st.just("cooling"), st.sampled_from(["air", "rear_door", "liquid"])),
    st.tuples(st.just("it_mw"), st.sampled_from([None, 0.5, 2.0, 5.0, 20.0, 80.0])),
    st.tuples(st.just("cooling_mw"), st.sampled_from([None, 1.0, 10.0, 100.0])),
    st.tuples(st.just("floor_load_kg_m2"), st.sampled_from([600.0, 1200.0, 2000.0])),
    st.tuples(st.just("row_axis"), st.sampled_from(["x", "y"])),
    st.tuples(st.just("hot_aisle_m"), st.sampled_from([1.0, 1.2, 1.5])),
    st.tuples(st.just("max_row_racks"), st.sampled_from([8, 12, 20])),
)
CLUSTER_EDITS = st.one_of(
    st.tuples(st.just("design"), st.sampled_from(["rail", "mor"])),
    st.tuples(st.just("nic"), st.sampled_from(["cx7", "cedar7"])),
    st.tuples(st.just("link_mtbf_years"), st.sampled_from([3.0, 5.0, 8.0])),
    st.tuples(st.just("gpus_factor"), st.sampled_from([0.5, 1.0])),
)
SITE_EDITS = st.one_of(
    st.tuples(st.just("pue"), st.sampled_from([1.1, 1.35, 1.5])),
    st.tuples(st.just("electricity_usd_per_kwh"), st.sampled_from([0.05, 0.078, 0.12])),
)
EDIT = st.one_of(
    st.tuples(st.just("hall"), st.integers(0, 15), HALL_EDITS),
    st.tuples(st.just("cluster"), st.just(0), CLUSTER_EDITS),
    st.tuples(st.just("site"), st.just(0), SITE_EDITS),
)


def _apply(data: dict[str, Any], edit: tuple[str, int, tuple[str, Any]]) -> None:
    where, which, (key, value) = edit
    if where == "hall":
        halls = [h for b in data.get("building", []) for h in b.get("hall", [])]
        hall = halls[which % len(halls)]
        if value is None:
            hall.pop(key, None)
        else:
            hall[key] = value
    elif where == "cluster":
        cluster = data["cluster"]
        if key == "gpus_factor":
            cluster["gpus"] = max(int(cluster["gpus"] * value) // 1024 * 1024, 1024)
        else:
            cluster[key] = value
    else:
        data.setdefault("site", {})[key] = value


@pytest.mark.parametrize("site", SITES, ids=[s.stem for s in SITES])
def test_a_warm_run_equals_a_cold_one_after_random_edits(site: Path, same_design: Any) -> None:
    base = load_site(site)
    raw = read_toml(site)
    examples = 3 if site.stem == "campus-100k" else 8

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(st.lists(EDIT, min_size=1, max_size=EDITS_PER_EXAMPLE))
    def check(edits: list[tuple[str, int, tuple[str, Any]]]) -> None:
        cache = Memo()
        design_mod.run(base, memo=cache)  # warm it on the site as it is
        data = copy.deepcopy(raw)
        for edit in edits:
            _apply(data, edit)
            try:
                inputs = site_from_data(
                    copy.deepcopy(data), base.path, base.catalog, base.templates, base.templates_dir
                )
                cold = design_mod.run(inputs)
            except InputError:
                continue  # an edit the site refuses: validate says so, nothing is designed
            warm = design_mod.run(inputs, memo=cache)
            same_design(warm, cold)

    check()
