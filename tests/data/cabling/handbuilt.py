"""Hand-built placement and fabric tables for the cabling tests (columns exactly as docs/tables.md).

Racks are given as (rack_id, x_m, y_m) plus width/depth; the rows table is derived from the racks the
way docs/tables.md defines it (centre line from the first rack's end to the last rack's end).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from layout.load import Inputs, load_site
from layout.place.free_floor import empty_free

HERE = Path(__file__).resolve().parent


def rack_record(
    rid: str, template: str, kind: str, x: float, y: float, rot: float, width: float, servers: int
) -> dict[str, Any]:
    """One row of placement.racks (docs/tables.md) for the drawing tests: rack ``B1/H1/R01/K05`` at
    (x, y) centre, ``rot`` degrees, ``width`` metres wide, 1.2 m deep."""
    b, h, r, _k = rid.split("/")
    return {
        "rack_id": rid, "building": b, "hall": f"{b}/{h}", "row": f"{b}/{h}/{r}", "pos": int(rid[-2:]),
        "template": template, "kind": kind, "x_m": x, "y_m": y, "rotation_deg": rot, "width_m": width,
        "depth_m": 1.2, "user_row": False, "servers": servers,
    }  # fmt: skip


def site(name: str) -> Inputs:
    return load_site(HERE / f"{name}.toml")


def racks_table(
    specs: list[tuple[str, float, float]],
    width_m: float = 0.6,
    depth_m: float = 1.2,
    template: str = "dgx-h100-x4",
    kind: str = "gpu",
    axis: str = "x",
) -> pd.DataFrame:
    """specs: (rack_id ``B1/H1/R01/K03``, x_m, y_m) of each rack centre."""
    rows = []
    for rid, x, y in specs:
        b, h, r, k = rid.split("/")
        rows.append(
            {
                "rack_id": rid,
                "building": b,
                "hall": f"{b}/{h}",
                "row": f"{b}/{h}/{r}",
                "pos": int(k[1:]),
                "template": template,
                "kind": kind,
                "x_m": float(x),
                "y_m": float(y),
                "rotation_deg": 0.0 if axis == "x" else 90.0,
                "width_m": width_m,
                "depth_m": depth_m,
                "user_row": False,
            }
        )
    return pd.DataFrame(rows).sort_values("rack_id", kind="stable").reset_index(drop=True)


def rows_table(racks: pd.DataFrame, axis: str = "x") -> pd.DataFrame:
    along, across = ("x_m", "y_m") if axis == "x" else ("y_m", "x_m")
    out = []
    for row, g in racks.groupby("row", sort=True):
        lo = float((g[along] - g["width_m"] / 2).min())
        hi = float((g[along] + g["width_m"] / 2).max())
        c = float(g[across].iloc[0])
        x0, y0, x1, y1 = (lo, c, hi, c) if axis == "x" else (c, lo, c, hi)
        out.append(
            {
                "row": row,
                "hall": g["hall"].iloc[0],
                "axis": "x" if axis == "x" else "y",
                "x0_m": x0,
                "y0_m": y0,
                "x1_m": x1,
                "y1_m": y1,
                "front_sign": 1,
                "kind": g["kind"].iloc[0],
            }
        )
    return pd.DataFrame(out)


def placement(
    racks: pd.DataFrame,
    device_rack: list[int] | np.ndarray,
    device_ru: list[int] | np.ndarray,
    axis: str = "x",
) -> Any:
    return SimpleNamespace(
        racks=racks,
        rows=rows_table(racks, axis),
        device_rack=np.asarray(device_rack),
        device_ru=np.asarray(device_ru),
        violations=[],
        racks_missing=0,
        free=empty_free(),  # no grid: no free floor (a fibre cabinet finds no place)
        fibre_positions={},
    )


def fabric(devices: list[tuple[str, str, str]], links: list[tuple[int, int, str]], nic: str = "cx7") -> Any:
    """devices: (device_id, role, model); links: (a, b, kind)."""
    dev = pd.DataFrame(
        {
            "device_id": [d[0] for d in devices],
            "role": [d[1] for d in devices],
            "network": ["compute" if d[1] == "server" else "backend" for d in devices],
            "tier": [
                0 if d[1] == "server" else {"leaf": 1, "spine": 2, "core": 3}.get(d[1], 1) for d in devices
            ],
            "model": [d[2] for d in devices],
            "pod": 0,
            "group": 0,
            "rail": -1,
            "index": list(range(len(devices))),
            "ports_used": 0,
        }
    )
    lk = pd.DataFrame(
        {
            "a": np.array([x[0] for x in links], dtype=np.int64),
            "b": np.array([x[1] for x in links], dtype=np.int64),
            "kind": [x[2] for x in links],
            "network": "backend",
            "speed_gbps": 400,
            "pod": 0,
        }
    )
    return SimpleNamespace(devices=dev, links=lk, nic=nic, switch="qm9700", server="dgx-h100")


def site_edited(name: str, edit: Any) -> Inputs:
    """The site ``name`` with ``edit(data)`` applied to its parsed TOML first (validated as usual)."""
    import tomllib

    from layout.load import DEFAULT_TEMPLATES_DIR, load_catalog, load_templates, site_from_data

    path = HERE / f"{name}.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    edit(data)
    return site_from_data(data, path, load_catalog(), load_templates(), DEFAULT_TEMPLATES_DIR)


def with_media(inputs: Inputs, keep: list[str], **reach: float) -> Inputs:
    """The inputs with a catalog holding only the media ``keep`` (in that order), reaches overridden."""
    from dataclasses import replace

    media = {
        k: inputs.catalog.media[k].model_copy(
            update={"reach_m": reach.get(k.replace("-", "_"), inputs.catalog.media[k].reach_m)}
        )
        for k in keep
    }
    return replace(inputs, catalog=inputs.catalog.model_copy(update={"media": media}))
