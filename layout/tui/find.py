"""Find: what a typed id names (a building, hall, row, rack, device or cable) and where the map shows it.

No Textual here: the find dialog, the tests and the headless session call :func:`find`. Ids are matched
without regard to case; a rack or row may be given with dots (``B1.H1.R03.K07``, as in cable ids) or
relative to the hall on screen (``R03``, ``R03/K07``); a cable by the ports table's ``cable_id``, with or
without the site code in front.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np

from layout.load import Inputs
from layout.tui.results import Result
from layout.tui.trace import cable_ids

HOW = (
    "a rack (B1/H1/R03/K07), a row (B1/H1/R03, or R03 in this hall), a hall (B1/H1), a building, "
    "a device (srv-00017, be-leaf-p0-u0-r0) or a cable id from the ports table"
)


@dataclass(frozen=True)
class Found:
    """What an id names: ``kind`` (building, hall, row, rack, device, cable), its id as the design spells
    it, the hall and point the map goes to, and the rack, device and link it is (-1: none)."""

    kind: str
    name: str
    hall: str
    x_m: float
    y_m: float
    rack_no: int = -1
    device: int = -1
    link: int = -1
    detail: str = ""

    def describe(self) -> str:
        return f"{self.kind} {self.name}" + (f": {self.detail}" if self.detail else "")


def find(result: Result | None, inputs: Inputs, text: str, hall: str | None = None) -> Found | str:
    """What ``text`` names in ``result`` (the design on screen; None: only buildings and halls are known),
    or a one-line message saying why nothing was found. ``hall``: the hall on screen (for ``R03``)."""
    query = text.strip()
    if not query:
        return f"type {HOW}"
    if result is None:
        return (
            _place_without_design(inputs, query)
            or f"{query}: the design is not done yet; try again in a moment"
        )
    scene = result.scene
    places = {k.upper(): k for k in scene.place_boxes}
    if ":" in query:
        return _cable(result, query)
    dotted = query.replace(".", "/") if "/" not in query else query
    for candidate in (query, dotted, f"{hall}/{dotted}" if hall else ""):
        key = places.get(candidate.upper()) if candidate else None
        if key is not None:
            return _place(result, key)
    got = _device(result, query)
    if got is not None:
        return got
    near = difflib.get_close_matches(
        dotted.upper(), [k for k in places if abs(len(k) - len(dotted)) <= 2], 3, 0.7
    )
    hint = f"; did you mean {', '.join(places[k] for k in near)}?" if near else f"; type {HOW}"
    return f"nothing called {query!r} in this design{hint}"


def _place_without_design(inputs: Inputs, query: str) -> Found | None:
    for b, h in inputs.site.halls():
        key = f"{b.id}/{h.id}"
        if query.upper() in (key.upper(), b.id.upper()):
            xs, ys = zip(*h.polygon, strict=True)
            return Found("hall", key, key, (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)
    return None


def _place(result: Result, key: str) -> Found | str:
    scene = result.scene
    at = scene.locate(key)
    if at is None:
        return f"{key}: not on any hall map"
    hall, x, y = at
    racks = result.racks
    depth = key.count("/")
    if depth >= 3:
        rack_no = int(np.flatnonzero(racks["rack_id"].to_numpy() == key)[0])
        r = racks.iloc[rack_no]
        return Found("rack", key, hall, x, y, rack_no=rack_no, detail=f"{r['template']}, {r['kind']}")
    if depth == 2:
        n = int((racks["row"].to_numpy() == key).sum())
        return Found("row", key, hall, x, y, detail=f"{n} racks")
    return Found("hall" if depth == 1 else "building", key, hall, x, y)


def _device(result: Result, query: str) -> Found | None:
    ids = result.device_arrays[2]
    hit = np.flatnonzero(ids == query)
    if not len(hit):
        hit = np.flatnonzero(np.char.lower(ids.astype(str)) == query.lower())
    if not len(hit):
        return None
    dev = int(hit[0])
    d = result.design
    rack_no = int(d.placement.device_rack[dev])
    if rack_no < 0:
        return Found("device", str(ids[dev]), "", 0.0, 0.0, device=dev, detail="not placed in any rack")
    rack_id = str(result.racks["rack_id"].iat[rack_no])
    at = result.scene.locate(rack_id)
    if at is None:
        return None
    ru = int(d.placement.device_ru[dev])
    model = result.device_arrays[1][dev]
    return Found(
        "device", str(ids[dev]), at[0], at[1], at[2], rack_no, dev, detail=f"{model} in {rack_id} at U{ru}"
    )


def _cable(result: Result, query: str) -> Found | str:
    """A cable by its ports-table id: its first end names the rack; the rack's links are labelled the
    ports table's way and compared."""
    code = result.design.inputs.stem.upper() + "."
    label = query.upper()
    full = label if label.startswith(code) else code + label
    first = full[len(code) :].split("/")[0].split("-U")[0]
    rack_id = first.replace(".", "/")
    racks = result.racks["rack_id"].astype(str).str.upper().to_numpy()
    hit = np.flatnonzero(racks == rack_id)
    if not len(hit):
        return f"no cable {query!r}: its first end names no rack of this design ({rack_id})"
    rack_no = int(hit[0])
    links = result.rack_links(rack_no)
    names = [n.upper() for n in cable_ids(result, links)]
    if full not in names:
        rack = str(result.racks["rack_id"].iat[rack_no])
        return f"no cable {query!r}: rack {rack} has {len(links)} cables, none of that id"
    link = int(links[names.index(full)])
    table = result.design.cabling.links
    rack_id = str(result.racks["rack_id"].iat[rack_no])
    at = result.scene.locate(rack_id)
    assert at is not None  # a placed rack is on its hall's map
    media, kind = str(table["media"].iat[link]) or "no medium", str(table["kind"].iat[link])
    detail = f"{media}, {result.link_length_m[link]:.1f} m, {kind}"
    return Found(
        "cable",
        cable_ids(result, np.array([link]))[0],
        at[0],
        at[1],
        at[2],
        rack_no,
        link=link,
        detail=detail,
    )
