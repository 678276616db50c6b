"""`dclayout design --dot`: the fabric as a DOT graph, read back by networkx (through pydot): one node per
device, one edge per cabled device pair with the parallel links counted, attributes as the design has
them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from layout.export import dot

pytest.importorskip("pydot", reason="networkx reads DOT through pydot (PyPI pydot, in the test extra)")
# pydot's parser still calls pyparsing's old camelCase names: its warnings, not ours
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:pydot")


def _read(path: Path) -> Any:
    import networkx as nx

    return nx.nx_pydot.read_dot(str(path))


def _unquoted(value: Any) -> str:
    text = str(value)
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


@pytest.mark.parametrize("stem", ["superpod-4su", "gb300-spectrum-x"])
def test_networkx_reads_every_device_and_link(
    stem: str, design_of: Callable[[str], Any], tmp_path: Path
) -> None:
    design = design_of(stem)
    (path,) = dot.write_dot(design, tmp_path, stem)
    g = _read(path)
    dev, links = design.fabric.devices, design.fabric.links
    ids = dev["device_id"].astype(str).tolist()
    pairs = Counter(
        tuple(sorted((ids[a], ids[b]))) for a, b in zip(links["a"].tolist(), links["b"].tolist(), strict=True)
    )
    assert g.number_of_nodes() == len(dev)
    assert g.number_of_edges() == len(pairs)
    assert sorted(g.nodes) == sorted(ids)
    read = Counter()
    for u, v, data in g.edges(data=True):
        read[tuple(sorted((u, v)))] += int(data["count"])
    assert read == pairs, "each pair's count is its parallel links"
    assert sum(read.values()) == len(links)
    role = dev["role"].astype(str).tolist()
    rack = design.placement.device_rack
    racks = design.placement.racks["rack_id"].astype(str).tolist()
    for i in range(0, len(ids), 7):
        node = g.nodes[ids[i]]
        assert _unquoted(node["role"]) == role[i]
        assert _unquoted(node["rack"]) == (racks[rack[i]] if rack[i] >= 0 else "")
    print(
        f"{stem}: networkx read {g.number_of_nodes()} nodes, {g.number_of_edges()} edges, {len(links)} links"
    )


def test_a_pair_of_both_kinds_is_one_edge() -> None:
    """Links of two kinds between the same two devices (either way round) make one edge of both."""
    import numpy as np
    import pandas as pd

    class Fab:
        links = pd.DataFrame(
            {"a": [0, 1, 0], "b": [1, 0, 2], "kind": ["storage", "frontend", "oob"],
             "network": ["storage", "frontend", "oob"], "speed_gbps": [400, 200, 1]}
        )  # fmt: skip

    class D:
        fabric = Fab()

    table = dot.edge_table(D())  # type: ignore[arg-type]
    assert table.to_dict("records") == [
        {"lo": 0, "hi": 1, "count": 2, "kind": "frontend+storage", "network": "frontend+storage",
         "speed_gbps": 400},
        {"lo": 0, "hi": 2, "count": 1, "kind": "oob", "network": "oob", "speed_gbps": 1},
    ]  # fmt: skip
    assert isinstance(table["count"].to_numpy(), np.ndarray)


def test_quoted_names_survive_the_reader(tmp_path: Path) -> None:
    import pydot

    text = "graph g {\n  " + dot.quoted('a "b" \\ c') + " -- " + dot.quoted("d\ne") + ";\n}\n"
    (graph,) = pydot.graph_from_dot_data(text)
    (edge,) = graph.get_edges()
    assert edge.get_source() == dot.quoted('a "b" \\ c')


def test_same_design_same_bytes(design_of: Callable[[str], Any], tmp_path: Path) -> None:
    design = design_of("superpod-4su")
    (a,) = dot.write_dot(design, tmp_path / "a", "s")
    (b,) = dot.write_dot(design, tmp_path / "b", "s")
    assert a.read_bytes() == b.read_bytes()


def test_the_cli_writes_it(dclayout: Any, tmp_path: Path) -> None:
    done = dclayout("design", "sites/superpod-4su.toml", "--no-svg", "--dot", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json", "superpod-4su-fabric.dot"]


def test_the_readme_example_is_what_networkx_says(design_of: Callable[[str], Any], tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    shown = readme.split("superpod-4su-fabric.dot'); print(g)\"\n", 1)[1].splitlines()[0]
    (path,) = dot.write_dot(design_of("superpod-4su"), tmp_path, "superpod-4su")
    assert shown == str(_read(path))
