"""What a rack and a switch are expected to draw before the fabric is cabled (kW).

The placer picks each hall's rack density and balances halls and buildings against their MW limits
before any link has a medium; it needs the power of a full GPU rack and of a network switch up front.
The power check (layout/power.py) later works out every device's kW from the cabled links; the one
figure both share is the power of an optical module before media are assigned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from layout.load import Inputs
    from layout.model import Catalog, RackTemplate


def default_optical_medium(catalog: Catalog) -> str | None:
    """The first optical medium in the catalog (what an optical link is taken to be before cabling)."""
    return next((k for k, m in catalog.media.items() if m.optical), None)


def default_module_w(catalog: Catalog, links_per_module: int = 1) -> float:
    """Power of one optical module before media are assigned: the first optical medium in the catalog,
    single-port or carrying ``links_per_module`` links (twin-port)."""
    medium = default_optical_medium(catalog)
    return 0.0 if medium is None else catalog.module_power_w(medium, links_per_module)


def estimate_gpu_rack_kw(inputs: Inputs, template: RackTemplate, servers: int) -> float:
    """Expected kW of a full GPU rack before the fabric exists (used to pick the rack density).

    Servers with their NIC extras; rail: one optical module per backend port (per module for dual-port
    NICs); middle-of-rack: the leaf in the rack, half its ports on copper, half on optics.
    """
    cat = inputs.catalog
    cl = inputs.site.cluster
    srv = cat.server[cl.server]
    nic = cat.nic[cl.nic]
    kw = servers * (srv.power_kw + nic.power_w_extra * srv.backend_ports / 1000.0)
    if cl.design == "mor" and template.leaf_slot() is not None:
        sw = cat.switch[cl.switch]
        kw += (sw.power_w_copper + sw.power_w_optics) / 2000.0
    else:
        modules = -(-srv.backend_ports * nic.split // nic.ports_per_module)
        kw += servers * modules * default_module_w(cat, nic.ports_per_module) / 1000.0
    return kw


def estimate_switch_kw(catalog: Catalog, model: str) -> float:
    """A switch in a network rack before placement: every port optical (its links leave the rack)."""
    sw = catalog.switch.get(model)
    return 0.0 if sw is None else sw.power_w_optics / 1000.0
