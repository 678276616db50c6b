"""The port map's memo across runs (``ports.finish(earlier=...)``, ``PortMap.module_rows(earlier)``): a
run takes an earlier run's values for every cage-sharing component (every device) whose inputs are
bitwise the same and gives exactly what a run without it gives; a port map or module rows of another
skeleton are never used."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd
import pytest

from layout.cable import ports
from layout.cable.cages import skeleton
from layout.cable.media import MediaTable
from layout.load import load_catalog

CAT = load_catalog()
MT = MediaTable.of(CAT)
FIELDS = ("code", "stock_basis_m", "medium_for_m", "assembly", "changed")


@pytest.fixture(scope="module", params=["gb200-hall", "superpod-4su"])
def hall(request: pytest.FixtureRequest, design_of: Any) -> Any:
    """A designed shipped site and what its port map is finished from."""
    d = design_of(request.param)
    c = d.cabling
    code = np.where(c.links["media"].cat.codes.to_numpy() < len(MT.ids), c.links["media"].cat.codes, -1)
    sk = skeleton(d.fabric.devices, d.fabric.links, CAT, d.fabric.nic)
    length = c.links["length_m"].to_numpy(float)
    return d, sk, code.astype(np.int64), length


def _finish(d: Any, sk: Any, code: np.ndarray, length: np.ndarray, earlier: Any = None) -> ports.PortMap:
    c = d.cabling
    ra, rb = c.links["rack_a"].to_numpy(), c.links["rack_b"].to_numpy()
    return ports.finish(sk, d.fabric.devices, code, length, ra, rb, MT, earlier=earlier)


def _assert_same(a: ports.PortMap, b: ports.PortMap) -> None:
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        assert np.array_equal(x, y, equal_nan=True) if isinstance(x, np.ndarray) else x == y, f


def _moved(code: np.ndarray, length: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Some links longer (copper ones past copper's reach), some without a medium."""
    rng = np.random.default_rng(seed)
    length2, code2 = length.copy(), code.copy()
    some = rng.choice(len(length), max(len(length) // 7, 3), replace=False)
    length2[some] = np.round(length2[some] + rng.uniform(1.0, 60.0, len(some)), 6)
    code2[some] = MT.pick(length2[some], 400)
    code2[some[:2]] = -1
    return code2, length2


def test_finish_with_an_earlier_port_map_equals_a_fresh_finish(hall: Any) -> None:
    d, sk, code, length = hall
    first = _finish(d, sk, code, length)
    for seed in range(3):
        code2, length2 = _moved(code, length, seed)
        warm = _finish(d, sk, code2, length2, earlier=first)
        cold = _finish(d, sk, code2, length2)
        _assert_same(warm, cold)
        assert not np.array_equal(cold.code, first.code) or not np.array_equal(
            cold.medium_for_m, first.medium_for_m, equal_nan=True
        )
        first = warm  # a chain of edits, each against the one before
    _assert_same(_finish(d, sk, code, length, earlier=first), _finish(d, sk, code, length))


def test_finish_takes_the_earlier_values_of_the_components_it_did_not_change(hall: Any) -> None:
    d, sk, code, length = hall
    first = _finish(d, sk, code, length)
    # a marked earlier port map: where nothing changed, the mark shows through (taken, not recomputed)
    marked = dataclasses.replace(first, medium_for_m=np.full(len(code), 123.0))
    got = _finish(d, sk, code, length, earlier=marked)
    assert (got.medium_for_m == 123.0).all()
    code2, length2 = _moved(code, length, 5)
    got = _finish(d, sk, code2, length2, earlier=marked)
    moved = (code2 != code) | (length2 != length)
    assert (got.medium_for_m[moved] != 123.0).all() and (got.medium_for_m == 123.0).any()


def test_a_port_map_of_another_skeleton_is_not_used(hall: Any) -> None:
    d, sk, code, length = hall
    other = skeleton(d.fabric.devices, d.fabric.links, CAT, d.fabric.nic)  # equal, not the same
    first = _finish(d, other, code, length)
    marked = dataclasses.replace(first, medium_for_m=np.full(len(code), 123.0))
    _assert_same(_finish(d, sk, code, length, earlier=marked), _finish(d, sk, code, length))
    wrong_len = dataclasses.replace(
        _finish(d, sk, code, length), finish_of=(code[:-1].copy(), length[:-1].copy())
    )
    _assert_same(_finish(d, sk, code, length, earlier=wrong_len), _finish(d, sk, code, length))


def test_module_rows_with_earlier_rows_equal_fresh_rows(hall: Any) -> None:
    d, sk, code, length = hall
    devices, links = d.fabric.devices, d.fabric.links
    first = _finish(d, sk, code, length)
    rows = first.module_rows(MT)
    pd.testing.assert_frame_equal(rows.table(devices, MT), first.modules(devices, links, MT))
    for seed in range(3):
        code2, length2 = _moved(code, length, seed)
        pm = _finish(d, sk, code2, length2)
        warm = pm.module_rows(MT, rows)
        cold = pm.module_rows(MT)
        for f in ("med", "key", "links", "modules"):
            assert np.array_equal(getattr(warm, f), getattr(cold, f)), f
        pd.testing.assert_frame_equal(warm.table(devices, MT), pm.modules(devices, links, MT))
        rows = warm


def test_module_rows_take_the_earlier_rows_of_unchanged_devices_only(hall: Any) -> None:
    d, sk, code, length = hall
    pm = _finish(d, sk, code, length)
    rows = pm.module_rows(MT)
    assert len(rows.key) > 1
    marked = dataclasses.replace(rows, links=rows.links + 1000)
    assert np.array_equal(pm.module_rows(MT, marked).links, marked.links)  # nothing changed: taken
    other = skeleton(d.fabric.devices, d.fabric.links, CAT, d.fabric.nic)
    foreign = dataclasses.replace(marked, parts=other.cage_parts)
    assert np.array_equal(pm.module_rows(MT, foreign).links, rows.links)  # another skeleton's: not used
    # one device's cages lose their medium: the devices of every cage that changed (its own, and the far
    # ends' cages led by the same links) are counted again, the others' rows taken
    cp = pm.cage_parts
    dev0 = int(cp.dev[0])
    code2 = pm.code.copy()
    code2[cp.link[cp.dev == dev0]] = -1
    pm2 = dataclasses.replace(pm, code=code2)
    redone = np.unique(cp.dev[code2[cp.link] != pm.code[cp.link]])
    got = pm2.module_rows(MT, marked)
    row_dev = got.key // cp.span // got.media_k
    again = np.isin(row_dev, redone)
    assert again.any() or dev0 in redone
    assert (got.links[~again] >= 1000).all() and (got.links[again] < 1000).all()
    assert not (row_dev == dev0).any()  # its cages hold no medium now: no module rows
    assert np.array_equal(got.key, pm2.module_rows(MT).key)
