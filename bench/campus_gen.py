"""Generate a campus site file of N identical buildings, for the shipped gigawatt example and the scaling
benchmarks (bench/bench_scale.py).

    .venv/bin/python bench/campus_gen.py --profile gb300 --buildings 8 > site.toml
    .venv/bin/python bench/campus_gen.py --profile h100 --buildings 41 > site.toml

Buildings stand in two rows either side of a campus road, entries on the road; a duct bank runs from
every building's entry along the road to the entry of the building nearest the others (where the
placer puts the campus MDF: layout/place/assign.py), a star, so no link between buildings runs through
a third building's duct. Profiles:

- ``h100``: the 100k campus's building (sites/campus-100k.toml): two 24 MW rear-door halls of DGX H100,
  one 24,576-GPU pod per building on Quantum-2, 7:1 between pods;
- ``gb300``: a liquid-cooled GB300 NVL72 building: four halls, 24 scalable units of 8 NVL72 per hall
  (13,824 GPUs, ~28 MW), on Quantum-X800 Q3400, one non-blocking fabric over the whole campus
  (``--pod-gpus`` for pods), a storage and a frontend network on Spectrum-X;
- ``spectrum-x``: the same buildings on Spectrum-X SN5600 (ConnectX-8 as two 400G planes), 12 SUs per
  hall.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    halls: int  # per building, in a row of halls along x
    hall_w_m: float
    hall_d_m: float
    hall_mw: float
    building_mw: float
    gpus_per_building: int
    hall_toml: str  # the hall's keys besides id, polygon, it_mw
    cluster_toml: str  # with {gpus} and {pod_gpus}
    conduits: int
    pue: float
    default_pod_gpus: int


LIQUID_HALL = """\
  cooling = "liquid"
  cooling_mw = {cooling_mw}
  air_cooling_mw = {air_mw}
  max_rack_kw = 145.0
  floor_load_kg_m2 = 2500.0
  row_axis = "x"
  cold_aisle_m = 1.8
  hot_aisle_m = 1.5
  wall_clearance_m = 1.5
  max_row_racks = 12
  tray = {{ height_m = 3.2, width_mm = 900, depth_mm = 250, fill_limit = 0.5, levels = 6, trunk_width_mm = 2000, trunk_levels = 6 }}
  keepouts = [{{ polygon = [[{x0}, {y1k}], [{x0k}, {y1k}], [{x0k}, {y1}], [{x0}, {y1}]], reason = "CDU gallery" }}]
"""

PROFILES = {
    "h100": Profile(
        "h100",
        2,
        72.0,
        106.0,
        24.0,
        45.0,
        24576,
        """\
  cooling = "rear-door"
  max_rack_kw = 50.0
  floor_load_kg_m2 = 1500.0
  row_axis = "x"
  max_row_racks = 20
  tray = {{ height_m = 3.0, width_mm = 900, depth_mm = 150, fill_limit = 0.5, levels = 4, trunk_width_mm = 1200, trunk_levels = 3 }}
""",
        """\
gpus = {gpus}
server = "dgx-h100"
rack = "dgx-h100-x4"
rack_low_density = "dgx-h100-x2"
switch = "qm9700"
design = "rail"
nic = "cx7"
pod_gpus = {pod_gpus}
oversubscription = 7.0
link_mtbf_years = 5.0

[cluster.networks]
storage = true
frontend = true
oob = true
""",
        192,
        1.21,
        24576,
    ),
    "gb300": Profile(
        "gb300",
        4,
        46.0,
        50.0,  # 44 m left the MDF's hall no floor for its fibre cabinets
        34.0,
        136.0,
        55296,
        LIQUID_HALL,
        """\
gpus = {gpus}
server = "gb300-nvl72"
rack = "gb300-nvl72"
switch = "q3400"
design = "rail"
nic = "cx8"
pod_gpus = {pod_gpus}
oversubscription = 8.0
link_mtbf_years = 5.0

[cluster.networks]
storage = true
frontend = true
oob = true
frontend_switch = "sn5600"
storage_switch = "sn5600"
storage_gbps_per_gpu = 4.0
""",
        400,
        1.15,
        13824,  # a hall: a pod of 24 SUs on 4 tiers of Q3400 as the RA wires NVL72; pods joined 8:1
    ),
    "spectrum-x": Profile(
        "spectrum-x",
        4,
        46.0,
        36.0,  # 30 m left no floor for the fibre cabinets
        18.0,
        74.0,
        27648,
        LIQUID_HALL,
        """\
gpus = {gpus}
server = "gb300-nvl72"
rack = "gb300-nvl72"
switch = "sn5600"
design = "rail"
nic = "cx8-2x400"
pod_gpus = {pod_gpus}
oversubscription = 1.0
link_mtbf_years = 5.0

[cluster.networks]
frontend = true
storage = false
oob = true
frontend_switch = "sn5600"
storage_gbps_per_gpu = 4.0
""",
        400,
        1.15,
        0,
    ),
}

GAP_M = 4.0  # between halls of a building, and from the building's wall
ROAD_M = 60.0  # between the two rows of buildings
STREET_M = 40.0  # between neighbouring buildings of a row


def site(
    profile: Profile, buildings: int, pod_gpus: int, name: str, gpus: int | None = None, blocks: int = 1
) -> str:
    """``blocks``: pairs of rows facing their road, stacked north with a street between them (a main
    street beside the MDF's column joins the roads)."""
    p = profile
    bw = p.halls * (p.hall_w_m + GAP_M) + GAP_M
    bd = p.hall_d_m + 2 * GAP_M
    per_row = -(-buildings // (2 * blocks))
    block_m = 2 * bd + ROAD_M + STREET_M
    lines = [
        "format = 1",
        "",
        "[site]",
        f'name = "{name}"',
        'revision = "A"',
        'date = "2026-12-05"',
        f"utility_mw = {round(buildings * p.building_mw * p.pue * 1.05)}.0",
        f"pue = {p.pue}",
        "electricity_usd_per_kwh = 0.078",
    ]
    entries = []
    for i in range(buildings):
        block, rest = divmod(i, 2 * per_row)
        row, col = divmod(rest, per_row)
        x0 = col * (bw + STREET_M)
        y0 = block * block_m + (0.0 if row == 0 else bd + ROAD_M)
        ey = y0 + bd if row == 0 else y0  # the entry on the road side
        entry = (round(x0 + bw / 2, 1), round(ey, 1))
        entries.append(entry)
        lines += [
            "",
            "[[building]]",
            f'id = "B{i + 1}"',
            f"footprint = [[{x0:g}, {y0:g}], [{x0 + bw:g}, {y0:g}], [{x0 + bw:g}, {y0 + bd:g}], [{x0:g}, {y0 + bd:g}]]",
            f"entry = [{entry[0]:g}, {entry[1]:g}]",
            f"it_mw = {p.building_mw}",
        ]
        for h in range(p.halls):
            hx0 = x0 + GAP_M + h * (p.hall_w_m + GAP_M)
            hy0 = y0 + GAP_M
            hx1, hy1 = hx0 + p.hall_w_m, hy0 + p.hall_d_m
            far_y = hy0 if row == 0 else hy1  # the CDU gallery on the wall away from the road
            y1k = far_y + (6.0 if row == 0 else -6.0)
            lines += [
                "",
                "  [[building.hall]]",
                f'  id = "H{h + 1}"',
                f"  polygon = [[{hx0:g}, {hy0:g}], [{hx1:g}, {hy0:g}], [{hx1:g}, {hy1:g}], [{hx0:g}, {hy1:g}]]",
                f"  it_mw = {p.hall_mw}",
            ]
            lines.append(
                p.hall_toml.format(
                    cooling_mw=p.hall_mw + 2.0,
                    air_mw=round(0.35 * p.hall_mw, 1),  # fan walls: what the cold plates leave, network racks
                    x0=f"{hx1 - 18:g}",
                    x0k=f"{hx1:g}",
                    y1k=f"{min(far_y, y1k):g}",
                    y1=f"{max(far_y, y1k):g}",
                ).rstrip("\n")
            )
    # the campus MDF: the building whose entry is nearest the others (as the placer chooses it)
    hub = min(
        range(buildings),
        key=lambda i: (
            round(
                sum(((entries[i][0] - e[0]) ** 2 + (entries[i][1] - e[1]) ** 2) ** 0.5 for e in entries), 6
            ),
            i,
        ),
    )

    def road_y(i: int) -> float:
        return (i // (2 * per_row)) * block_m + bd + ROAD_M / 2

    street_x = (hub % per_row) * (bw + STREET_M) - STREET_M / 2
    for i in range(buildings):
        if i == hub:
            continue
        (ax, ay), (bx, by) = entries[i], entries[hub]
        ya, yb = road_y(i), road_y(hub)
        if blocks == 1:  # the shipped sites' layout: along the one road
            path = [(ax, ay), (ax, ya), (bx, yb), (bx, by)]
        else:  # each duct bank its own lane along the roads and the main street (no shared run)
            off = 0.5 * (i + 1)
            path = [(ax, ay), (ax, ya + off), (street_x + off, ya + off), (street_x + off, yb + off),
                    (bx + off, yb + off), (bx, by)]  # fmt: skip
        pts = ", ".join(f"[{x:g}, {y:g}]" for x, y in dict.fromkeys(path))
        lines += [
            "",
            "[[duct]]",
            f'from = "B{i + 1}"',
            f'to = "B{hub + 1}"',
            f"conduits = {p.conduits}",
            f"path = [{pts}]",
        ]
    total = gpus if gpus is not None else buildings * p.gpus_per_building
    lines += ["", "[cluster]", p.cluster_toml.format(gpus=total, pod_gpus=pod_gpus).rstrip("\n")]
    lines += [
        "",
        "[training]",
        "step_s = 2.0",
        "checkpoint_every_steps = 100",
        "hbm_gb = 288" if p.name != "h100" else "hbm_gb = 80",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", choices=sorted(PROFILES), default="gb300")
    ap.add_argument("--buildings", type=int, default=8)
    ap.add_argument("--pod-gpus", type=int, default=-1, help="pod size (default: the profile's; 0 one pod)")
    ap.add_argument("--gpus", type=int, default=None, help="GPUs (default: every building full)")
    ap.add_argument("--name", default=None)
    ap.add_argument("--blocks", type=int, default=1, help="pairs of rows of buildings, each along a road")
    ap.add_argument("--oversubscription", type=float, default=None, help="between pods")
    ap.add_argument("--hall-depth", type=float, default=None, help="each hall's depth in m (the profile's)")
    a = ap.parse_args()
    p = PROFILES[a.profile]
    if a.hall_depth is not None:
        p = dataclasses.replace(p, hall_d_m=a.hall_depth)
    pod = a.pod_gpus if a.pod_gpus >= 0 else p.default_pod_gpus
    text = site(p, a.buildings, pod, a.name or f"{a.buildings}-building {p.name} campus", a.gpus, a.blocks)
    if a.oversubscription is not None:
        text = re.sub(r"(?m)^oversubscription = .*$", f"oversubscription = {a.oversubscription}", text)
    print(text, end="")


if __name__ == "__main__":
    main()
