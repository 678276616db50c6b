"""How often a large training job is interrupted by a link, and what each interruption costs.

Failures are modelled as independent and exponential (constant rate), so the rates of all links add up
and the time to the first failure of any of them is 1 / (sum of rates). Seed 000's figures: 100,000
node-side optical links with a 5-year MTBF each fail, somewhere, every 26.28 minutes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

MINUTES_PER_YEAR = 365 * 24 * 60  # 525,600: seed 000 uses 5 years = 2,628,000 minutes
SECONDS_PER_DAY = 86_400


def time_to_first_failure_min(link_mtbf_years: float | ArrayLike, links: int | ArrayLike) -> float:
    """Mean minutes until the first of ``links`` links fails.

    Scalars: one population, ``MTBF in minutes / links``. Arrays (aligned, one entry per population,
    e.g. per medium): ``1 / sum(count / mtbf)``. No links at all: ``math.inf``.
    """
    mtbf = np.asarray(link_mtbf_years, dtype=float)
    count = np.asarray(links, dtype=float)
    if np.any(mtbf <= 0) or not np.all(np.isfinite(mtbf)):
        raise ValueError(f"link MTBF must be a positive number of years, got {link_mtbf_years!r}")
    if np.any(count < 0):
        raise ValueError(f"link counts must not be negative, got {links!r}")
    rate_per_year = float(np.sum(np.broadcast_to(count, np.broadcast_shapes(count.shape, mtbf.shape)) / mtbf))
    if rate_per_year == 0:
        return math.inf
    return MINUTES_PER_YEAR / rate_per_year


@dataclass(frozen=True)
class CheckpointLoss:
    """GPU time lost per failure: restart from the last checkpoint vs in-memory (RDMA) recovery."""

    gpus: int
    restart_gpu_days: float  # failure at the last step before a checkpoint: (N - 1) steps redone
    in_memory_step_gpu_days: float  # the one step in flight is redone
    in_memory_copy_gpu_days: float  # every GPU waits while its HBM state is copied back over its link
    copy_s: float  # hbm_gb at link_gbps

    @property
    def in_memory_gpu_days(self) -> float:
        return self.in_memory_step_gpu_days + self.in_memory_copy_gpu_days

    @property
    def saved_gpu_days(self) -> float:
        return self.restart_gpu_days - self.in_memory_gpu_days

    @property
    def restart_expected_gpu_days(self) -> float:
        """Expected loss of a restart: a failure is as likely after any of the N steps between two
        checkpoints (0 .. N - 1 steps redone), so on average half the worst case."""
        return self.restart_gpu_days / 2

    @property
    def in_memory_expected_gpu_days(self) -> float:
        """In-memory recovery redoes the step in flight and copies the state back whenever the failure
        comes: its expected loss is its worst case."""
        return self.in_memory_gpu_days


def checkpoint_loss(
    gpus: int, step_s: float, checkpoint_every_steps: int, hbm_gb: float, link_gbps: float
) -> CheckpointLoss:
    """Seed 000: 100,000 GPUs, 2 s/step, checkpoint every 100 steps -> 229 GPU-days lost restarting,
    against 2.3 GPU-days (one step) + 1.85 GPU-days (80 GB copied at 400 Gb/s = 1.6 s) in memory."""
    if gpus <= 0 or step_s <= 0 or checkpoint_every_steps < 1 or hbm_gb < 0 or link_gbps <= 0:
        raise ValueError("gpus, step_s, link_gbps must be positive, checkpoint_every_steps >= 1, hbm_gb >= 0")
    copy_s = hbm_gb * 8 / link_gbps
    return CheckpointLoss(
        gpus=gpus,
        restart_gpu_days=gpus * (checkpoint_every_steps - 1) * step_s / SECONDS_PER_DAY,
        in_memory_step_gpu_days=gpus * step_s / SECONDS_PER_DAY,
        in_memory_copy_gpu_days=gpus * copy_s / SECONDS_PER_DAY,
        copy_s=copy_s,
    )
