"""The design as a DCIM holds it (NetBox, Nautobot): locations, racks, device types, devices, ports,
cables and the power feeds, as tables (:func:`dcim_tables`) and as files (:func:`write_dcim`).

``dclayout design --dcim`` writes, beside the other exports:

- ``STEM-dcim-device-types.yaml``: one YAML document per device type (``---`` between them), in the
  layout of the community device-type library (``manufacturer``, ``model``, ``slug``, ``part_number``,
  ``u_height``, ``is_full_depth``, ``interfaces``, ``front-ports``, ``rear-ports``): every server, node
  and switch model the design uses, and the patch-panel enclosure of the cable plant. A switch type lists
  every data port of its cages and its management port; a server or node type the ports the design
  wires (the same on every server of a model).
- ``STEM-dcim-locations.csv`` (the site, its buildings and halls, each with its parent and type),
  ``-racks.csv`` (hall, height and the floor position ``floor_x_mm``, ``floor_y_mm``,
  ``floor_rotation_deg`` as custom fields ``cf_...``), ``-devices.csv`` (rack, U, face; panel
  enclosures have no U), ``-interfaces.csv``, ``-rear-ports.csv``, ``-front-ports.csv``,
  ``-cables.csv`` (both ends as device, kind and port name; type, length in metres, label) and
  ``-power-panels.csv``, ``-power-feeds.csv``: in NetBox's bulk-import columns.

How the plant is modelled: a link through the cable plant is three cables, as it is built: a patch cord
from the interface to a front port of the panel enclosure at its near end, the MPO trunk from rear port
to rear port, and a patch cord from the far panel's front port to the far interface. Each panel location
(the rack holding a group of 1U panels) is one enclosure device ``RACK-PP``; each trunk end is a rear
port ``T01`` ... with one position per link it carries, and each link end a front port named by its
panel port (``PP03:07``, ``PP03:07.2``; ``PP03:07#2`` for the second link through one MPO position),
mapped to its trunk's rear port at the link's position. Names and labels are those of ``--labels``.

Power: each switchboard is a power panel of its hall; each rack tap-off is a power feed of its rack
(side A primary, side B redundant, three-phase AC at 415 V, the tap-off's breaker in amperes, its
margin as the maximum utilisation).

Every count here is what :func:`counts` returns and what ``dclayout push`` creates.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout.export.atomic import write_bytes

if TYPE_CHECKING:
    from layout.design import Design

PANEL_TYPE = "dclayout-panel-enclosure"
STATUS = "Planned"
VOLTAGE_V = 415  # the chain's line-to-line voltage (layout.power.schedule)
# the interface type of a cage form factor at a port speed (NetBox's and Nautobot's type names)
INTERFACE_TYPES = {
    ("osfp", 800): "800gbase-x-osfp",
    ("osfp", 400): "400gbase-x-osfp",
    ("osfp", 200): "200gbase-x-qsfp56",
    ("qsfp", 800): "800gbase-x-qsfpdd",
    ("qsfp", 400): "400gbase-x-qsfp112",
    ("qsfp", 200): "200gbase-x-qsfp56",
    ("qsfp", 100): "100gbase-x-qsfp28",
    ("rj45", 1): "1000base-t",
}
OTHER = "other"
# a link's medium class as a DCIM cable type
CABLE_TYPES = {
    "dac": "dac-passive",
    "aec": "dac-active",
    "mmf": "mmf-om4",
    "smf": "smf-os2",
    "coherent": "smf-os2",
    "utp": "cat6a",  # the management network's RJ45 patch cords (the catalog's Cat6A)
}
FIBRE_TYPES = {"om3": "mmf-om3", "om4": "mmf-om4", "os2": "smf-os2"}


@dataclasses.dataclass(frozen=True)
class DcimTables:
    """The design's DCIM objects, one table each (columns as the CSV files name them)."""

    device_types: list[dict[str, Any]]
    locations: pd.DataFrame
    racks: pd.DataFrame
    devices: pd.DataFrame
    interfaces: pd.DataFrame
    rear_ports: pd.DataFrame
    front_ports: pd.DataFrame
    cables: pd.DataFrame
    power_panels: pd.DataFrame
    power_feeds: pd.DataFrame


def counts(t: DcimTables) -> dict[str, int]:
    """How many of each object the design has (what a DCIM holds after a push)."""
    return {
        "locations": len(t.locations),
        "racks": len(t.racks),
        "device_types": len(t.device_types),
        "devices": len(t.devices),
        "interfaces": len(t.interfaces),
        "rear_ports": len(t.rear_ports),
        "front_ports": len(t.front_ports),
        "cables": len(t.cables),
        "power_panels": len(t.power_panels),
        "power_feeds": len(t.power_feeds),
    }


def _dotted(values: Any) -> np.ndarray:
    return np.asarray(pd.Series(values, dtype="string").str.replace("/", ".", regex=False), dtype=object)


def _spec(design: Design, model: str) -> Any:
    cat = design.inputs.catalog
    for table in (cat.server, cat.switch, cat.node):
        if model in table:
            return table[model]
    raise KeyError(model)


MAKERS = ("NVIDIA", "Broadcom", "Arista", "Cisco", "Juniper", "Supermicro", "Dell", "HPE", "Lenovo")


def manufacturer(name: str) -> str:
    """A catalog part's maker: the first word of its name when it is a maker's (``NVIDIA DGX H100`` →
    ``NVIDIA``), else ``Generic`` (the catalog has no maker field)."""
    first = name.split()[0] if name.split() else ""
    return first if first in MAKERS else "Generic"


_PORT = re.compile(r"^(\d+)/(\d+)$")


def _port_key(name: str) -> tuple[int, str, int, int]:
    """Ports in the order a device numbers them: data cages 1..n, then named groups (be, fe, st, mgmt)."""
    m = _PORT.match(name)
    if m:
        return (0, "", int(m.group(1)), int(m.group(2)))
    g = re.match(r"^([a-z]+)(\d+)/(\d+)$", name)
    if g:
        return (1, g.group(1), int(g.group(2)), int(g.group(3)))
    return (2, name, 0, 0)


def _interface_type(form: str, gbps: float) -> str:
    return INTERFACE_TYPES.get((form, int(gbps)), OTHER)


def _used_ports(ports: pd.DataFrame, links: pd.DataFrame) -> pd.DataFrame:
    """Every cabled port end: device, model, port name, cage form and speed (one row per end)."""
    speed = links["speed_gbps"].to_numpy()
    sides = []
    for s in ("a", "b"):
        sides.append(
            pd.DataFrame(
                {
                    "device": ports[f"{s}_device"].to_numpy(object),
                    "model": ports[f"{s}_model"].to_numpy(object),
                    "port": ports[f"{s}_port"].to_numpy(object),
                    "form": ports[f"{s}_form"].to_numpy(object),
                    "gbps": speed,
                }
            )
        )
    return pd.concat(sides, ignore_index=True)


def _device_types(design: Design, used: pd.DataFrame, models: list[str]) -> list[dict[str, Any]]:
    """A device type per model the design places (library layout), and the panel enclosure."""
    out = []
    per_model = used.drop_duplicates(["model", "port"]).groupby("model")
    for model in models:
        spec = _spec(design, model)
        rows: dict[str, str] = {}
        if model in per_model.groups:
            g = per_model.get_group(model)
            for port, form, gbps in zip(g["port"], g["form"], g["gbps"], strict=True):
                rows[str(port)] = _interface_type(str(form), float(gbps))
        if model in design.inputs.catalog.switch:
            per_cage = max(int(spec.ports_per_cage), 1)
            for c in range(1, int(spec.cages) + 1):
                for p in range(1, per_cage + 1):
                    rows.setdefault(f"{c}/{p}", _interface_type(spec.cage, spec.port_gbps))
            for k in range(1, int(getattr(spec, "mgmt_ports", 0)) + 1):
                rows.setdefault(f"mgmt{k}/1", "1000base-t")
        out.append(
            {
                "manufacturer": manufacturer(spec.name),
                "model": spec.name,
                "slug": model,
                "part_number": model,
                "u_height": int(spec.height_ru),
                "is_full_depth": True,
                "comments": f"dclayout catalog part {model}",
                "interfaces": [
                    {"name": n, "type": rows[n], "mgmt_only": n.startswith("mgmt")}
                    for n in sorted(rows, key=_port_key)
                ],
            }
        )
    out.append(
        {
            "manufacturer": "Generic",
            "model": "Fibre panel enclosure (1U MPO panels)",
            "slug": PANEL_TYPE,
            "part_number": PANEL_TYPE,
            "u_height": 0,
            "is_full_depth": False,
            "comments": "dclayout cable plant: front and rear ports are made per enclosure",
        }
    )
    return out


def _rear_names(design: Design) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per trunk end (``a``, ``b``): its enclosure and rear port name. The trunks ending at an enclosure,
    at either end, are its rear ports ``T01``, ``T02``, ... in trunk order."""
    t = design.cabling.plant.trunks
    racks = _dotted(design.placement.racks["rack_id"])
    n = len(t)
    enc = np.r_[racks[t["panel_a"].to_numpy(np.int64)], racks[t["panel_b"].to_numpy(np.int64)]] + "-PP"
    both = pd.DataFrame(
        {"enc": enc, "trunk": np.r_[np.arange(n), np.arange(n)], "end": np.r_[[0] * n, [1] * n]}
    )
    both = both.sort_values(["enc", "trunk", "end"], kind="stable")
    both["name"] = [f"T{k:02d}" for k in both.groupby("enc").cumcount().to_numpy() + 1]
    both = both.sort_index()
    names = both["name"].to_numpy(object)
    return {"a": (enc[:n], names[:n]), "b": (enc[n:], names[n:])}


def _plant(design: Design) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Rear ports (one per trunk end), front ports (one per plant link end) and, per plant link, its
    two front ports: (rear_ports, front_ports, link_ends)."""
    from layout.export.plant_files import panel_ports

    pp = panel_ports(design)
    plant = design.cabling.plant
    trunks = plant.trunks
    rear, front, ends = [], [], {}
    if not len(pp):
        empty = pd.DataFrame(
            {c: [] for c in ("device", "name", "type", "positions", "rear_port", "rear_port_position")}
        )
        return (
            empty,
            empty,
            pd.DataFrame({"link": [], "front_a": [], "front_b": [], "dev_a": [], "dev_b": []}),
        )
    li = pp["link"].to_numpy(np.int64)
    tk = pp["trunk"].to_numpy(np.int64)
    # a link's position in its trunk: its rank among the trunk's links, in link order
    order = np.lexsort((li, tk))
    rank = np.empty(len(li), np.int64)
    first = np.r_[True, tk[order][1:] != tk[order][:-1]]
    starts = np.maximum.accumulate(np.where(first, np.arange(len(li)), 0))
    rank[order] = np.arange(len(li)) - starts + 1
    connector = trunks["connector"].astype(str).to_numpy()
    rear_of = _rear_names(design)
    for side in ("a", "b"):
        enclosure, rear_names = rear_of[side]
        t_ids = trunks["trunk"].to_numpy(np.int64)
        rear.append(
            pd.DataFrame(
                {
                    "device": enclosure,
                    "name": rear_names,
                    "type": np.where(connector == "lc", "lc", "mpo"),
                    "positions": trunks["links"].to_numpy(np.int64),
                    "trunk": t_ids,
                    "side": side,
                }
            )
        )
        label = pd.Series(pp[f"port_{side}"].to_numpy(object), dtype="string")
        # RACK-PP03:07 or, in a fibre cabinet, RACK-FC02-PP05:07: the location's enclosure RACK-PP,
        # its front port PP03:07 or FC02-PP05:07
        parts = label.str.extract(r"^(.*?)-((?:FC\d+-)?PP\d.*)$")
        dev = parts[0] + "-PP"
        port = parts[1]
        dup = pd.DataFrame({"d": dev, "p": port}).groupby(["d", "p"]).cumcount().to_numpy()
        port = port.where(dup == 0, port + "#" + pd.Series(dup + 1).astype(str))
        rear_name = rear_names[np.searchsorted(t_ids, tk)]
        front.append(
            pd.DataFrame(
                {
                    "device": np.asarray(dev, dtype=object),
                    "name": np.asarray(port, dtype=object),
                    "type": np.where(connector[tk] == "lc", "lc", "mpo"),
                    "rear_port": rear_name,
                    "rear_port_position": rank,
                }
            )
        )
        ends[f"front_{side}"] = np.asarray(port, dtype=object)
        ends[f"dev_{side}"] = np.asarray(dev, dtype=object)
    link_ends = pd.DataFrame({"link": li, "trunk": tk, **ends})
    return pd.concat(rear, ignore_index=True), pd.concat(front, ignore_index=True), link_ends


def _cables(design: Design, ports: pd.DataFrame, link_ends: pd.DataFrame) -> pd.DataFrame:
    """Every cable as built: point-to-point links, and per plant link two cords and its trunk once."""
    from layout.export.plant_files import labels_table, trunk_names

    links = design.cabling.links
    media_class = links["media_class"].astype(str).to_numpy()
    has = links["media"].astype(str).to_numpy() != ""
    labels = labels_table(design, ports)
    a_end = labels[labels["end"] == "A"]
    length = links["length_m"].to_numpy(float)
    plant_link = np.zeros(len(links), bool)
    plant_link[link_ends["link"].to_numpy(np.int64)] = True
    direct = np.flatnonzero(has & ~plant_link)
    cable_labels = a_end[a_end["item"] == "cable"]["id"].to_numpy(object)
    kinds = {"interface": "dcim.interface", "front": "dcim.frontport", "rear": "dcim.rearport"}

    def frame(
        a_dev: Any, a_kind: str, a_name: Any, b_dev: Any, b_kind: str, b_name: Any, ctype: Any, label: Any,
        length_m: Any,
    ) -> pd.DataFrame:  # fmt: skip
        return pd.DataFrame(
            {
                "side_a_device": a_dev,
                "side_a_type": kinds[a_kind],
                "side_a_name": a_name,
                "side_b_device": b_dev,
                "side_b_type": kinds[b_kind],
                "side_b_name": b_name,
                "type": ctype,
                "status": STATUS.lower(),
                "label": label,
                "length": np.round(np.asarray(length_m, float), 2),
                "length_unit": "m",
            }
        )

    def ctype(idx: np.ndarray) -> np.ndarray:
        return np.array([CABLE_TYPES.get(m, "") for m in media_class[idx]], dtype=object)

    frames = [
        frame(
            ports["a_device"].to_numpy(object)[direct], "interface", ports["a_port"].to_numpy(object)[direct],
            ports["b_device"].to_numpy(object)[direct], "interface", ports["b_port"].to_numpy(object)[direct],
            ctype(direct), cable_labels, length[direct],
        )
    ]  # fmt: skip
    if len(link_ends):
        ch = design.cabling.plant.channels.set_index("link")
        li = link_ends["link"].to_numpy(np.int64)
        cords = labels[labels["item"] == "cord"]
        cords_a = cords[cords["end"] == "A"]["id"].to_numpy(object)
        n = len(li)
        trunk_fibre = design.cabling.plant.trunks["fibre"].astype(str).to_numpy()
        cord_type = np.array(
            [FIBRE_TYPES.get(f, "") for f in trunk_fibre[link_ends["trunk"].to_numpy(np.int64)]], dtype=object
        )
        frames.append(
            frame(
                ports["a_device"].to_numpy(object)[li], "interface", ports["a_port"].to_numpy(object)[li],
                link_ends["dev_a"].to_numpy(object), "front", link_ends["front_a"].to_numpy(object),
                cord_type, cords_a[:n], ch.loc[li, "cord_a_m"].to_numpy(float),
            )
        )  # fmt: skip
        frames.append(
            frame(
                ports["b_device"].to_numpy(object)[li], "interface", ports["b_port"].to_numpy(object)[li],
                link_ends["dev_b"].to_numpy(object), "front", link_ends["front_b"].to_numpy(object),
                cord_type, cords_a[n:], ch.loc[li, "cord_b_m"].to_numpy(float),
            )
        )  # fmt: skip
        t = design.cabling.plant.trunks
        rear = _rear_names(design)
        (a_dev, a_name), (b_dev, b_name) = rear["a"], rear["b"]
        frames.append(
            frame(
                a_dev, "rear", a_name, b_dev, "rear", b_name,
                np.array([FIBRE_TYPES.get(f, "") for f in trunk_fibre], dtype=object), trunk_names(design),
                t["length_m"].to_numpy(float),
            )
        )  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def _on_devices(cables: pd.DataFrame, devices: pd.DataFrame) -> pd.DataFrame:
    """The cables whose two ends are on devices the DCIM holds (a device the design could not place has
    no rack, so no device there, and no cable)."""
    known = set(devices["name"].tolist())
    keep = cables["side_a_device"].isin(known) & cables["side_b_device"].isin(known)
    return cables[keep.to_numpy()].reset_index(drop=True)


def dcim_tables(design: Design) -> DcimTables:
    """The design's DCIM objects (module docstring)."""
    from layout.export.tables.ports import ports_table

    code = design.inputs.stem.upper()
    fabric, placement = design.fabric, design.placement
    ports = ports_table(fabric, placement, design.cabling, code)
    used = _used_ports(ports, design.cabling.links)
    site_name = design.inputs.site.site.name
    racks = placement.racks
    halls = sorted({f"{b.id}/{h.id}" for b in design.inputs.site.building for h in b.hall})
    buildings = sorted({h.split("/")[0] for h in halls})
    locations = pd.DataFrame(
        {
            "name": [site_name, *buildings, *halls],
            "location_type": ["Site"] + ["Building"] * len(buildings) + ["Hall"] * len(halls),
            "parent": [""] + [site_name] * len(buildings) + [h.split("/")[0] for h in halls],
            "status": STATUS.lower(),
        }
    )
    templates = design.inputs.templates
    height = np.array([int(templates[t].height_ru) for t in racks["template"].astype(str)], dtype=np.int64)
    rack_table = pd.DataFrame(
        {
            "name": racks["rack_id"].astype(str).to_numpy(object),
            "location": racks["hall"].astype(str).to_numpy(object),
            "status": STATUS.lower(),
            "u_height": height,
            "width": 19,
            "facility_id": _dotted(racks["rack_id"]),
            "comments": ("template " + racks["template"].astype(str)).to_numpy(object),
            "cf_floor_x_mm": np.round(racks["x_m"].to_numpy(float) * 1000).astype(np.int64),
            "cf_floor_y_mm": np.round(racks["y_m"].to_numpy(float) * 1000).astype(np.int64),
            "cf_floor_rotation_deg": np.round(racks["rotation_deg"].to_numpy(float)).astype(np.int64),
        }
    )
    dev = fabric.devices
    rack_of = placement.device_rack
    placed = rack_of >= 0
    models = sorted(set(dev["model"].astype(str).to_numpy()[placed]))
    device_types = _device_types(design, used, models)
    rack_ids = racks["rack_id"].astype(str).to_numpy(object)
    hall_of = racks["hall"].astype(str).to_numpy(object)
    rear, front, link_ends = _plant(design)
    enclosures = np.unique(rear["device"].to_numpy(object)) if len(rear) else np.zeros(0, object)
    enc_rack = np.asarray(pd.Series(enclosures, dtype="string").str.removesuffix("-PP").str.replace(".", "/"))
    where = {r: i for i, r in enumerate(rack_ids)}
    devices = pd.concat(
        [
            pd.DataFrame(
                {
                    "name": dev["device_id"].astype(str).to_numpy(object)[placed],
                    "role": dev["role"].astype(str).to_numpy(object)[placed],
                    "device_type": dev["model"].astype(str).to_numpy(object)[placed],
                    "location": hall_of[rack_of[placed]],
                    "rack": rack_ids[rack_of[placed]],
                    "position": placement.device_ru[placed].astype(np.int64),
                    "face": "front",
                    "status": STATUS.lower(),
                }
            ),
            pd.DataFrame(
                {
                    "name": enclosures,
                    "role": "patch_panel",
                    "device_type": PANEL_TYPE,
                    "location": [hall_of[where[r]] for r in enc_rack],
                    "rack": enc_rack.astype(object),
                    "position": pd.array([None] * len(enclosures), dtype="Int64"),
                    "face": "",
                    "status": STATUS.lower(),
                }
            ),
        ],
        ignore_index=True,
    )
    by_type = {t["slug"]: t for t in device_types}
    iface_rows = [
        (name, i["name"], i["type"], bool(i["mgmt_only"]))
        for name, model in zip(
            devices["name"].to_numpy(object), devices["device_type"].to_numpy(object), strict=True
        )
        for i in by_type[model].get("interfaces", [])
    ]
    interfaces = pd.DataFrame(iface_rows, columns=["device", "name", "type", "mgmt_only"])
    interfaces["status"] = STATUS.lower()
    panels, feeds = _power(design, rack_ids)
    return DcimTables(
        device_types=device_types,
        locations=locations,
        racks=rack_table,
        devices=devices,
        interfaces=interfaces,
        rear_ports=rear.drop(columns=["trunk", "side"], errors="ignore"),
        front_ports=front,
        cables=_on_devices(_cables(design, ports, link_ends), devices),
        power_panels=panels,
        power_feeds=feeds,
    )


def _power(design: Design, rack_ids: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Power panels (switchboards) and power feeds (rack tap-offs) from the electrical schedule."""
    s = design.schedule
    part = s["part"].astype(str).to_numpy()
    swb = s[part == "switchboard"]
    panels = pd.DataFrame(
        {
            "name": swb["part_id"].astype(str).to_numpy(object),
            "location": swb["hall"].astype(str).to_numpy(object),
        }
    )
    busway_swb = dict(
        zip(
            s.loc[part == "busway", "part_id"].astype(str),
            s.loc[part == "busway", "fed_from"].astype(str),
            strict=True,
        )
    )
    taps = s[part == "tap-off"]
    tap_id = taps["part_id"].astype(str)
    rack = tap_id.str.rsplit("/", n=1).str[0].to_numpy(object)
    known = set(rack_ids.tolist())
    keep = np.array([r in known for r in rack], dtype=bool)
    side = taps["side"].astype(str).to_numpy()
    feeds = pd.DataFrame(
        {
            "name": tap_id.to_numpy(object),
            "power_panel": [busway_swb.get(b, "") for b in taps["fed_from"].astype(str)],
            "rack": rack,
            "status": STATUS.lower(),
            "type": np.where(side == "B", "redundant", "primary"),
            "supply": "ac",
            "phase": "three-phase",
            "voltage": VOLTAGE_V,
            "amperage": pd.to_numeric(taps["breaker_a"], errors="coerce")
            .fillna(0)
            .astype(np.int64)
            .to_numpy(),
            "max_utilization": np.round(taps["limit"].to_numpy(float) * 100).astype(np.int64),
        }
    )[keep]
    return panels, feeds.reset_index(drop=True)


def device_types_yaml(types: list[dict[str, Any]]) -> str:
    """The device types as YAML documents in the community library's layout, ``---`` between them."""
    import yaml

    docs = []
    for t in types:
        doc = {k: v for k, v in t.items() if k != "interfaces"}
        if t.get("interfaces"):
            doc["interfaces"] = [
                {"name": i["name"], "type": i["type"], **({"mgmt_only": True} if i["mgmt_only"] else {})}
                for i in t["interfaces"]
            ]
        docs.append(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    return "---\n" + "---\n".join(docs)


CSV_FILES = (
    ("locations", "locations"),
    ("racks", "racks"),
    ("devices", "devices"),
    ("interfaces", "interfaces"),
    ("rear_ports", "rear-ports"),
    ("front_ports", "front-ports"),
    ("cables", "cables"),
    ("power_panels", "power-panels"),
    ("power_feeds", "power-feeds"),
)


def write_dcim(design: Design, out: Path, stem: str, tables: DcimTables | None = None) -> list[Path]:
    """Write the DCIM files (module docstring) into ``out``; return their paths."""
    t = dcim_tables(design) if tables is None else tables
    paths = [write_bytes(out / f"{stem}-dcim-device-types.yaml", device_types_yaml(t.device_types).encode())]
    for attr, name in CSV_FILES:
        frame: pd.DataFrame = getattr(t, attr)
        paths.append(write_bytes(out / f"{stem}-dcim-{name}.csv", frame.to_csv(index=False).encode()))
    return paths
