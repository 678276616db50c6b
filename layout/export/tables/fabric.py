"""``write_fabric_csv(fabric, out_dir)``: ``fabric-devices.csv`` (one row per device: server, switch;
tier 0 servers, 1 leaf, 2 spine, 3 core, 4 super) and ``fabric-links.csv`` (one row per link, its two
ends by device id) of `dclayout fabric --csv DIR`, for checking the fabric with other tools.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from layout.export.atomic import atomic_path
from layout.export.tables.csv import csv_bytes

if TYPE_CHECKING:
    from layout.fabric import Fabric


FABRIC_DEVICE_COLUMNS = [
    "device_id",
    "role",
    "tier",
    "network",
    "pod",
    "group",
    "model",
    "su",
    "rail",
    "index",
    "ports_used",
    "planes",
]
FABRIC_LINK_COLUMNS = ["a_device", "b_device", "kind", "network", "speed_gbps", "pod"]


def fabric_tables(fabric: Fabric) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The fabric's devices and links with the two ends of a link named by device id."""
    dev = fabric.devices[FABRIC_DEVICE_COLUMNS]
    ids = dev["device_id"].to_numpy()
    lk = fabric.links
    links = pd.DataFrame(
        {
            "a_device": ids[lk["a"].to_numpy()],
            "b_device": ids[lk["b"].to_numpy()],
            "kind": lk["kind"].astype(str),
            "network": lk["network"].astype(str),
            "speed_gbps": lk["speed_gbps"],
            "pod": lk["pod"],
        }
    )
    return dev, links


def write_fabric_csv(fabric: Fabric, out_dir: str | Path) -> list[Path]:
    """``fabric-devices.csv`` and ``fabric-links.csv`` in ``out_dir``; each written to a temporary
    file first and both replaced only once both are written (a failure leaves neither)."""
    out = Path(out_dir)
    dev, links = fabric_tables(fabric)
    paths = [out / "fabric-devices.csv", out / "fabric-links.csv"]
    with atomic_path(paths[0]) as tmp_dev, atomic_path(paths[1]) as tmp_links:
        tmp_dev.write_bytes(csv_bytes(dev))
        tmp_links.write_bytes(csv_bytes(links))
    return paths
