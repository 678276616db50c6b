"""Slurm's network topology of the GPU (backend) fabric, for the scheduler that places jobs by it.

- ``STEM-topology.conf``: the ``topology/tree`` plugin's file (``topology.conf(5)``): one ``SwitchName=``
  line per backend switch, a leaf with ``Nodes=`` (the servers it links to), every switch above with
  ``Switches=`` (the switches below it that it links to). Node names are the design's server ids; lists
  are Slurm host lists (``srv-[00000-00031]``). A server on several leaves (rail-optimized: one leaf per
  rail) is listed under each of them, as it is wired; Slurm warns of "multiple leaf switches" and places
  jobs by the leaves the nodes share.
- For NVLink racks (the server's catalog ``nvlink_gpus`` spans a whole rack, as NVL72), also the
  ``topology/block`` plugin's file (Slurm 23.11 and later), ``STEM-topology-block.conf``: one
  ``BlockName=`` line per NVLink domain (its servers, named after its first rack) and ``BlockSizes=`` (the
  domain's servers, then doubled up to one scalable unit), and ``STEM-topology.yaml``
  (``topology.yaml(5)``, Slurm 25.05 and later), which holds both: the block topology as the cluster's
  default and the tree as a second one a partition can name.

Slurm reads the file as ``topology.conf`` (or ``topology.yaml``) beside ``slurm.conf``: copy it there
under that name. Only the backend fabric is described: the frontend, storage and management networks do
not bear on where a training job's ranks go. Plain text, sorted: the same design gives the same bytes.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from layout.export.atomic import write_text

if TYPE_CHECKING:
    from layout.design import Design

_TAIL_NUMBER = re.compile(r"(.*?)(\d+)")


@dataclass(frozen=True)
class Switch:
    """One line of the tree: a switch and its children (server ids for a leaf, else switch ids)."""

    name: str
    tier: int
    children: tuple[str, ...]

    @property
    def leaf(self) -> bool:
        return self.tier == 1


@dataclass(frozen=True)
class Blocks:
    """The block topology: NVLink domains as (name, racks, servers), and the block sizes."""

    domains: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]
    sizes: tuple[int, ...]


def hostlist(names: Iterable[str]) -> str:
    """``names`` as one Slurm host list: names ending in a number of the same width after the same prefix
    are merged into ranges (``srv-[00000-00003,00007]``); others are listed as they are. Sorted."""
    runs: dict[tuple[str, int], list[int]] = defaultdict(list)
    plain: list[str] = []
    for name in set(names):
        m = _TAIL_NUMBER.fullmatch(name)
        if m is None or "[" in name or "," in name:
            plain.append(name)
        else:
            runs[(m.group(1), len(m.group(2)))].append(int(m.group(2)))
    parts: list[tuple[str, str]] = [(p, p) for p in plain]
    for (prefix, width), numbers in runs.items():
        numbers.sort()
        if len(numbers) == 1:
            parts.append((prefix + f"{numbers[0]:0{width}d}", f"{prefix}{numbers[0]:0{width}d}"))
            continue
        spans: list[str] = []
        lo = prev = numbers[0]
        for n in [*numbers[1:], None]:
            if n is not None and n == prev + 1:
                prev = n
                continue
            spans.append(f"{lo:0{width}d}" if lo == prev else f"{lo:0{width}d}-{prev:0{width}d}")
            if n is not None:
                lo = prev = n
        parts.append((prefix + f"{numbers[0]:0{width}d}", f"{prefix}[{','.join(spans)}]"))
    return ",".join(text for _, text in sorted(parts))


def tree(design: Design) -> list[Switch]:
    """Every backend switch that has children, tier by tier (leaves first), each with its children:
    servers for a leaf, the switches one tier down for the rest (unique, sorted)."""
    dev = design.fabric.devices
    links = design.fabric.links
    ids = dev["device_id"].astype(str).to_numpy()
    tier = dev["tier"].to_numpy()
    backend = links[(links["network"] == "backend").to_numpy()]
    children: dict[int, set[int]] = defaultdict(set)
    for a, b in zip(backend["a"].tolist(), backend["b"].tolist(), strict=True):
        children[int(b)].add(int(a))
    out = []
    for sw in sorted(children, key=lambda i: (int(tier[i]), i)):
        out.append(Switch(str(ids[sw]), int(tier[sw]), tuple(sorted(str(ids[c]) for c in children[sw]))))
    return out


def servers(design: Design) -> list[str]:
    """The design's server ids (the Slurm node names), in device order."""
    dev = design.fabric.devices
    return dev.loc[(dev["role"] == "server").to_numpy(), "device_id"].astype(str).tolist()


def blocks(design: Design) -> Blocks | None:
    """The NVLink domains as Slurm blocks, when the server's NVLink domain spans a whole rack (NVL72);
    else None. A domain is ``nvlink_gpus / gpus`` consecutive servers (the fabric never splits one across
    scalable units); the block sizes are the domain's servers, doubled while they stay within one
    scalable unit (Slurm pairs neighbouring blocks into the larger ones, in file order)."""
    fabric = design.fabric
    spec = design.inputs.catalog.server.get(fabric.server)
    if spec is None or spec.nvlink_gpus is None or not spec.gpus:
        return None
    racks = design.placement.racks
    per_rack = int(racks["servers"].max()) if len(racks) else 0
    if spec.nvlink_gpus < spec.gpus * max(per_rack, 1):
        return None
    size = spec.nvlink_gpus // spec.gpus
    names = servers(design)
    dev = design.fabric.devices
    where = dev.index[(dev["role"] == "server").to_numpy()].to_numpy()
    rack_of = design.placement.device_rack
    rack_ids = racks["rack_id"].astype(str).tolist()
    domains = []
    for start in range(0, len(names), size):
        members = names[start : start + size]
        in_racks = sorted({rack_ids[r] for r in rack_of[where[start : start + size]].tolist() if r >= 0})
        label = ("nvl-" + in_racks[0].replace("/", "-")) if in_racks else f"nvl-{start // size:05d}"
        domains.append((label, tuple(in_racks), tuple(members)))
    sizes = [size]
    while sizes[-1] * 2 <= max(fabric.su_servers, size):
        sizes.append(sizes[-1] * 2)
    return Blocks(tuple(domains), tuple(sizes))


def _header(design: Design, what: str) -> list[str]:
    site = design.inputs.site.site
    return [
        f"# {what}",
        f"# {site.name} (revision {site.revision}, {site.date}): {design.fabric.servers} servers, "
        f"{design.fabric.gpus} GPUs, {design.fabric.switch} backend fabric; written by dclayout",
    ]


def tree_conf(design: Design) -> str:
    """The ``topology/tree`` file (``topology.conf``)."""
    lines = _header(design, "Slurm topology.conf for TopologyPlugin=topology/tree (node names: server ids)")
    for sw in tree(design):
        key = "Nodes" if sw.leaf else "Switches"
        lines.append(f"SwitchName={sw.name} {key}={hostlist(sw.children)}")
    return "\n".join(lines) + "\n"


def block_conf(design: Design, found: Blocks) -> str:
    """The ``topology/block`` file (``topology.conf`` for Slurm 23.11 and later)."""
    lines = _header(
        design, "Slurm topology.conf for TopologyPlugin=topology/block (Slurm 23.11+): NVLink domains"
    )
    for name, racks, members in found.domains:
        if len(racks) > 1:
            lines.append(f"# racks {' '.join(racks)}")
        lines.append(f"BlockName={name} Nodes={hostlist(members)}")
    lines.append(f"BlockSizes={','.join(str(s) for s in found.sizes)}")
    return "\n".join(lines) + "\n"


def topology_yaml(design: Design, found: Blocks) -> str:
    """``topology.yaml`` (Slurm 25.05 and later): the NVLink blocks as the cluster's default topology and
    the switch tree as a second one (``nvlink`` and ``fabric``)."""
    lines = _header(design, "Slurm topology.yaml (Slurm 25.05+): the NVLink blocks and the switch tree")
    lines += ["- topology: nvlink", "  cluster_default: true", "  block:", "    block_sizes:"]
    lines += [f"      - {s}" for s in found.sizes]
    lines.append("    blocks:")
    for name, _racks, members in found.domains:
        lines += [f'      - block: "{name}"', f'        nodes: "{hostlist(members)}"']
    lines += ["- topology: fabric", "  cluster_default: false", "  tree:", "    switches:"]
    for sw in tree(design):
        lines.append(f'      - switch: "{sw.name}"')
        lines.append(f'        {"nodes" if sw.leaf else "children"}: "{hostlist(sw.children)}"')
    return "\n".join(lines) + "\n"


def write_slurm(design: Design, out: str | Path, stem: str) -> list[Path]:
    """Write ``STEM-topology.conf`` into the folder ``out``, and for NVLink racks also
    ``STEM-topology-block.conf`` and ``STEM-topology.yaml``; returns the paths."""
    out = Path(out)
    written = [write_text(out / f"{stem}-topology.conf", tree_conf(design))]
    found = blocks(design)
    if found is not None:
        written.append(write_text(out / f"{stem}-topology-block.conf", block_conf(design, found)))
        written.append(write_text(out / f"{stem}-topology.yaml", topology_yaml(design, found)))
    return written
