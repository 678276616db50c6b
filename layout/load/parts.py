"""The parts of a site file the cross checks read, as plain dicts of validated field values: from a
validated site, or from the raw file field by field when pydantic refused some of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from layout.model import SiteFile
from layout.model.site import Building, Cluster, Duct, Hall, TrayEdit, UserRow

# The cross checks read plain dicts of validated field values, so that they also run on the parts of a
# file that pydantic accepted while other parts were refused (no false "unknown hall" then).
Fields = dict[str, Any]


@dataclass
class BuildingParts:
    index: int
    f: Fields
    halls: list[tuple[int, Fields]]


@dataclass
class Parts:
    buildings: list[BuildingParts]
    ducts: list[tuple[int, Fields]]
    cluster: Fields | None
    rows: list[tuple[int, Fields]]
    tray_edits: dict[str, list[tuple[int, Fields]]]
    refused: set[str] = field(default_factory=set)  # "B1", "B1/H1": named in the file, refused by pydantic


def _fields(m: BaseModel) -> Fields:
    return {name: getattr(m, name) for name in type(m).model_fields}


def parts_of(site: SiteFile) -> Parts:
    return Parts(
        buildings=[
            BuildingParts(bi, _fields(b), [(hi, _fields(h)) for hi, h in enumerate(b.hall)])
            for bi, b in enumerate(site.building)
        ],
        ducts=[(i, _fields(d)) for i, d in enumerate(site.duct)],
        cluster=_fields(site.cluster),
        rows=[(i, _fields(r)) for i, r in enumerate(site.row)],
        tray_edits={
            "tray_block": [(i, _fields(t)) for i, t in enumerate(site.tray_block)],
            "tray_add": [(i, _fields(t)) for i, t in enumerate(site.tray_add)],
        },
    )


@cache
def _adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    fld = model.model_fields[name]
    tp: Any = Annotated[(fld.annotation, *fld.metadata)] if fld.metadata else fld.annotation
    return TypeAdapter(tp)


def _lenient(
    model: type[BaseModel],
    raw: Any,
    loc: tuple[Any, ...],
    bad: set[tuple[Any, ...]],
    skip: tuple[str, ...] = (),
) -> Fields:
    """The fields of ``raw`` that pydantic accepted (validated one by one), plus defaults of absent ones."""
    out: Fields = {}
    if not isinstance(raw, dict):
        return out
    for name, fld in model.model_fields.items():
        key = fld.alias or name
        if name in skip:
            continue
        if key in raw:
            if loc + (key,) in bad:
                continue
            try:
                out[name] = _adapter(model, name).validate_python(raw[key])
            except ValidationError:
                continue
        elif not fld.is_required():
            out[name] = fld.get_default(call_default_factory=True)
    return out


def _raw_items(raw: Any, key: str, loc: tuple[Any, ...]) -> list[tuple[int, Any, tuple[Any, ...]]]:
    v = raw.get(key) if isinstance(raw, dict) else None
    return [(i, x, (*loc, key, i)) for i, x in enumerate(v)] if isinstance(v, list) else []


def parts_from_raw(data: dict[str, Any], bad: set[tuple[Any, ...]]) -> Parts:
    def each(model: type[BaseModel], key: str) -> list[tuple[int, Fields]]:
        return [(i, _lenient(model, x, loc, bad)) for i, x, loc in _raw_items(data, key, ())]

    buildings = [
        BuildingParts(
            bi,
            _lenient(Building, b, bloc, bad, skip=("hall",)),
            [(hi, _lenient(Hall, h, hloc, bad)) for hi, h, hloc in _raw_items(b, "hall", bloc)],
        )
        for bi, b, bloc in _raw_items(data, "building", ())
    ]
    refused: set[str] = set()
    raw_buildings = data.get("building")
    for b in raw_buildings if isinstance(raw_buildings, list) else [raw_buildings]:
        if not isinstance(b, dict) or not isinstance(b.get("id"), str):
            continue
        bid = b["id"]
        halls = b.get("hall")
        for h in halls if isinstance(halls, list) else [halls]:
            hid = h.get("id") if isinstance(h, dict) else None
            if isinstance(hid, str):
                refused.add(f"{bid}/{hid}")
        refused.add(bid)
    refused -= {b.f["id"] for b in buildings if "id" in b.f}
    refused -= {f"{b.f['id']}/{h['id']}" for b in buildings if "id" in b.f for _, h in b.halls if "id" in h}
    cluster_raw = data.get("cluster")
    return Parts(
        buildings=buildings,
        ducts=each(Duct, "duct"),
        cluster=_lenient(Cluster, cluster_raw, ("cluster",), bad) if isinstance(cluster_raw, dict) else None,
        rows=each(UserRow, "row"),
        tray_edits={"tray_block": each(TrayEdit, "tray_block"), "tray_add": each(TrayEdit, "tray_add")},
        refused=refused,
    )
