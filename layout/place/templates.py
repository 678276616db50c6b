"""Which racks the placer builds: per hall the GPU rack (template and servers per rack), and the templates
of the network, spine and MDF racks.

Density: servers per GPU rack follow ``cluster.rack`` unless its estimated kW exceeds the hall's
``max_rack_kw``; then ``cluster.rack_low_density``; if that is also too much (or none is named) the rack
is placed anyway and the power check reports it. Middle-of-rack uses one density for the whole site
(the fabric wires a leaf per rack or rack pair).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from layout.errors import InputError, Problem
from layout.estimates import estimate_gpu_rack_kw

if TYPE_CHECKING:
    from layout.load import Inputs
    from layout.model import Hall, RackTemplate


@dataclass(frozen=True)
class GpuRack:
    """The GPU rack a hall gets: template, servers per rack, estimated kW and whether that fits."""

    template: str
    servers: int
    est_kw: float
    fits: bool


def gpu_rack_for_hall(inputs: Inputs, hall: Hall) -> GpuRack:
    cl = inputs.site.cluster
    choice: GpuRack | None = None
    for tid in [cl.rack] + ([cl.rack_low_density] if cl.rack_low_density else []):
        tpl = inputs.templates[tid]
        n = len(tpl.server_slots({cl.server}))
        kw = estimate_gpu_rack_kw(inputs, tpl, n)
        choice = GpuRack(tid, n, kw, kw <= hall.max_rack_kw + 1e-9)
        if choice.fits:
            return choice
    assert choice is not None
    return choice  # the lowest density on offer, reported by the power check


def gpu_racks(inputs: Inputs) -> dict[str, GpuRack]:
    """GPU rack per hall key ``B1/H1``. Middle-of-rack: the lowest density any hall needs, everywhere."""
    out = {f"{b.id}/{h.id}": gpu_rack_for_hall(inputs, h) for b, h in inputs.site.halls()}
    if inputs.site.cluster.design == "mor" and out:
        low = min(out.values(), key=lambda c: (c.servers, c.template))
        n_fit = {k: low.est_kw <= h.max_rack_kw + 1e-9 for (k, h) in hall_items(inputs)}
        out = {k: GpuRack(low.template, low.servers, low.est_kw, n_fit[k]) for k in out}
    return out


def fabric_servers_per_rack(inputs: Inputs) -> int | None:
    """What `fabric.build` needs to wire middle-of-rack leaves (None for rail-optimized)."""
    if inputs.site.cluster.design != "mor":
        return None
    return min(c.servers for c in gpu_racks(inputs).values())


def hall_items(inputs: Inputs) -> list[tuple[str, Hall]]:
    return [(f"{b.id}/{h.id}", h) for b, h in inputs.site.halls()]


def network_templates(inputs: Inputs) -> tuple[RackTemplate, RackTemplate, RackTemplate]:
    """The rack templates for SU network racks, spine racks and MDF racks (kinds network, spine, core;
    ``net-leaf``, ``net-spine``, ``net-core`` when present, else the first id of that kind)."""
    out = []
    for kind, preferred in (("network", "net-leaf"), ("spine", "net-spine"), ("core", "net-core")):
        t = inputs.templates
        ids = (
            [preferred]
            if preferred in t and t[preferred].kind == kind
            else sorted(k for k, v in t.items() if v.kind == kind)
        )
        if not ids:
            raise InputError(
                [Problem(str(inputs.templates_dir), "kind", f"no rack template of kind {kind!r} for the network racks",
                         f'a template with kind = "{kind}"')]
            )  # fmt: skip
        out.append(t[ids[0]])
    _check_switch_slots(inputs, out)
    return out[0], out[1], out[2]


def _check_switch_slots(inputs: Inputs, templates: list[RackTemplate]) -> None:
    """Each network rack template holds the cluster's switch: a ``switch`` slot with room for its height
    under the top of the rack (an empty, misplaced or switchless slot list is refused here, by
    ``validate`` as by ``design``, naming the template's own file)."""
    from layout.load import template_file

    switch = inputs.catalog.switch.get(inputs.site.cluster.switch)
    if switch is None:
        return
    h = switch.height_ru
    problems = []
    for tpl in {t.id: t for t in templates}.values():
        fits = [r for r in tpl.switch_slots() if r + h - 1 <= tpl.height_ru]
        if not fits:
            slots = tpl.switch_slots()
            what = (
                "no switch slot"
                if not slots
                else f"no switch slot with room for the {h}U {inputs.site.cluster.switch} under its {tpl.height_ru}U "
                f"(switch slots at RU {', '.join(map(str, sorted(slots)))})"
            )
            problems.append(
                Problem(
                    str(template_file(inputs.templates_dir, tpl.id)),
                    "slot",
                    f"network rack template {tpl.id!r} has {what}",
                    f'[[slot]] device = "switch" at RUs 1 to {tpl.height_ru - h + 1}',
                )
            )
    if problems:
        raise InputError(problems)


def node_templates(inputs: Inputs) -> tuple[RackTemplate | None, RackTemplate | None]:
    """The rack templates for storage and CPU nodes (kinds storage, management, with ``node`` slots;
    ``storage-rack`` / ``mgmt-rack`` when present, else the first id of that kind; None: none such, the
    nodes then go into MDF racks)."""
    out: list[RackTemplate | None] = []
    for kind, preferred in (("storage", "storage-rack"), ("management", "mgmt-rack")):
        t = inputs.templates
        ids = [preferred] if preferred in t and t[preferred].kind == kind else []
        ids += sorted(k for k, v in t.items() if v.kind == kind and v.node_slots() and k != preferred)
        out.append(t[ids[0]] if ids and t[ids[0]].node_slots() else None)
    return out[0], out[1]
