"""The port map as a table: ``ports_table(fabric, placement, cabling, site_code)``, one row per link
with both ends' device, rack, RU, port, cage and module and a TIA-606-style ``cable_id``
(``STEM-ports.csv``), built in pyarrow (:func:`ports_arrow`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout.export.tables.csv import decoded

if TYPE_CHECKING:
    from layout.cable import Cabling
    from layout.design import Design
    from layout.fabric import Fabric
    from layout.place import Placement


PORT_COLUMNS = [
    "cable_id", "network", "kind",
    "a_device", "a_model", "a_rack", "a_ru", "a_port", "a_cage", "a_form", "a_module",
    "b_device", "b_model", "b_rack", "b_ru", "b_port", "b_cage", "b_form", "b_module",
    "media", "media_class", "assembly", "length_m", "stock_length_m",
]  # fmt: skip


def ports_table(fabric: Fabric, placement: Placement, cabling: Cabling, site_code: str) -> pd.DataFrame:
    """:func:`ports_arrow` as a pandas DataFrame of plain text, integer and float columns."""
    return decoded(ports_arrow(fabric, placement, cabling, site_code)).to_pandas()


def ports_arrow(fabric: Fabric, placement: Placement, cabling: Cabling, site_code: str) -> Any:
    """One row per link of ``cabling.links`` (same order) with both ends' device, model, rack, RU, port,
    cage, form factor and module (``PORT_COLUMNS``), as a pyarrow Table.

    ``cable_id`` is one TIA-606-style label printed on both ends: ``SITE.`` then the near end and the
    far end, ``/`` between them, each end as building.hall.row.rack, ``-U`` and the device's RU, ``:``
    and the port (``7.2`` = cage 7, port 2), e.g. ``SUPERPOD-4SU.B1.H1.R01.K05-U41:7.2/B1.H1.R01.K01-
    U02:be1.1``. An end whose device is not placed is named by the device id instead of rack and RU.
    ``a_module``: what plugs into the cage, ``mmf/x2`` (a twin-port multimode module), ``dac/breakout``
    (a copper assembly: ``straight``, ``twin`` or ``breakout``), empty without a medium.

    Every text column but ``cable_id`` is dictionary-encoded: its few distinct names (ids, models,
    ports, ...) held once, each row an index into them, decoded only where a file is written (pyarrow's
    CSV writer reads dictionaries as they are). ``cable_id`` is joined in one pass from each end's
    device prefix (worked out per device, not per link) and port name.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from layout.cable.cages import ASSEMBLIES, FORMS
    from layout.cable.ports import cage_label_codes, port_label_codes

    pm = cabling.ports
    if pm is None:
        raise ValueError("the cabling has no port map")
    links = cabling.links
    dev = fabric.devices

    def names(values: Any) -> Any:
        return pa.array(values, pa.string(), from_pandas=True)

    def coded(idx: np.ndarray, dictionary: Any) -> Any:  # a dictionary array: no string copied per row
        return pa.DictionaryArray.from_arrays(pa.array(np.asarray(idx, np.int32)), dictionary)

    def categorical(col: pd.Series) -> Any:
        codes = col.cat.codes.to_numpy()
        return pa.DictionaryArray.from_arrays(
            pa.array(codes.astype(np.int32), mask=codes < 0), names(col.cat.categories.astype(str))
        )

    racks = placement.racks["rack_id"].astype(str)
    rack_ids = names([*racks.tolist(), ""])
    dev_ids = names(dev["device_id"].astype(str))
    dev_models = names(dev["model"].astype("string"))
    ru = np.asarray(placement.device_ru, dtype=np.int64)
    # each device's end label up to the port: its rack (B1.H1.R01.K05) and RU, or its id when not placed
    device_rack = np.asarray(placement.device_rack, dtype=np.int64)
    placed = device_rack >= 0
    where = pc.if_else(
        pa.array(placed),
        pc.take(names(pc.replace_substring(rack_ids, "/", ".")), np.where(placed, device_rack, len(racks))),
        dev_ids,
    )
    ru_label = names([f"-U{u:02d}:" for u in range(max(int(ru.max(initial=0)), 0) + 1)])
    prefix = pc.binary_join_element_wise(where, pc.take(ru_label, np.maximum(ru, 0)), "")
    mcode = links["media"].cat.codes.to_numpy().astype(np.int64)
    media_ids = [str(c) for c in links["media"].cat.categories]  # catalog ids, then "" (no medium)
    mclass = links["media_class"]
    optical_codes = [i for i, c in enumerate(mclass.cat.categories) if c in ("mmf", "smf", "coherent")]
    optical = np.isin(mclass.cat.codes.to_numpy(), optical_codes)
    group = pm.group.astype(np.int64)
    port_names, port_inv = port_label_codes(group, pm.cage, pm.port, pm.per_cage)
    ports = names(port_names)
    dotted = pc.replace_substring(ports, "/", ".")
    cage_names, cage_inv = cage_label_codes(group, pm.cage)
    cages = names(cage_names)
    per_max = int(pm.per_cage.max(initial=1)) + 1
    # module names: (medium, per-cage ports or copper assembly)
    kinds = [f"/x{k}" for k in range(per_max)] + [f"/{a}" for a in ASSEMBLIES]
    modules = names([m + k if m else "" for m in media_ids for k in kinds])
    forms = names(list(FORMS))
    cols: dict[str, Any] = {}
    ends: dict[str, Any] = {}
    for side, dcol, rcol in (("a", "a", "rack_a"), ("b", "b", "rack_b")):
        sl = pm.end(side)
        d = links[dcol].to_numpy(np.int64)
        r = links[rcol].to_numpy(np.int64)
        r = np.where(r >= 0, r, len(racks))
        # the assembly codes are int8: widened first, or per_max (800 slow links in a cage) overflows them
        module = mcode * len(kinds) + np.where(
            optical, pm.per_cage[sl], per_max + pm.assembly.astype(np.int64)
        )
        cols[f"{side}_device"] = coded(d, dev_ids)
        cols[f"{side}_model"] = coded(d, dev_models)
        cols[f"{side}_rack"] = coded(r, rack_ids)
        cols[f"{side}_ru"] = pa.array(ru[d])
        cols[f"{side}_port"] = coded(port_inv[sl], ports)
        cols[f"{side}_cage"] = coded(cage_inv[sl], cages)
        cols[f"{side}_form"] = coded(pm.form[sl], forms)
        cols[f"{side}_module"] = coded(module, modules)
        ends[side] = (pc.take(prefix, d), pc.take(dotted, port_inv[sl]))
    cable_id = pc.binary_join_element_wise(f"{site_code}.", *ends["a"], "/", *ends["b"], "")
    table = {
        "cable_id": cable_id,
        "network": categorical(links["network"]),
        "kind": categorical(links["kind"]),
        **cols,
        "media": categorical(links["media"]),
        "media_class": categorical(links["media_class"]),
        "assembly": coded(pm.assembly, names(list(ASSEMBLIES))),
        "length_m": pa.array(links["length_m"].round(3).to_numpy(np.float64), from_pandas=True),
        "stock_length_m": pa.array(links["stock_length_m"].to_numpy(np.float64), from_pandas=True),
    }
    return pa.table([table[c] for c in PORT_COLUMNS], names=PORT_COLUMNS)


def port_tables(design: Design, ports: bool = True) -> dict[str, Any]:
    """``write_design_tables``'s ``ports`` (the port map as :func:`ports_arrow`'s Table, only when
    ``ports``: one row per link) and
    ``cages`` (the Ports sheet) of a design; nothing when its cabling has no port map."""
    pm = design.cabling.ports
    if pm is None:
        return {}
    out = {"cages": pm.cages}
    if ports:
        code = design.inputs.stem.upper()
        out["ports"] = ports_arrow(design.fabric, design.placement, design.cabling, code)
    return out
