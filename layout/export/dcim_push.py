"""``dclayout push SITE --url URL``: create or update the design's DCIM objects (:mod:`layout.export.dcim`)
in a Nautobot over its REST API, idempotently: what is there and equal is left alone, what differs is
patched, what is missing is created, in bulk; a second push of the same design changes nothing.

The token comes from the environment (``DCLAYOUT_DCIM_TOKEN``), never from the command line. Objects
are matched by their natural keys: locations, racks, devices, manufacturers, roles and location types
by name, device types by model, templates and ports by (device or type, name), power feeds by (panel,
name), cables by label. Nothing the design does not name is touched or deleted.

Nautobot's models, as this maps them: the site, its buildings and halls are nested locations of the
location types ``Site``, ``Building`` and ``Hall``; roles and statuses are shared objects (``Planned``
is given the content types it needs); the racks' floor position is three integer custom fields
(``floor_x_mm``, ``floor_y_mm``, ``floor_rotation_deg``); a cable's length is an integer there, so it
is pushed in centimetres (metres, rounded up, past 327 m). Only the standard library is used (urllib).
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from layout.export.dcim import STATUS, DcimTables

TOKEN_ENV = "DCLAYOUT_DCIM_TOKEN"
PAGE = 1000
BATCH = 500
LOCATION_TYPES = (
    ("Site", None, ["dcim.rack", "dcim.device", "dcim.powerpanel"]),
    ("Building", "Site", ["dcim.rack", "dcim.device", "dcim.powerpanel"]),
    ("Hall", "Building", ["dcim.rack", "dcim.device", "dcim.powerpanel"]),
)
STATUS_TYPES = [
    "dcim.location", "dcim.rack", "dcim.device", "dcim.interface", "dcim.cable", "dcim.powerfeed",
]  # fmt: skip
CUSTOM_FIELDS = (
    ("floor_x_mm", "Floor x (mm)"),
    ("floor_y_mm", "Floor y (mm)"),
    ("floor_rotation_deg", "Floor rotation (deg)"),
)
MAX_CM = 32767  # Nautobot's cable length is a small positive integer


class PushError(Exception):
    """A request the server refused, or a server that cannot be reached: one line."""


@dataclass
class Tally:
    """Per object kind, how many were created, updated and left as they were."""

    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    unchanged: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, created: int, updated: int, unchanged: int) -> None:
        self.created[kind] = self.created.get(kind, 0) + created
        self.updated[kind] = self.updated.get(kind, 0) + updated
        self.unchanged[kind] = self.unchanged.get(kind, 0) + unchanged

    @property
    def changes(self) -> int:
        return sum(self.created.values()) + sum(self.updated.values())


Send = Callable[[str, str, Any], Any]


def http_client(url: str, token: str, timeout_s: float = 300.0) -> Send:
    """A JSON client for the server at ``url``: ``send(method, path, body)`` returns the decoded reply."""
    base = url.rstrip("/")

    def send(method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            base + path,
            data=data,
            method=method,
            headers={
                "Authorization": f"Token {token}",
                "Accept": "application/json",
                "Content-Type": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout_s) as r:
                raw = r.read()
        except urllib.error.HTTPError as e:
            detail = e.read().decode(errors="replace")[:400].replace("\n", " ")
            raise PushError(f"{method} {path}: HTTP {e.code}: {detail}") from None
        except (urllib.error.URLError, OSError) as e:
            raise PushError(f"{method} {base}{path}: {getattr(e, 'reason', e)}") from None
        return json.loads(raw) if raw else None

    return send


def _plain(value: Any) -> Any:
    """A value as the API returns it, reduced to what we send: an object's id, a choice's value."""
    if isinstance(value, dict):
        if "id" in value:
            return value["id"]
        if "value" in value:
            return value["value"]
    if isinstance(value, list):
        return sorted(_plain(v) for v in value)
    return value


class Pusher:
    """One push: the server's objects of each kind read once, then created or patched in bulk."""

    def __init__(self, send: Send):
        self.send = send
        self.tally = Tally()

    def all(self, path: str, query: str = "") -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        offset = 0
        while True:
            sep = "&" if query else ""
            page = self.send("GET", f"{path}?{query}{sep}limit={PAGE}&offset={offset}&depth=0", None)
            out += page["results"]
            offset += len(page["results"])
            if not page.get("next") or not page["results"]:
                return out

    def sync(
        self,
        kind: str,
        path: str,
        want: list[dict[str, Any]],
        key: Callable[[Mapping[str, Any]], Any],
        on_create: Mapping[str, Any] | None = None,
    ) -> dict[Any, str]:
        """Make the server's ``path`` objects hold ``want`` (matched by ``key``); return key → id.
        ``on_create``: fields given only to objects this creates (what the server may set otherwise)."""
        have = {key({k: _plain(v) for k, v in o.items()}): o for o in self.all(path)}
        create, patch, same = [], [], 0
        for w in want:
            o = have.get(key(w))
            if o is None:
                create.append({**w, **(on_create or {})})
                continue
            diff = {k: v for k, v in w.items() if not _equal(_plain(o.get(k)), v)}
            if diff:
                patch.append({"id": o["id"], **diff})
            else:
                same += 1
        for i in range(0, len(create), BATCH):
            for o in self.send("POST", path, create[i : i + BATCH]):
                have[key({k: _plain(v) for k, v in o.items()})] = o
        for i in range(0, len(patch), BATCH):
            self.send("PATCH", path, patch[i : i + BATCH])
        self.tally.add(kind, len(create), len(patch), same)
        return {k: o["id"] for k, o in have.items()}


def _equal(have: Any, want: Any) -> bool:
    if want == "" and have is None:  # a blank choice or text comes back as null
        return True
    if isinstance(want, dict):
        return isinstance(have, dict) and all(_equal(have.get(k), v) for k, v in want.items())
    if isinstance(want, list):
        return sorted(map(str, _plain(have) or [])) == sorted(map(str, want))
    if isinstance(want, float) or isinstance(have, float):
        try:
            return math.isclose(float(have), float(want))
        except (TypeError, ValueError):
            return False
    return bool(have == want)


def _content_types(p: Pusher, path: str, name: str, needed: list[str], extra: Mapping[str, Any]) -> str:
    """The id of the shared object ``name`` at ``path`` (a status, a role), created or given the
    content types it lacks."""
    found = [o for o in p.all(path) if o.get("name") == name]
    if not found:
        made = p.send("POST", path, {"name": name, "content_types": needed, **extra})
        p.tally.add(path, 1, 0, 0)
        return str(made["id"])
    o = found[0]
    have = set(o.get("content_types") or [])
    if set(needed) <= have:
        p.tally.add(path, 0, 0, 1)
    else:
        p.send("PATCH", f"{path}{o['id']}/", {"content_types": sorted(have | set(needed))})
        p.tally.add(path, 0, 1, 0)
    return str(o["id"])


def _rows(frame: Any) -> Iterable[Any]:
    """A table's rows as named tuples (their fields read as plain values)."""
    return list(frame.itertuples(index=False))


def _cm(length_m: float) -> tuple[int, str]:
    cm = math.ceil(round(length_m * 100, 6))
    return (max(cm, 1), "cm") if cm <= MAX_CM else (math.ceil(length_m), "m")


def push(t: DcimTables, send: Send) -> Tally:
    """Push the tables through ``send`` (:func:`http_client`); return what was created and updated."""
    p = Pusher(send)
    status = _content_types(p, "/api/extras/statuses/", STATUS, STATUS_TYPES, {"color": "2196f3"})
    roles = {
        r: _content_types(p, "/api/extras/roles/", r, ["dcim.device"], {"color": "9e9e9e"})
        for r in sorted(set(t.devices["role"]))
    }
    lt: dict[str, str] = {}
    for name, parent, cts in LOCATION_TYPES:
        want = {"name": name, "nestable": False, "content_types": cts}
        if parent:
            want["parent"] = lt[parent]
        lt[name] = p.sync("location_types", "/api/dcim/location-types/", [want], lambda o: o["name"])[name]
    loc: dict[str, str] = {}
    for level in ("Site", "Building", "Hall"):
        rows = t.locations[t.locations["location_type"] == level]
        want_l = [
            {
                "name": n,
                "location_type": lt[level],
                "status": status,
                **({"parent": loc[par]} if par else {}),
            }
            for n, par in zip(rows["name"], rows["parent"].fillna(""), strict=True)
        ]
        loc.update(p.sync("locations", "/api/dcim/locations/", want_l, lambda o: o["name"]))
    for k, label in CUSTOM_FIELDS:
        p.sync(
            "custom_fields",
            "/api/extras/custom-fields/",
            [{"key": k, "label": label, "type": "integer", "content_types": ["dcim.rack"]}],
            lambda o: o.get("key"),
        )
    makers = p.sync(
        "manufacturers",
        "/api/dcim/manufacturers/",
        [{"name": m} for m in sorted({d["manufacturer"] for d in t.device_types})],
        lambda o: o["name"],
    )
    types = p.sync(
        "device_types",
        "/api/dcim/device-types/",
        [
            {
                "manufacturer": makers[d["manufacturer"]],
                "model": d["model"],
                "part_number": d["part_number"],
                "u_height": d["u_height"],
                "is_full_depth": d["is_full_depth"],
                "comments": d["comments"],
            }
            for d in t.device_types
        ],
        lambda o: o["model"],
    )
    type_of = {d["slug"]: types[d["model"]] for d in t.device_types}
    p.sync(
        "interface_templates",
        "/api/dcim/interface-templates/",
        [
            {
                "device_type": type_of[d["slug"]],
                "name": i["name"],
                "type": i["type"],
                "mgmt_only": i["mgmt_only"],
            }
            for d in t.device_types
            for i in d.get("interfaces", [])
        ],
        lambda o: (o["device_type"], o["name"]),
    )
    racks = p.sync(
        "racks",
        "/api/dcim/racks/",
        [
            {
                "name": r.name,
                "location": loc[r.location],
                "status": status,
                "u_height": int(r.u_height),
                "width": int(r.width),
                "facility_id": r.facility_id,
                "comments": r.comments,
                "custom_fields": {
                    "floor_x_mm": int(r.cf_floor_x_mm),
                    "floor_y_mm": int(r.cf_floor_y_mm),
                    "floor_rotation_deg": int(r.cf_floor_rotation_deg),
                },
            }
            for r in _rows(t.racks)
        ],
        lambda o: o["name"],
    )
    devices = p.sync(
        "devices",
        "/api/dcim/devices/",
        [
            {
                "name": d.name,
                "device_type": type_of[d.device_type],
                "role": roles[d.role],
                "location": loc[d.location],
                "rack": racks[d.rack],
                "status": status,
                **({"position": int(d.position), "face": d.face} if d.face else {}),
            }
            for d in _rows(t.devices)
        ],
        lambda o: o["name"],
    )
    ifaces = p.sync(
        "interfaces",
        "/api/dcim/interfaces/",
        [
            {"device": devices[i.device], "name": i.name, "type": i.type, "mgmt_only": bool(i.mgmt_only)}
            for i in _rows(t.interfaces)
        ],
        lambda o: (o["device"], o["name"]),
        on_create={"status": status},  # those the device types made keep the status they were given
    )
    rear = p.sync(
        "rear_ports",
        "/api/dcim/rear-ports/",
        [
            {"device": devices[r.device], "name": r.name, "type": r.type, "positions": int(r.positions)}
            for r in _rows(t.rear_ports)
        ],
        lambda o: (o["device"], o["name"]),
    )
    front = p.sync(
        "front_ports",
        "/api/dcim/front-ports/",
        [
            {
                "device": devices[f.device],
                "name": f.name,
                "type": f.type,
                "rear_port": rear[(devices[f.device], f.rear_port)],
                "rear_port_position": int(f.rear_port_position),
            }
            for f in _rows(t.front_ports)
        ],
        lambda o: (o["device"], o["name"]),
    )
    ends = {"dcim.interface": ifaces, "dcim.frontport": front, "dcim.rearport": rear}
    want_c = []
    for c in _rows(t.cables):
        length, unit = _cm(float(c.length))
        want_c.append(
            {
                "termination_a_type": c.side_a_type,
                "termination_a_id": ends[c.side_a_type][(devices[c.side_a_device], c.side_a_name)],
                "termination_b_type": c.side_b_type,
                "termination_b_id": ends[c.side_b_type][(devices[c.side_b_device], c.side_b_name)],
                "status": status,
                "type": c.type or "",
                "label": c.label,
                "length": length,
                "length_unit": unit,
            }
        )
    p.sync("cables", "/api/dcim/cables/", want_c, lambda o: o["label"])
    panels = p.sync(
        "power_panels",
        "/api/dcim/power-panels/",
        [{"name": r.name, "location": loc[r.location]} for r in _rows(t.power_panels)],
        lambda o: o["name"],
    )
    p.sync(
        "power_feeds",
        "/api/dcim/power-feeds/",
        [
            {
                "power_panel": panels[f.power_panel],
                "name": f.name,
                "rack": racks[f.rack],
                "status": status,
                "type": f.type,
                "supply": f.supply,
                "phase": f.phase,
                "voltage": int(f.voltage),
                "amperage": int(f.amperage),
                "max_utilization": int(f.max_utilization),
            }
            for f in _rows(t.power_feeds)
        ],
        lambda o: (o["power_panel"], o["name"]),
    )
    return p.tally


def read_counts(send: Send, t: DcimTables) -> dict[str, int]:
    """What the server holds of the design's objects, counted over its REST API (for checks)."""
    p = Pusher(send)
    names = set(t.devices["name"])
    devs = {o["id"] for o in p.all("/api/dcim/devices/") if o["name"] in names}

    def on_devices(path: str) -> int:
        return sum(1 for o in p.all(path) if _plain(o.get("device")) in devs)

    locs = set(t.locations["name"])
    racks = set(t.racks["name"])
    labels = set(t.cables["label"])
    feeds = set(t.power_feeds["name"])
    return {
        "locations": sum(1 for o in p.all("/api/dcim/locations/") if o["name"] in locs),
        "racks": sum(1 for o in p.all("/api/dcim/racks/") if o["name"] in racks),
        "devices": len(devs),
        "interfaces": on_devices("/api/dcim/interfaces/"),
        "rear_ports": on_devices("/api/dcim/rear-ports/"),
        "front_ports": on_devices("/api/dcim/front-ports/"),
        "cables": sum(1 for o in p.all("/api/dcim/cables/") if o.get("label") in labels),
        "power_feeds": sum(1 for o in p.all("/api/dcim/power-feeds/") if o["name"] in feeds),
    }


def summary_line(tally: Tally, kinds: Iterable[str] | None = None) -> str:
    keys = list(kinds) if kinds is not None else sorted(set(tally.created) | set(tally.updated))
    parts = [
        f"{k.strip('/').split('/')[-1].replace('_', ' ')} +{tally.created.get(k, 0)} ~{tally.updated.get(k, 0)}"
        for k in keys
        if tally.created.get(k, 0) or tally.updated.get(k, 0)
    ]
    return "; ".join(parts) if parts else "nothing to change"
