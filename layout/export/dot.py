"""The fabric as a graph for graph tools: ``STEM-fabric.dot`` (Graphviz DOT, an undirected ``graph``).

One node per device of every network (GPU servers, storage and CPU nodes, switches), named by its device
id, with its ``role``, ``network``, ``tier``, ``model``, ``rack`` (rack id, empty if not placed) and
``ru``. One edge per pair of devices that are cabled together, with ``count`` (the parallel links between
the two), ``kind`` and ``network`` (``+``-joined where a pair has links of several), ``speed_gbps`` (the
fastest). networkx reads it (``networkx.nx_pydot.read_dot``), as do Graphviz and Gephi. Drawing a large
fabric with Graphviz's ``dot`` layout takes long: ``sfdp`` suits it better. Devices in device order, edges
by their ends: the same design gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from layout.export.atomic import write_text

if TYPE_CHECKING:
    from layout.design import Design


def quoted(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, line breaks as ``\\n``."""
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "").replace("\n", "\\n")
    return f'"{body}"'


def edge_table(design: Design) -> pd.DataFrame:
    """One row per cabled device pair (``lo`` < ``hi``, device numbers): ``count``, ``kind``, ``network``,
    ``speed_gbps``; sorted by the pair."""
    links = design.fabric.links
    a, b = links["a"].to_numpy(np.int64), links["b"].to_numpy(np.int64)
    frame = pd.DataFrame(
        {
            "lo": np.minimum(a, b),
            "hi": np.maximum(a, b),
            "kind": links["kind"].astype(str).to_numpy(),
            "network": links["network"].astype(str).to_numpy(),
            "speed_gbps": links["speed_gbps"].to_numpy(np.int64),
        }
    )

    def joined(values: pd.Series) -> str:
        return "+".join(sorted(set(values.tolist())))

    grouped = frame.groupby(["lo", "hi"], sort=True)
    return pd.DataFrame(
        {
            "count": grouped.size(),
            "kind": grouped["kind"].agg(joined),
            "network": grouped["network"].agg(joined),
            "speed_gbps": grouped["speed_gbps"].max(),
        }
    ).reset_index()


def fabric_dot(design: Design) -> str:
    """The DOT text of the design's fabric (every network)."""
    dev = design.fabric.devices
    ids = dev["device_id"].astype(str).tolist()
    rack_of = np.asarray(design.placement.device_rack, np.int64)
    ru = np.asarray(design.placement.device_ru, np.int64)
    rack_ids = design.placement.racks["rack_id"].astype(str).tolist()
    site = design.inputs.site.site
    lines = [
        f"graph {quoted(design.inputs.stem)} {{",
        f"  label={quoted(f'{site.name} (revision {site.revision}, {site.date}): every network')};",
        "  node [shape=box];",
    ]
    cols = zip(
        ids,
        dev["role"].astype(str).tolist(),
        dev["network"].astype(str).tolist(),
        dev["tier"].tolist(),
        dev["model"].astype(str).tolist(),
        rack_of.tolist(),
        ru.tolist(),
        strict=True,
    )
    for name, role, network, tier, model, rack, unit in cols:
        where = rack_ids[rack] if rack >= 0 else ""
        lines.append(
            f"  {quoted(name)} [role={quoted(role)}, network={quoted(network)}, tier={int(tier)}, "
            f"model={quoted(model)}, rack={quoted(where)}, ru={int(unit) if rack >= 0 else -1}];"
        )
    edges = edge_table(design)
    for lo, hi, count, kind, network, speed in edges.itertuples(index=False):
        lines.append(
            f"  {quoted(ids[lo])} -- {quoted(ids[hi])} [count={int(count)}, kind={quoted(kind)}, "
            f"network={quoted(network)}, speed_gbps={int(speed)}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_dot(design: Design, out: str | Path, stem: str) -> list[Path]:
    """Write ``STEM-fabric.dot`` into the folder ``out``; returns its path in a list."""
    return [write_text(Path(out) / f"{stem}-fabric.dot", fabric_dot(design))]
