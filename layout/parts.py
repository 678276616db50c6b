"""What a site file can name: the catalog's parts with their key figures (`dclayout catalog`).

One plain dict per part, in catalog order, so that the JSON and the text table say the same thing.
"""

from __future__ import annotations

from typing import Any

from layout.model import Catalog


def listing(catalog: Catalog) -> dict[str, list[dict[str, Any]]]:
    """``{"servers": [...], "switches": [...], "nics": [...], "media": [...]}`` (DESIGN.md contract)."""
    servers = [
        {
            "id": sid,
            "name": s.name,
            "gpus": s.gpus,
            "power_kw": s.power_kw,
            "cooling": s.cooling,
            "height_ru": s.height_ru,
            "backend_ports": s.backend_ports,
            "backend_port_gbps": s.backend_port_gbps,
            "su_servers": s.su_servers,
            "nvlink_gpus": s.nvlink_gpus or s.gpus,
            "price_usd": s.price_usd,
        }
        for sid, s in catalog.server.items()
    ]
    switches = [
        {
            "id": wid,
            "name": w.name,
            "ports": w.ports,
            "port_gbps": w.port_gbps,
            "protocol": w.protocol,
            "cages": w.data_cages,
            "cage": w.cage,
            "cooling": w.cooling,
            "height_ru": w.height_ru,
            "power_w_max": w.power_w_optics,
            "price_usd": w.price_usd,
        }
        for wid, w in catalog.switch.items()
    ]
    nics = [
        {
            "id": nid,
            "name": n.name,
            "ports": n.ports_per_module,
            "port_gbps": n.port_gbps,
            "split": n.split,
        }
        for nid, n in catalog.nic.items()
    ]
    media = [
        {
            "id": mid,
            "name": m.name,
            "class": m.media_class,
            "gbps": list(m.speeds_gbps),
            "reach_m": m.reach_m,
            "price_usd": m.price_usd,
            "price_usd_per_m": m.price_usd_per_m,
            "module_power_w": m.module_power_w,
        }
        for mid, m in catalog.media.items()
    ]
    return {"servers": servers, "switches": switches, "nics": nics, "media": media}
