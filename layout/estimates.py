"""What a rack and a switch are expected to draw before the fabric is cabled (kW).

The placer picks each hall's rack density and balances halls and buildings against their MW limits
before any link has a medium; it needs the power of a full GPU rack and of a network switch up front.
The power check (layout/power/loads.py) later works out every device's kW from the cabled links; the one
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
        per_cage = cat.backend_per_cage(cl.server, cl.nic)
        modules = -(-srv.backend_ports * nic.split // per_cage)
        kw += servers * modules * default_module_w(cat, per_cage) / 1000.0
    return kw


def estimate_switch_kw(catalog: Catalog, model: str) -> float:
    """A switch in a network rack before placement: every port optical (its links leave the rack)."""
    sw = catalog.switch.get(model)
    return 0.0 if sw is None else sw.power_w_optics / 1000.0


# ------------------------------------------------------------------------------------------ memory
# Measured (bench/bench_design.py, 2-core machine): the 100k campus's 454,438 links peak at ~500 MB RSS
# over a ~160 MB interpreter with its libraries, ~750 bytes a link; 1M H100 (~4.6M links) at ~3.5 GB.
# The budget allows 1,000 bytes a link and 250 MB of base, so a design it lets through fits.
BASE_MB = 250.0
BYTES_PER_LINK = 1000.0
ADDRESS_SPACE_BASE_MB = 1500.0  # the virtual size of the interpreter with numpy, pandas, scipy loaded


def estimate_links(inputs: Inputs) -> tuple[int, str]:
    """About how many links (cables) the site's cluster makes, from its inputs alone (before the fabric
    is built), and the input that drives most of them (a dotted site key)."""
    import math

    cl = inputs.site.cluster
    cat = inputs.catalog
    srv = cat.server.get(cl.server)
    sw = cat.switch.get(cl.switch)
    if srv is None or sw is None:
        return 0, "cluster.gpus"
    servers = math.ceil(cl.gpus / srv.gpus)
    per_server, _ = cat.backend(cl.server, cl.nic)
    gpu_links = servers * per_server
    radix = max(sw.ports, 4)
    tiers = cl.tiers or next((t for t in range(1, 5) if 2 * (radix // 2) ** t >= gpu_links), 4)
    backend = gpu_links * tiers
    nets = cl.networks
    side = servers * (
        (srv.frontend_ports if nets.frontend else 0) + (srv.storage_ports if nets.storage else 0)
    )
    side += servers * (srv.oob_ports if nets.oob else 0)
    nodes = 0
    node = cat.node.get(nets.storage_node)
    if nets.storage and node is not None:
        if nets.storage_nodes is not None:
            nodes = nets.storage_nodes
        else:
            gbps = node.throughput_gbps or node.data_ports * node.data_port_gbps
            nodes = math.ceil(cl.gpus * nets.storage_gbps_per_gpu / gbps)
        nodes *= node.data_ports + node.oob_ports
    total = backend + 2 * side + 2 * nodes  # side networks: each port's link and its share of uplinks
    driver = "cluster.networks.storage_nodes" if 2 * nodes > backend else "cluster.gpus"
    return int(total), driver


def memory_limit_mb() -> tuple[float, str]:
    """What this process may use, in MB, and what sets it: 3/4 of the machine's memory, or the
    address-space limit (ulimit -v, less the interpreter's own) when that is lower."""
    import os
    import resource

    try:
        phys = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (ValueError, OSError, AttributeError):
        phys = 16 * 1024.0
    limit, why = 0.75 * phys, f"3/4 of this machine's {phys / 1024:,.1f} GB"
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        room = soft / 2**20 - ADDRESS_SPACE_BASE_MB
        if room < limit:
            limit, why = max(room, 0.0), f"the address-space limit of {soft / 2**30:,.1f} GB (ulimit -v)"
    return limit, why


def memory_problem(inputs: Inputs) -> tuple[str, str, str] | None:
    """(key, problem, allowed) when the design would not fit this machine's memory, else None."""
    links, driver = estimate_links(inputs)
    need_mb = BASE_MB + links * BYTES_PER_LINK / 2**20
    limit_mb, why = memory_limit_mb()
    if need_mb <= limit_mb:
        return None
    return (
        driver,
        f"this design makes about {links:,} links and needs about {need_mb / 1024:,.1f} GB of memory, more "
        f"than {why} allows",
        f"a design of at most about {int(max(limit_mb - BASE_MB, 0) * 2**20 / BYTES_PER_LINK):,} links here "
        "(fewer GPUs or storage nodes), or a machine with more memory",
    )
