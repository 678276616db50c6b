"""The fabric's part of the port map (layout/cable/ports.py): every link end's cage group, port and
cage, the cages themselves, which links share a cage (at either end, transitively), the copper
assembly each link gets on copper and each device's cage budget (:class:`PortSkeleton`).

None of it depends on where the racks stand or how long the links are, so a front end that re-cables
the same fabric keeps it (a memo, layout/memo.py, by the fabric's token); ``ports.finish`` adds what the routed lengths
decide. Backend links at a speed other than the switch's ports fill its data cages by lanes
(:func:`links_per_cage`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from layout.model.catalog import CAGE_FORMS

if TYPE_CHECKING:
    from layout.model import Catalog


GROUPS = ("data", "backend", "frontend", "storage", "mgmt", "uplink")
FORMS = ("", *CAGE_FORMS)  # PortMap.form codes
ASSEMBLIES = ("", "fibre", "straight", "twin", "breakout", "split")


@dataclass(frozen=True)
class CageParts:
    """Per cage of a design (``PortMap.cage_end`` order), what the fabric alone decides of its module:
    ``link`` (its first link: a cage holds one medium), ``dev`` (its device) and ``sub`` (backend,
    links per module, form and whether the device is a server, packed as
    ``((backend x per_span + per) x len(FORMS) + form) x 2 + server``; ``span``: the sub-key's range;
    ``packed``: device and sub-key as the module key wants them, for ``media_k`` media codes)."""

    link: np.ndarray
    dev: np.ndarray
    sub: np.ndarray
    per_span: int
    span: int
    media_k: int  # the catalog's media + 1 (no medium): ``packed`` = (dev x media_k) x span + sub
    packed: np.ndarray


def _group_tables(
    models: pd.Index, catalog: Catalog, nic: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per (model, group): cages, ports per cage and form factor; per model the switch port speed and
    its data cages' lanes (0 for servers): see :func:`links_per_cage`."""
    g = len(GROUPS)
    cages = np.zeros((len(models), g), dtype=np.int64)
    per = np.ones((len(models), g), dtype=np.int64)
    gbps = np.zeros(len(models), dtype=np.int64)
    lanes = np.zeros(len(models), dtype=np.int64)
    form = np.full((len(models), g), "", dtype=object)
    split = catalog.nic[nic].split if nic in catalog.nic else 1
    for i, m in enumerate(models):
        if m in catalog.switch:
            sw = catalog.switch[m]
            cages[i, 0], per[i, 0], form[i, 0] = sw.data_cages, sw.ports_per_cage, sw.cage
            gbps[i], lanes[i] = sw.port_gbps, sw.lanes_per_cage
            cages[i, 4], form[i, 4] = sw.mgmt_ports, "rj45"
            cages[i, 5], form[i, 5] = sw.uplink_ports, sw.uplink_cage
        elif m in catalog.server:
            s = catalog.server[m]
            nic_ports = catalog.backend_per_cage(str(m), nic)
            cages[i, 1], per[i, 1], form[i, 1] = (
                -(-s.backend_ports * split // nic_ports),
                nic_ports,
                s.backend_cage,
            )
            cages[i, 2], form[i, 2] = s.frontend_ports, s.frontend_cage
            cages[i, 3], form[i, 3] = s.storage_ports, s.storage_cage
            cages[i, 4], form[i, 4] = s.oob_ports, "rj45"
        elif m in catalog.node:  # storage / CPU node: its data ports, one per cage, and its BMC
            nd = catalog.node[m]
            cages[i, 0], form[i, 0] = nd.data_ports, nd.data_cage
            cages[i, 4], form[i, 4] = nd.oob_ports, "rj45"
    return cages, per, form, gbps, lanes


def links_per_cage(
    speed_gbps: np.ndarray, ports_per_cage: np.ndarray, port_gbps: np.ndarray, lanes_per_cage: np.ndarray
) -> np.ndarray:
    """Backend links one switch data cage holds at a link speed other than its ports': the cage's
    ``lanes_per_cage`` lanes each run at ``ports_per_cage x port_gbps / lanes_per_cage``, a link takes
    as many whole lanes as its speed needs and at least one (a link slower than a lane still takes a
    lane), so a cage holds ``lanes // lanes per link`` links, at least one (a link faster than the cage
    takes it all). A QM9700 cage (2 x 400G, 8 lanes of 100G): one 800G link, two 400G, eight 100G, and
    eight 1G links, never 800; a Q3400 cage (2 x 800G, 8 lanes of 200G): four 400G, eight 100G."""
    cage = ports_per_cage * port_gbps
    lanes = np.maximum(lanes_per_cage, 1)
    per_link = np.maximum(1, -(-(speed_gbps * lanes) // cage))  # whole lanes, at least one
    return np.maximum(1, lanes // per_link)


def _run_starts(key: np.ndarray) -> np.ndarray:
    """For a sorted key, the index of the first element of each element's run."""
    n = len(key)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    new = np.r_[True, key[1:] != key[:-1]]
    return np.maximum.accumulate(np.where(new, np.arange(n), 0))


@dataclass(frozen=True)
class PortSkeleton:
    """What of the port map depends on the fabric alone (its devices and links, the catalog's cages and
    the NIC), not on where the racks stand or how long the links are: every end's group, port and cage,
    the cages (runs of ends), which links share a cage (``comp``: connected components under "shares a
    cage at either end"), and the cage budget. A front end that re-cables the same fabric (the TUI after
    an edit of a hall) keeps it (layout/memo.py): ``ports.finish`` adds what the routed lengths decide."""

    n: int
    group: np.ndarray
    cage: np.ndarray
    port: np.ndarray
    per: np.ndarray
    cage_end: np.ndarray
    run_len: np.ndarray
    occ: np.ndarray
    mate: np.ndarray
    form: np.ndarray
    speed: np.ndarray
    comp_order: np.ndarray  # links sorted by component (empty: no link shares a cage)
    comp_starts: np.ndarray  # where each component starts in comp_order
    comp_of: np.ndarray  # each link's component, as an index into comp_starts
    comp_size: np.ndarray  # links per component
    cages: pd.DataFrame
    over: tuple[np.ndarray, ...]  # (devices, groups) over their cages
    used_cages: np.ndarray
    used_ports: np.ndarray
    have: np.ndarray
    form_tab: np.ndarray
    model_code: np.ndarray
    dev: np.ndarray
    cage_parts: CageParts
    shared: np.ndarray  # per link: it shares a cage with another (its component has several links)
    copper_assembly: np.ndarray  # per link: the ASSEMBLIES code it gets on copper (straight, twin, ...)


def skeleton(devices: pd.DataFrame, links: pd.DataFrame, catalog: Catalog, nic: str) -> PortSkeleton:
    """The fabric's part of the port map (:class:`PortSkeleton`)."""
    n = len(links)
    a = links["a"].to_numpy(np.int64)
    b = links["b"].to_numpy(np.int64)
    kinds = links["kind"]
    if isinstance(kinds.dtype, pd.CategoricalDtype):
        kind = kinds.cat.codes.to_numpy().astype(np.int64)
        kind_names = np.asarray(kinds.cat.categories, dtype=object)
    else:
        codes, uniq = pd.factorize(kinds.to_numpy())
        kind, kind_names = np.asarray(codes, dtype=np.int64), np.asarray(uniq, dtype=object)
    speed = links["speed_gbps"].to_numpy(np.int64)
    role_code, roles = pd.factorize(devices["role"].to_numpy())
    roles = np.asarray(roles, dtype=object)
    model_code, models = pd.factorize(devices["model"].to_numpy())
    cage_n, per_tab, form_tab, gbps_tab, lanes_tab = _group_tables(pd.Index(models), catalog, nic)
    # the cage group of every end: servers by the link's kind, switches data (mgmt for oob links)
    server_group_of_kind = np.array(
        [{"gpu_leaf": 1, "frontend": 2, "storage": 3, "oob": 4}.get(str(k), 1) for k in kind_names], np.int64
    )
    oob_kind = np.array([str(k) == "oob" for k in kind_names], dtype=bool)
    uplink_kind = np.array([str(k) == "oob_uplink" for k in kind_names], dtype=bool)
    is_server_dev = np.isin(np.arange(len(roles)), np.flatnonzero(roles == "server"))[role_code]
    is_oob_dev = np.isin(np.arange(len(roles)), np.flatnonzero(roles == "oob"))[role_code]
    dev = np.r_[a, b]
    far = np.r_[b, a]
    k2 = np.r_[kind, kind]
    is_server = is_server_dev[dev]
    group = np.where(
        is_server,
        server_group_of_kind[k2],
        np.where(uplink_kind[k2] & is_oob_dev[dev], 5, np.where(oob_kind[k2] & ~is_oob_dev[dev], 4, 0)),
    ).astype(np.int64)

    # order: (device, group), then on switches kind and far device (stable: link order), so links to
    # one place share a cage and the pairs line up at both ends (leaf L's cage holds its links to
    # spines 2j and 2j+1, spine S's its links from leaves 2k and 2k+1: four links decide together);
    # on servers the link order alone (rail i on port i)
    sw = ~is_server
    n_dev = max(len(devices), 1)
    bits_far = int(n_dev).bit_length()
    bits_kind = int(len(kind_names) + 1).bit_length()
    local = np.where(sw, (k2 << bits_far) | far, 0)
    bits_local = bits_kind + bits_far
    devgroup = dev * len(GROUPS) + group
    if bits_local + int(n_dev * len(GROUPS)).bit_length() <= 63:
        order = np.argsort(devgroup << bits_local | local, kind="stable")
    else:  # pragma: no cover - beyond ~2^40 devices x kinds
        order = np.lexsort((local, devgroup))
    dg_sorted = devgroup[order]
    rank_sorted = np.arange(2 * n) - _run_starts(dg_sorted)
    port = np.empty(2 * n, dtype=np.int64)
    port[order] = rank_sorted
    per = per_tab[model_code[dev], group]
    cage_gbps = gbps_tab[model_code[dev]]
    end_speed = np.r_[speed, speed]
    # the backend fabric counts a switch's radix at the link speed (layout.fabric: an 800G port takes
    # two 400G links); the other networks take one link per port, at any speed up to the port's
    be_link = (links["network"] == "backend").to_numpy() if "network" in links else np.ones(n, dtype=bool)
    at_speed = (group == 0) & (cage_gbps > 0) & (end_speed != cage_gbps) & np.r_[be_link, be_link]
    if at_speed.any():  # links faster or slower than the switch's ports (equal speeds: as catalogued)
        per = per.copy()
        lanes = lanes_tab[model_code[dev]][at_speed]
        per[at_speed] = links_per_cage(end_speed[at_speed], per[at_speed], cage_gbps[at_speed], lanes)
    cage = port // per

    # cages in sorted order: runs of (device, group, cage)
    link = np.r_[np.arange(n), np.arange(n)]
    link_sorted = link[order]
    cage_sorted = cage[order]
    new_cage = np.r_[True, (dg_sorted[1:] != dg_sorted[:-1]) | (cage_sorted[1:] != cage_sorted[:-1])]
    starts = np.flatnonzero(new_cage)
    run_len = np.diff(np.r_[starts, 2 * n])
    occ = np.empty(2 * n, dtype=np.int64)
    occ[order] = np.repeat(run_len, run_len)
    mate = np.empty(2 * n, dtype=np.int64)  # the lowest link of the end's cage
    mate[order] = np.repeat(np.minimum.reduceat(link_sorted, starts) if len(starts) else starts, run_len)

    # links that share a cage (at either end, transitively) decide their medium together
    same = ~new_cage[1:]
    u, v = link_sorted[:-1][same], link_sorted[1:][same]
    if len(u):
        graph = coo_matrix((np.ones(len(u), dtype=np.int8), (u, v)), shape=(n, n))
        comp = np.asarray(connected_components(graph, directed=False)[1], dtype=np.int64)
        comp_order = np.argsort(comp, kind="stable")
        cs = comp[comp_order]
        comp_starts = np.flatnonzero(np.r_[True, cs[1:] != cs[:-1]])
        comp_size = np.diff(np.r_[comp_starts, n])
        comp_of = comp  # connected_components numbers the components 0..k-1, so sorted runs are 0..k-1
    else:
        comp_order = comp_starts = comp_size = comp_of = np.zeros(0, dtype=np.int64)
    cage_end = order[starts]  # the first end of each cage
    g = len(GROUPS)
    nd = len(devices)
    used_ports = np.bincount(dev * g + group, minlength=nd * g).reshape(nd, g)
    top = np.zeros(nd * g, dtype=np.int64)  # cages filled in turn: the highest used + 1
    np.maximum.at(top, dev * g + group, cage + 1)
    used_cages = top.reshape(nd, g)
    have = cage_n[model_code]
    over = used_cages > have
    form = (
        np.vectorize(FORMS.index, otypes=[np.int8])(form_tab)[model_code[dev], group]
        if len(form_tab)
        else np.zeros(2 * n, dtype=np.int8)
    )
    return PortSkeleton(
        n=n,
        group=group.astype(np.int8),
        cage=cage,
        port=port,
        per=per,
        cage_end=cage_end,
        run_len=run_len,
        occ=occ,
        mate=mate,
        form=form,
        speed=speed,
        comp_order=comp_order,
        comp_starts=comp_starts,
        comp_of=comp_of,
        comp_size=comp_size,
        cages=_cage_table(models, model_code, cage_n, per_tab, form_tab, used_ports, used_cages, over),
        over=np.nonzero(over),
        used_cages=used_cages,
        used_ports=used_ports,
        have=have,
        form_tab=form_tab,
        model_code=model_code,
        dev=dev,
        cage_parts=_cage_parts(
            cage_end, n, dev, per, form, kind_names == "gpu_leaf", kind, is_server, len(catalog.media) + 1
        ),
        shared=comp_size[comp_of] > 1 if len(comp_starts) else np.zeros(n, dtype=bool),
        copper_assembly=_copper_assembly(occ, mate, n, comp_order, comp_starts, comp_of, comp_size),
    )


def _cage_parts(
    cage_end: np.ndarray,
    n: int,
    dev: np.ndarray,
    per: np.ndarray,
    form: np.ndarray,
    gpu_kind: np.ndarray,
    kind: np.ndarray,
    is_server: np.ndarray,
    media_k: int,
) -> CageParts:
    """:class:`CageParts` of every cage from its first end; a cage is a backend cage when its first link
    is a GPU link (a server's backend cages hold nothing else)."""
    link = np.where(cage_end < n, cage_end, cage_end - n)
    per_span = int(per.max(initial=0)) + 1
    backend = gpu_kind[kind[link]].astype(np.int64) if len(gpu_kind) else np.zeros(len(link), np.int64)
    sub = (
        ((backend * per_span + per[cage_end]) * len(FORMS) + form[cage_end]) * 2 + is_server[cage_end]
    ).astype(np.int64)
    span = 2 * per_span * len(FORMS) * 2
    cage_dev = dev[cage_end]
    return CageParts(
        link=link,
        dev=cage_dev,
        sub=sub,
        per_span=per_span,
        span=span,
        media_k=media_k,
        packed=cage_dev * media_k * span + sub,
    )


def _copper_assembly(
    occ: np.ndarray,
    mate: np.ndarray,
    n: int,
    comp_order: np.ndarray,
    comp_starts: np.ndarray,
    comp_of: np.ndarray,
    comp_size: np.ndarray,
) -> np.ndarray:
    """Per link, the copper assembly it is on copper, decided per component (the links that share cages,
    transitively: one cable assembly or none). The only copper assemblies that exist:

    - ``straight``: a link alone in its cage at both ends;
    - ``twin``: two links that share one cage at both ends (one 2 x 400G cable);
    - ``breakout``: k links that fill one cage at one end and are each alone in a cage at the other
      (one 800G port to 2 x 400G, or to k single ports).

    Any other component (e.g. a twin cage whose two links go to two cages that each also hold a link
    of a third cage) has no copper assembly: ``split``. Such links must be optical (each link a cord
    between two modules: ports.finish picks the medium)."""
    occ_a, occ_b = occ[:n], occ[n:]
    size = comp_size[comp_of] if len(comp_starts) else np.ones(n, dtype=np.int64)
    straight = (occ_a == 1) & (occ_b == 1)
    twin = (size == 2) & (occ_a == 2) & (occ_b == 2) & (mate[:n] == mate[n:])
    breakout = (size > 1) & (((occ_a == size) & (occ_b == 1)) | ((occ_b == size) & (occ_a == 1)))
    out = np.full(n, ASSEMBLIES.index("split"), dtype=np.int8)
    out[breakout] = ASSEMBLIES.index("breakout")
    out[twin] = ASSEMBLIES.index("twin")
    out[straight] = ASSEMBLIES.index("straight")
    if len(comp_starts):  # one assembly per component: a component with a split link is split whole
        bad = (out == ASSEMBLIES.index("split")).astype(np.int8)
        comp_bad = np.maximum.reduceat(bad[comp_order], comp_starts).astype(bool)
        out[comp_bad[comp_of]] = ASSEMBLIES.index("split")
    return out


BUILDABLE_COPPER = frozenset({ASSEMBLIES.index(a) for a in ("straight", "twin", "breakout")})


def _cage_table(
    models: Any,
    model_code: np.ndarray,
    cage_n: np.ndarray,
    per_tab: np.ndarray,
    form_tab: np.ndarray,
    used_ports: np.ndarray,
    used_cages: np.ndarray,
    over: np.ndarray,
) -> pd.DataFrame:
    """PortMap.cages: one row per device model and group with cages or ports in use."""
    rows = []
    for i, m in enumerate(models):
        sel = model_code == i
        for j, name in enumerate(GROUPS):
            if cage_n[i, j] == 0 and not used_ports[sel, j].any():
                continue
            rows.append(
                (
                    str(m),
                    name,
                    str(form_tab[i, j]),
                    int(sel.sum()),
                    int(cage_n[i, j] * sel.sum()),
                    int(cage_n[i, j] * per_tab[i, j] * sel.sum()),
                    int(used_cages[sel, j].sum()),
                    int(used_ports[sel, j].sum()),
                    int(over[sel, j].sum()),
                )
            )
    return pd.DataFrame(
        rows,
        columns=[
            "model",
            "group",
            "form",
            "devices",
            "cages",
            "ports",
            "used_cages",
            "used_ports",
            "over_devices",
        ],
    )
