"""The cabling's per-link memo (memo.pick_again / stock_again): a run takes an earlier run's medium and
stock length for every link whose own inputs are bitwise the same, and gives what a fresh pick gives."""

from __future__ import annotations

import handbuilt as hb
import numpy as np

from layout.cable.media import MediaTable
from layout.cable.memo import ElementMemo, pick_again, stock_again


def _table() -> MediaTable:
    return MediaTable.of(hb.site("one-row").catalog)


def test_pick_again_equals_a_fresh_pick_after_some_links_change() -> None:
    mt = _table()
    rng = np.random.default_rng(7)
    length = np.round(rng.uniform(0.5, 2500.0, 5000), 6)
    length[::97] = np.nan  # links without a route
    speed = np.where(rng.random(5000) < 0.2, 800, 400).astype(np.int64)
    first = mt.pick(length, speed)
    memo = ElementMemo((length.copy(), speed.copy()), first.copy())
    moved = length.copy()
    moved[::5] = np.round(rng.uniform(0.5, 2500.0, len(moved[::5])), 6)
    got = pick_again(mt, moved, speed, memo)
    assert np.array_equal(got, mt.pick(moved, speed))
    assert not np.array_equal(got, first)  # the moved links were priced again, not taken
    assert np.array_equal(pick_again(mt, length, speed, memo), first)


def test_a_link_whose_speed_changed_is_picked_again() -> None:
    mt = _table()
    length = np.array([3.0, 3.0, 50.0])
    speed = np.array([400, 400, 400], dtype=np.int64)
    memo = ElementMemo((length, speed), mt.pick(length, speed))
    slower = np.array([400, 1, 400], dtype=np.int64)  # 1 Gb/s: another medium than 400G at 3 m
    got = pick_again(mt, length, slower, memo)
    assert got[1] != memo.output[1] and np.array_equal(got, mt.pick(length, slower))


def test_a_memo_of_other_links_is_not_used() -> None:
    mt = _table()
    length = np.array([3.0, 50.0])
    speed = np.array([400, 400], dtype=np.int64)
    wrong = ElementMemo((np.array([3.0]), np.array([400], dtype=np.int64)), np.array([99]))
    assert np.array_equal(pick_again(mt, length, speed, wrong), mt.pick(length, speed))


def test_stock_again_equals_a_fresh_stock_length() -> None:
    mt = _table()
    basis = np.array([2.0, 7.5, 40.0, np.nan, 600.0])
    code = mt.pick(basis, 400)
    memo = ElementMemo((basis.copy(), code.copy()), mt.stock_length(basis, code))
    basis2 = basis.copy()
    basis2[1] = 9.0
    code2 = code.copy()
    code2[2] = (code[2] + 1) % len(mt.ids)  # the cage sharing gave it another medium
    got = stock_again(mt, basis2, code2, memo)
    assert np.array_equal(got, mt.stock_length(basis2, code2), equal_nan=True)
    assert not np.array_equal(got, memo.output, equal_nan=True)


def test_cable_counts_again_equal_a_fresh_count_after_some_links_change() -> None:
    from layout.cable.media import cable_counts_again

    mt = _table()
    rng = np.random.default_rng(3)
    length = np.round(rng.uniform(0.5, 900.0, 4000), 6)
    code = mt.pick(length, 400)
    code[::50] = -1  # links without a medium are not counted
    stock = mt.stock_length(length, code)
    first = cable_counts_again(code, stock, None)
    assert first.counts.sum() == (code >= 0).sum()
    code2, length2 = code.copy(), length.copy()
    length2[::3] = np.round(rng.uniform(0.5, 900.0, len(length2[::3])), 6)
    code2[::3] = mt.pick(length2[::3], 400)
    code2[1::40] = -1
    stock2 = mt.stock_length(length2, code2)
    warm = cable_counts_again(code2, stock2, first)
    cold = cable_counts_again(code2, stock2, None)
    assert np.array_equal(warm.keys, cold.keys) and np.array_equal(warm.counts, cold.counts)
    assert warm.counts.dtype == cold.counts.dtype == np.int64 and (warm.counts > 0).all()
    assert not np.array_equal(warm.counts, first.counts[: len(warm.counts)]) or len(warm.keys) != len(
        first.keys
    )
    # nothing changed: the earlier counts themselves; other links (another length): counted afresh
    assert cable_counts_again(code, stock, first).counts is first.counts
    short = cable_counts_again(code2[:-1], stock2[:-1], first)
    again = cable_counts_again(code2[:-1], stock2[:-1], None)
    assert np.array_equal(short.keys, again.keys) and np.array_equal(short.counts, again.counts)
