"""Ports, cages and modules: every link end on a real port of a real cage (vectorised, no loop per link).

A device's ports come in *cage groups* (GROUPS): a switch has its ``data`` cages (catalog ``cages`` x
``ports_per_cage``, e.g. QM9700 32 OSFP x 2) and separate RJ45 ``mgmt`` ports; a server has its
``backend`` NIC cages (``backend_ports`` / the NIC option's ``ports_per_module`` ports each: 8
single-port OSFP with cx7, 4 twin-port with cedar7), one-port ``frontend`` and ``storage`` cages and
RJ45 ``mgmt`` (BMC) ports. A link end goes to the group its kind asks for: GPU links to ``backend``,
frontend / storage links to those, out-of-band links to ``mgmt`` (on the out-of-band switch itself, to
its RJ45 data ports).

Order of the ports: a server's ports follow the fabric's link order (rail i on backend port i); a
switch's links are sorted by kind and far device before they fill its cages in turn, so that links
that go to the same place (the two parallel links of a leaf-spine pair, the rails of one server on a
middle-of-rack leaf) share a cage, and the pairs line up at both ends: the links that must share a
medium stay a handful (two leaves x two spines, two servers x two rails with Cedar-7).

One cage holds one module of one medium: the links that share a cage (at either end, transitively)
get the medium ``pick`` gives for the longest of them, so a twin-port cage with a 3 m and a 40 m link
carries two multimode links. Copper links in a shared cage are one cable assembly: ``twin`` (the same
two links share a cage at both ends: one 2 x 400G cable), ``breakout`` (a twin cage to two single-port
cages: one 800G port to 2 x 400G), its stock length that of the longer leg; a lone link is ``straight``.

Backend links at a speed other than the switch's ports fill its data cages by lanes
(:func:`links_per_cage`): a cage holds at most one link per lane, so a 2 x 400G OSFP of 8 lanes holds
one 800G link, two 400G or eight links of 100G or slower, never hundreds of 1G links.

A device with more links in a group than the group has ports is a ``ports`` violation naming the
device, its rack and the counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from layout.arrays import unique_inverse
from layout.model.catalog import CAGE_FORMS
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.model import Catalog


class MediaTable(Protocol):
    """What the port map needs of layout.media.MediaTable (media call ports, not the other way)."""

    @property
    def ids(self) -> tuple[str, ...]: ...

    @property
    def optical(self) -> np.ndarray: ...

    def is_optical(self, code: np.ndarray) -> np.ndarray: ...

    def pick(self, length_m: np.ndarray, speed_gbps: np.ndarray | int = 400) -> np.ndarray: ...


GROUPS = ("data", "backend", "frontend", "storage", "mgmt", "uplink")
GROUP_LABELS = ("", "be", "fe", "st", "mgmt", "up")  # cage label prefix: "7" on a switch, "be3" on a server
FORMS = ("", *CAGE_FORMS)  # PortMap.form codes
ASSEMBLIES = ("", "fibre", "straight", "twin", "breakout", "split")
MAX_PORT_VIOLATIONS = 50  # one per device up to this many, then one for the rest


@dataclass(frozen=True)
class PortMap:
    """Per link end (``2 x links``: the a ends, then the b ends): ``group`` (GROUPS code), ``cage`` and
    ``port`` (0-based inside the group; port = cage x ports per cage + slot), ``per_cage`` (ports per
    cage of that group), per cage of the design ``cage_end`` (its first end) and ``cage_size``
    (its links), ``form`` (FORMS code: osfp, qsfp, sfp, rj45). Per link: ``code`` (medium index after cage sharing, -1 without a medium),
    ``stock_basis_m`` (the length its stock length is chosen for: the longest leg of a copper
    assembly), ``medium_for_m`` (the length its medium is chosen for: the longest link it shares
    cages with), ``assembly`` (ASSEMBLIES code). ``cages``: one row per device model and group (model,
    group, form, devices, cages, ports, used_cages, used_ports, over_devices). ``changed``: links
    whose medium the cage sharing changed. ``cage_parts``: what :meth:`modules` reads of each cage."""

    group: np.ndarray
    cage: np.ndarray
    port: np.ndarray
    per_cage: np.ndarray
    cage_end: np.ndarray
    cage_size: np.ndarray
    form: np.ndarray
    code: np.ndarray
    stock_basis_m: np.ndarray
    medium_for_m: np.ndarray
    assembly: np.ndarray
    cages: pd.DataFrame
    changed: int
    cage_parts: CageParts
    violations: list[Violation] = field(default_factory=list)
    skeleton: PortSkeleton | None = None  # the skeleton it was finished from (``finish(earlier=...)``)
    finish_of: tuple[np.ndarray, np.ndarray] | None = None  # the code and length it was finished for

    def end(self, side: str) -> slice:
        n = len(self.code)
        return slice(0, n) if side == "a" else slice(n, 2 * n)

    def modules(
        self, devices: pd.DataFrame, links: pd.DataFrame, mt: MediaTable, earlier: ModuleRows | None = None
    ) -> pd.DataFrame:
        """Transceiver modules as plugged: one per cage that holds optical links (``Cabling.modules``
        columns: device, device_id, end, media, backend, links, links_per_module, modules, plus the
        cage's ``form``), in order of device, medium, backend, links per module and form. A twin-port
        cage with one link is still one twin-port module; an optical management link on an RJ45 port
        counts one module per end, never a data-cage module. What of a cage the fabric decides (its
        device, first link, kind, width, form: :class:`CageParts`) the skeleton worked out once; here
        only the media ("links" is read there, kept as an argument for the callers). ``earlier``: as
        :meth:`module_rows`."""
        return self.module_rows(mt, earlier).table(devices, mt)

    def module_rows(self, mt: MediaTable, earlier: ModuleRows | None = None) -> ModuleRows:
        """The rows of :meth:`modules` as numbers. ``earlier``: rows this skeleton's cages gave before
        (same media table), or None: a device's rows are a function of its own cages' media alone
        (cages come in device order), so only the devices with a cage whose medium differs from
        ``earlier``'s are counted again and put in place of their old rows."""
        cp = self.cage_parts
        med = self.code[cp.link]  # a cage holds one medium: its first link's
        med.flags.writeable = False
        k = len(mt.ids) + 1
        if (
            earlier is None
            or earlier.parts is not cp
            or earlier.media_k != k
            or earlier.med.shape != med.shape
            or earlier.med.dtype != med.dtype
        ):
            key, links_n, cages_n = _module_counts(cp, med, self.cage_size, mt, None)
            return ModuleRows(cp, k, med, key, links_n, cages_n)
        moved = np.flatnonzero(med != earlier.med)
        if not len(moved):
            return ModuleRows(cp, k, med, earlier.key, earlier.links, earlier.modules)
        devs = np.unique(cp.dev[moved])
        lo = np.searchsorted(cp.dev, devs, side="left")
        hi = np.searchsorted(cp.dev, devs, side="right")
        cages = _ranges(np.arange(len(med)), lo, hi - lo)
        key, links_n, cages_n = _module_counts(cp, med, self.cage_size, mt, cages)
        row_dev = earlier.key // cp.span // k
        keep = ~np.isin(row_dev, devs)
        at = np.searchsorted(earlier.key[keep], key)  # device-major keys: the new rows go in one piece
        out = [
            np.insert(old[keep], at, new)
            for old, new in ((earlier.key, key), (earlier.links, links_n), (earlier.modules, cages_n))
        ]
        return ModuleRows(cp, k, med, *out)

    def summary(self) -> dict[str, Any]:
        """summary.json ``ports``: cages used and available per model and group, overflows."""
        by_model: dict[str, dict[str, Any]] = {}
        counts = ("devices", "cages", "ports", "used_cages", "used_ports", "over_devices")
        for r in self.cages.to_dict("records"):
            by_model.setdefault(str(r["model"]), {})[str(r["group"])] = {
                "form": str(r["form"]),
                **{c: int(r[c]) for c in counts},
            }
        return {
            "by_model": by_model,
            "overflows": int(self.cages["over_devices"].sum()) if len(self.cages) else 0,
            "media_changed_links": int(self.changed),
            "assemblies": {
                a: int(np.count_nonzero(self.assembly == i)) for i, a in enumerate(ASSEMBLIES) if a
            },
        }


@dataclass(frozen=True)
class ModuleRows:
    """:meth:`PortMap.modules` as numbers, sorted by ``key`` (the packed device, medium and sub-key of
    :class:`CageParts`): per row the links and modules (cages); and what they were counted from (the
    cage parts, the media table's size ``media_k`` and each cage's medium ``med``), for the next run."""

    parts: CageParts
    media_k: int
    med: np.ndarray
    key: np.ndarray
    links: np.ndarray
    modules: np.ndarray

    def table(self, devices: pd.DataFrame, mt: MediaTable) -> pd.DataFrame:
        """The ``Cabling.modules`` table of these rows."""
        if not len(self.key):
            return _empty_modules()
        cp, k = self.parts, self.media_k
        sub, rest = self.key % cp.span, self.key // cp.span
        m, d = rest % k, rest // k
        server, sub = sub % 2, sub // 2
        f, sub = sub % len(FORMS), sub // len(FORMS)
        p, bk = sub % cp.per_span, sub // cp.per_span
        return pd.DataFrame(
            {
                "device": d,
                "device_id": _take_str(devices["device_id"], d),
                "end": _str_names(("switch", "server")).take(server),
                "media": _str_names((*mt.ids, "")).take(m),
                "backend": bk.astype(bool),
                "links": self.links.astype(np.int64),
                "links_per_module": p.astype(np.int64),
                "modules": self.modules.astype(np.int64),
                "form": _str_names(FORMS).take(f),
            }
        )


def _module_counts(
    cp: CageParts, med: np.ndarray, cage_size: np.ndarray, mt: MediaTable, cages: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Module rows (sorted keys, links, modules) of the optical cages among ``cages`` (None: all)."""
    k = len(mt.ids) + 1
    sel = np.flatnonzero(mt.is_optical(med)) if cages is None else cages[mt.is_optical(med[cages])]
    if cp.media_k == k:  # the skeleton's catalog: its device and sub-key packed already
        mkey = cp.packed[sel] + med[sel] * cp.span
    else:
        mkey = (cp.dev[sel] * k + med[sel]) * cp.span + cp.sub[sel]
    srt = np.argsort(mkey, kind="stable")  # nearly sorted already (cages come in device order)
    ms = mkey[srt]
    starts = np.flatnonzero(np.r_[True, ms[1:] != ms[:-1]]) if len(ms) else np.zeros(0, np.int64)
    links_n = np.add.reduceat(cage_size[sel[srt]], starts) if len(ms) else np.zeros(0, np.int64)
    cages_n = np.diff(np.r_[starts, len(ms)])
    return ms[starts], links_n.astype(np.int64), cages_n.astype(np.int64)


def _str_names(values: tuple[str, ...]) -> Any:
    """A few names as a pandas ``str`` array, to ``take`` a column from by codes (no object array)."""
    return pd.array(list(values), dtype="str")


def _take_str(column: pd.Series, index: np.ndarray) -> Any:
    """``column`` at ``index`` as the ``str`` column a DataFrame of those strings would get: taken from
    the Arrow strings directly (a campus's ~45,000 module rows: ~0.3 ms instead of ~10 ms of
    converting Python strings)."""
    if isinstance(column.dtype, pd.StringDtype):
        return column.array.take(index)
    return column.to_numpy()[index]


def _empty_modules() -> pd.DataFrame:
    """PortMap.modules without optical cages (the columns and dtypes it always had)."""
    none = np.zeros(0, dtype=np.int64)
    obj = np.zeros(0, dtype=object)
    return pd.DataFrame(
        {
            "device": none,
            "device_id": obj,
            "end": np.zeros(0, dtype="<U6"),
            "media": obj,
            "backend": np.zeros(0, dtype=bool),
            "links": none,
            "links_per_module": none,
            "modules": none,
            "form": obj,
        }
    )


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
    nic_ports = catalog.nic[nic].ports_per_module if nic in catalog.nic else 1
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
    an edit of a hall) keeps it (layout.cache): :func:`finish` adds what the routed lengths decide."""

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


def assign(
    devices: pd.DataFrame,
    links: pd.DataFrame,
    code: np.ndarray,
    length_m: np.ndarray,
    rack_a: np.ndarray,
    rack_b: np.ndarray,
    mt: MediaTable,
    catalog: Catalog,
    nic: str,
    rack_ids: np.ndarray | None = None,
) -> PortMap:
    """Ports and cages of every link end, one medium per cage (module docstring)."""
    return finish(
        skeleton(devices, links, catalog, nic), devices, code, length_m, rack_a, rack_b, mt, rack_ids
    )


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
        copper_assembly=_copper_assembly(occ, mate, n),
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


def _copper_assembly(occ: np.ndarray, mate: np.ndarray, n: int) -> np.ndarray:
    """Per link, the copper assembly it is on copper: ``straight`` (alone in its cage at both ends),
    ``twin`` (the same links share a cage at both ends), ``breakout`` (a shared cage to single ones),
    otherwise ``split``."""
    occ_a, occ_b = occ[:n], occ[n:]
    out = np.full(n, ASSEMBLIES.index("split"), dtype=np.int8)
    out[(occ_a > 1) & (occ_a == occ_b) & (mate[:n] == mate[n:])] = ASSEMBLIES.index("twin")
    out[(occ_a > 1) ^ (occ_b > 1)] = ASSEMBLIES.index("breakout")
    out[(occ_a == 1) & (occ_b == 1)] = ASSEMBLIES.index("straight")
    return out


def finish(
    sk: PortSkeleton,
    devices: pd.DataFrame,
    code: np.ndarray,
    length_m: np.ndarray,
    rack_a: np.ndarray,
    rack_b: np.ndarray,
    mt: MediaTable,
    rack_ids: np.ndarray | None = None,
    earlier: PortMap | None = None,
) -> PortMap:
    """The port map of a fabric's skeleton for the links' media and routed lengths: one medium per cage
    (the longest link sharing it decides), copper assemblies, the stock basis, the ``ports`` violations.

    ``earlier``: a port map this skeleton gave before (same media table), or None. A link's medium,
    ``medium_for_m``, stock basis and assembly are a function of the code and length of the links of
    its component (the links it shares cages with) alone, so the components whose links all have
    bitwise the same code and length as in ``earlier`` take its values; the rest are worked out as
    without it (a one-hall edit re-does the components it moved). Not comparable (another skeleton,
    other lengths of arrays): worked out whole."""
    length = np.asarray(length_m, dtype=float)
    code = np.asarray(code)
    todo = _finish_todo(sk, code, length, earlier)
    if todo is None:
        new_code, medium_for, basis, assembly, changed = _finish_links(sk, code, length, mt, None)
    else:
        assert earlier is not None and earlier.finish_of is not None
        new_code, medium_for = earlier.code.copy(), earlier.medium_for_m.copy()
        basis, assembly = earlier.stock_basis_m.copy(), earlier.assembly.copy()
        changed = earlier.changed
        if len(todo):
            c2, m2, b2, a2, _ = _finish_links(sk, code, length, mt, todo)
            before = int(np.count_nonzero(earlier.code[todo] != earlier.finish_of[0][todo]))
            new_code[todo], medium_for[todo], basis[todo], assembly[todo] = c2, m2, b2, a2
            changed += int(np.count_nonzero(c2 != code[todo])) - before
    for arr in (new_code, medium_for, basis, assembly):
        arr.flags.writeable = False  # kept for the next run (``earlier``): nothing may change them
    kept_code, kept_length = _frozen(code), _frozen(length)
    return PortMap(
        group=sk.group,
        cage=sk.cage,
        port=sk.port,
        per_cage=sk.per,
        cage_end=sk.cage_end,
        cage_size=sk.run_len,
        form=sk.form,
        code=new_code,
        stock_basis_m=basis,
        medium_for_m=medium_for,
        assembly=assembly,
        cages=sk.cages,
        changed=changed,
        cage_parts=sk.cage_parts,
        violations=_port_violations(sk, devices, rack_a, rack_b, rack_ids),
        skeleton=sk,
        finish_of=(kept_code, kept_length),
    )


def _frozen(arr: np.ndarray) -> np.ndarray:
    """``arr`` itself when nothing can change it (read-only, owning its data), else a read-only copy."""
    if arr.base is None and not arr.flags.writeable:
        return arr
    out = arr.copy()
    out.flags.writeable = False
    return out


def _finish_todo(
    sk: PortSkeleton, code: np.ndarray, length: np.ndarray, earlier: PortMap | None
) -> np.ndarray | None:
    """The links (sorted) whose port-map values must be worked out again against ``earlier``: every
    link of a component in which some link's code or length differs (NaN lengths always do); None
    when ``earlier`` is not comparable (all of them)."""
    if earlier is None or earlier.skeleton is not sk or earlier.finish_of is None:
        return None
    was_code, was_length = earlier.finish_of
    if was_code.shape != code.shape or was_length.shape != length.shape or was_code.dtype != code.dtype:
        return None
    moved = np.flatnonzero((code != was_code) | ~(length == was_length))
    if not len(moved) or not len(sk.comp_starts):
        return moved
    hit = np.zeros(len(sk.comp_starts), dtype=bool)  # the components with a moved link
    hit[sk.comp_of[moved]] = True
    return np.flatnonzero(hit[sk.comp_of])


def _ranges(values: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``values[s : s + k]`` for each start s and size k, one after another."""
    total = int(sizes.sum())
    if not total:
        return values[:0]
    first = np.repeat(starts - np.r_[0, np.cumsum(sizes)[:-1]], sizes)
    return values[first + np.arange(total)]


def _finish_links(
    sk: PortSkeleton, code: np.ndarray, length: np.ndarray, mt: MediaTable, todo: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """New code, medium_for, stock basis and assembly of the links ``todo`` (whole components, sorted;
    None: all links), and how many of them the cage sharing gave another medium."""
    if todo is not None:
        code, length = code[todo], length[todo]
    n = len(code)
    new_code = code.copy()
    medium_for = length.copy()
    changed = 0
    if len(sk.comp_starts):
        if todo is None:
            order, starts, comp = sk.comp_order, sk.comp_starts, sk.comp_of
            shared_all, speed = sk.shared, sk.speed
        else:  # the components of ``todo`` renumbered 0..k-1 in order of their first link
            cid = sk.comp_of[todo]
            order = np.argsort(cid, kind="stable")
            cs = cid[order]
            starts = np.flatnonzero(np.r_[True, cs[1:] != cs[:-1]]) if n else np.zeros(0, np.int64)
            comp = np.empty(n, dtype=np.int64)
            comp[order] = np.cumsum(np.r_[True, cs[1:] != cs[:-1]]) - 1 if n else comp
            shared_all, speed = sk.shared[todo], sk.speed[todo]
        ok = code >= 0
        longest = np.maximum.reduceat(np.where(ok, length, -np.inf)[order], starts) if n else medium_for
        shared = shared_all & ok
        medium_for = np.where(shared, longest[comp], length) if n else medium_for
        # a medium is picked by length (and speed): only groups whose links got different media change;
        # the media a component's links got, as bits (code -1, no medium: no bit)
        bits = np.left_shift(np.int64(1), code, where=ok, out=np.zeros(n, dtype=np.int64))
        seen = np.bitwise_or.reduceat(bits[order], starts) if n and code.max(initial=-1) < 63 else None
        if not n:
            mixed = np.zeros(0, dtype=np.int64)
        elif seen is not None:
            mixed = np.flatnonzero(shared & ((seen & (seen - 1)) != 0)[comp])
        else:  # pragma: no cover - a catalog of more than 63 media
            lo = np.minimum.reduceat(np.where(ok, code, np.iinfo(np.int64).max)[order], starts)
            hi = np.maximum.reduceat(np.where(ok, code, -1)[order], starts)
            mixed = np.flatnonzero(shared & (lo != hi)[comp])
        picked = mt.pick(medium_for[mixed], speed[mixed])
        new_code[mixed] = np.where(picked >= 0, picked, code[mixed])
        changed = int(np.count_nonzero(new_code[mixed] != code[mixed]))

    # copper assemblies: a lone link, a twin (same mates at both ends), a breakout (twin to singles)
    kind = mt.is_optical(new_code)
    copper = (new_code >= 0) & ~kind
    copper_assembly = sk.copper_assembly if todo is None else sk.copper_assembly[todo]
    assembly = np.where(
        copper, copper_assembly, np.where(kind, np.int8(ASSEMBLIES.index("fibre")), np.int8(0))
    ).astype(np.int8)
    # fibre: every link its own patch cord; copper: the longest leg
    basis = np.where(copper, medium_for, length)
    return new_code, medium_for, basis, assembly, changed


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


def _port_violations(
    sk: PortSkeleton,
    devices: pd.DataFrame,
    rack_a: np.ndarray,
    rack_b: np.ndarray,
    rack_ids: np.ndarray | None,
) -> list[Violation]:
    """One ``ports`` violation per device over its cages (up to MAX_PORT_VIOLATIONS, then one for the
    rest), naming the rack it stands in."""
    violations: list[Violation] = []
    bad_dev, bad_grp = sk.over
    if not len(bad_dev):
        return violations
    dev, used_cages, used_ports, have = sk.dev, sk.used_cages, sk.used_ports, sk.have
    rack_of = np.full(len(devices), -1, dtype=np.int64)
    rack_of[dev[: len(rack_a)]] = rack_a
    rack_of[dev[len(rack_a) :]] = rack_b
    ids = devices["device_id"].to_numpy()
    mdl = devices["model"].to_numpy()
    for d, j in list(zip(bad_dev.tolist(), bad_grp.tolist(), strict=True))[:MAX_PORT_VIOLATIONS]:
        r = int(rack_of[d])
        where = str(rack_ids[r]) if rack_ids is not None and 0 <= r < len(rack_ids) else "unplaced"
        form = str(sk.form_tab[sk.model_code[d], j]).upper()
        violations.append(
            Violation(
                "ports",
                where,
                f"{ids[d]} ({mdl[d]}) in {where} needs {int(used_cages[d, j])} {GROUPS[j]} {form} cages "
                f"for {int(used_ports[d, j])} ports; it has {int(have[d, j])}",
                "fewer links on this device (a switch with more ports, fewer servers per leaf) or a "
                "model with more cages",
                {
                    "device": str(ids[d]),
                    "group": GROUPS[j],
                    "cages_needed": int(used_cages[d, j]),
                    "cages": int(have[d, j]),
                    "ports_used": int(used_ports[d, j]),
                },
            )
        )
    if len(bad_dev) > MAX_PORT_VIOLATIONS:
        violations.append(
            Violation(
                "ports",
                "site",
                f"{len(bad_dev) - MAX_PORT_VIOLATIONS} more devices need more cages than they have",
                "see summary.json ports.by_model",
                {"devices": int(len(bad_dev) - MAX_PORT_VIOLATIONS)},
            )
        )
    return violations


def cage_label_codes(group: np.ndarray, cage: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Cage names, 1-based: ``7`` (switch data cage 7, as NVIDIA numbers them), ``be3``, ``fe1``,
    ``st2``, ``mgmt1``, as (distinct names, index of each end's name)."""
    g = len(GROUPS)
    uniq, inv = unique_inverse(cage * g + group)
    return [f"{GROUP_LABELS[k % g]}{k // g + 1}" for k in uniq.tolist()], inv


def port_label_codes(
    group: np.ndarray, cage: np.ndarray, port: np.ndarray, per_cage: np.ndarray
) -> tuple[list[str], np.ndarray]:
    """Port names: cage and port inside it, ``7/2`` (NVIDIA's split-port naming), ``be3/1``, as
    (distinct names, index of each end's name)."""
    g, m = len(GROUPS), 16
    uniq, inv = unique_inverse((cage * g + group) * m + (port - cage * per_cage))
    return [f"{GROUP_LABELS[(k // m) % g]}{k // m // g + 1}/{k % m + 1}" for k in uniq.tolist()], inv


def port_labels(group: np.ndarray, cage: np.ndarray, port: np.ndarray, per_cage: np.ndarray) -> np.ndarray:
    """Each end's port name (``port_label_codes``) as an object array."""
    names, inv = port_label_codes(group, cage, port, per_cage)
    return np.asarray(names, dtype=object)[inv]
