"""Time to first failure and checkpoint loss: seed 000's figures and hand-computed cases."""

from __future__ import annotations

import math

import pytest

from layout.reliability import MINUTES_PER_YEAR, checkpoint_loss, time_to_first_failure_min


def test_seed_figures_time_to_first_failure() -> None:
    assert round(time_to_first_failure_min(5.0, 100_000), 2) == 26.28  # 2,628,000 min / 100,000 links
    assert round(time_to_first_failure_min(4.0, 50_000), 2) == 42.05  # Cedar-7: 2,102,400 min / 50,000


def test_populations_add_their_failure_rates() -> None:
    # 1,000 links at 5 years and 1,000 at 20 years: rate 200 + 50 = 250 per year
    assert time_to_first_failure_min([5.0, 20.0], [1000, 1000]) == pytest.approx(MINUTES_PER_YEAR / 250)
    # the same population split in two gives the same answer as one
    assert time_to_first_failure_min([5.0, 5.0], [60_000, 40_000]) == pytest.approx(
        time_to_first_failure_min(5.0, 100_000)
    )
    assert time_to_first_failure_min(5.0, 0) == math.inf
    assert time_to_first_failure_min([5.0, 10.0], [0, 0]) == math.inf


def test_bad_reliability_input() -> None:
    with pytest.raises(ValueError, match="positive number of years"):
        time_to_first_failure_min(0.0, 10)
    with pytest.raises(ValueError, match="must not be negative"):
        time_to_first_failure_min(5.0, -1)


def test_seed_checkpoint_figures() -> None:
    loss = checkpoint_loss(gpus=100_000, step_s=2.0, checkpoint_every_steps=100, hbm_gb=80, link_gbps=400)
    assert round(loss.restart_gpu_days) == 229  # 100,000 x 99 x 2 s
    assert round(loss.in_memory_step_gpu_days, 1) == 2.3
    assert loss.copy_s == pytest.approx(1.6)  # 80 GB at 400 Gb/s
    assert round(loss.in_memory_copy_gpu_days, 2) == 1.85
    assert loss.in_memory_gpu_days == pytest.approx(
        loss.in_memory_step_gpu_days + loss.in_memory_copy_gpu_days
    )
    assert loss.saved_gpu_days == pytest.approx(loss.restart_gpu_days - loss.in_memory_gpu_days)
    # expected: a failure equally likely after any of the 100 steps, 0..99 redone: 49.5 steps on average
    assert loss.restart_expected_gpu_days == pytest.approx(100_000 * 49.5 * 2 / 86_400)
    assert loss.in_memory_expected_gpu_days == loss.in_memory_gpu_days  # one step + the copy, always


def test_checkpoint_every_step_loses_nothing_by_restarting() -> None:
    loss = checkpoint_loss(gpus=8, step_s=1.0, checkpoint_every_steps=1, hbm_gb=0, link_gbps=400)
    assert loss.restart_gpu_days == 0 and loss.in_memory_copy_gpu_days == 0
    assert loss.in_memory_step_gpu_days == pytest.approx(8 / 86_400)
    with pytest.raises(ValueError):
        checkpoint_loss(gpus=0, step_s=1.0, checkpoint_every_steps=1, hbm_gb=0, link_gbps=400)
