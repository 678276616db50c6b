"""A folded Clos wired tier by tier on numpy arrays: blocks, planes and groups, the fewest upper
switches per group, partial blocks and the slot wiring of a single pod's top (the rules are in the
docstring of layout.fabric)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Layer:
    """The switches of one tier (local numbers 0..n-1) as seen by the tier above."""

    block: np.ndarray  # block (group at this tier) of each switch, numbered across the network
    pos: np.ndarray  # position inside its block
    up: np.ndarray  # links it takes up
    pod: np.ndarray  # pod label, -1 above the pods
    spod: np.ndarray  # structural pod: blocks never mix two of them until the tier that joins them
    down: np.ndarray  # links it takes down
    lo: np.ndarray  # planes it serves: [lo, hi) of its tier (a switch of a full block serves one)
    hi: np.ndarray


@dataclass
class Net:
    """Devices and links of one network, with local device numbers per tier."""

    layers: list[Layer] = field(default_factory=list)
    links: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)  # per tier t>=2: (lower, upper)
    parent: list[np.ndarray] = field(default_factory=list)  # per tier t>=2: block of each tier t-1 switch

    def local_block(self, tier: int) -> np.ndarray:
        """Per switch of tier 1 or 2: the number, inside its pod, of its 2-tier block (its group)."""
        if len(self.layers) < 2:
            return np.zeros(len(self.layers[0].up), dtype=np.int64)
        blocks = self.parent[0] if tier == 1 else self.layers[1].block
        spods = self.layers[0].spod if tier == 1 else self.layers[1].spod
        first = np.full(int(spods.max()) + 1, np.iinfo(np.int64).max)
        np.minimum.at(first, spods, blocks)
        return blocks - first[spods]


def _fewest_uppers(share: np.ndarray, spare: np.ndarray, down_max: int, divide: bool = False) -> int:
    """Fewest uppers ``C`` for a group whose lower switches send ``share`` links each: ``ceil(share/C)``
    to every upper must fit the uppers' ``down_max`` ports and each lower's ``spare`` ports (so a
    switch with as many links up as down takes a divisor of its share). ``divide``: ``C`` divides every
    share, so that each lower switch takes exactly its share up (the NVL72 rail groups of the DGX
    SuperPOD GB200 RA: a leaf's 18 links over 6 spines, 3 each)."""
    top = int(share.max())
    for c in range(1, top + 1):
        if divide and bool((share % c).any()):
            continue
        each = -(-share // c)
        if int(each.sum()) <= down_max and bool((each * c <= spare).all()):
            return c
    return next(d for d in range(1, top + 1) if top % d == 0 and int((-(-share // d)).sum()) <= down_max)


def _plane_shares(lower: Layer, radix: int, every: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(switch, plane, links) for every plane a switch of ``lower`` serves: its up links spread evenly
    over its planes (counts differing by at most one); with ``every``, at least one into each while it
    has the ports (below the top, so that it reaches every plane of every tier above)."""
    w = lower.hi - lower.lo
    sw = np.repeat(np.arange(len(w), dtype=np.int64), w)
    t = rank_in_runs(sw)
    up, w_m = lower.up[sw], w[sw]
    e = (t + 1) * up // w_m - t * up // w_m
    if every:
        more = (lower.down + np.maximum(lower.up, w) <= radix) & (lower.up < w)
        e = np.where(more[sw], np.maximum(e, 1), e)
    keep = e > 0
    return sw[keep], (lower.lo[sw] + t)[keep], e[keep]


def _tier_up(
    lower: Layer,
    new_block_of_lower: np.ndarray,
    down_max: int,
    radix: int,
    planes_above: bool,
    count_only: bool = False,
    full_fan: bool = False,
    divide: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | int:
    """Wire ``lower`` to a new tier. Returns (link lower, link upper, upper block, upper position,
    upper plane range lo, hi), or with ``count_only`` the number of uppers.

    A group is one plane (position ``q``) of one new block: the lower switches of that block whose plane
    range covers ``q``. A lower switch serving ``w`` planes (a switch of a partial block, standing in for
    ``w`` switches of a full one) spreads its up links evenly over them, at least one into each while it
    has the ports. The group gets the fewest uppers ``C`` whose down ports hold ``ceil(share/C)`` from
    every lower switch (and whose lower switches have the ports for it; a divisor of the full group's
    count when a tier above needs the planes); a lower switch lacking the ports spreads its share, counts
    differing by at most one (the extra links to the first uppers). Upper ``j`` of plane ``q`` serves planes
    ``[q*F + j*F//C, q*F + (j+1)*F//C)`` of the new tier, ``F`` being the most uppers any plane got."""
    n = len(lower.up)
    w = lower.hi - lower.lo
    m_sw, m_q, m_e = _plane_shares(lower, radix, every=True)
    m_nb = new_block_of_lower[m_sw]
    order = np.lexsort((lower.block[m_sw], m_q, m_nb))
    key_nb, key_q = m_nb[order], m_q[order]
    cut = np.flatnonzero((np.diff(key_nb) != 0) | (np.diff(key_q) != 0)) + 1
    starts = np.concatenate(([0], cut)).astype(np.int64)
    ends = np.concatenate((cut, [len(order)])).astype(np.int64)
    n_grp = len(starts)
    g_c = np.empty(n_grp, dtype=np.int64)  # uppers of each group
    g_base = np.empty(n_grp, dtype=np.int64)  # first upper of each group
    up_block: list[int] = []
    up_count: list[int] = []
    up_first_q: list[int] = []  # plane of the first group an upper serves
    up_last_q: list[int] = []  # plane of the last (shared single uppers serve several)
    cache: dict[bytes, int] = {}
    next_upper = 0
    shared: tuple[int, int, int] | None = None  # (block, ports used, upper) of a single-switch group
    e_sorted = m_e[order]
    spare_sorted = np.where(w[m_sw] == 1, radix - lower.down[m_sw], radix)[order]  # ports for links up
    groups = list(zip(starts.tolist(), ends.tolist(), strict=True))
    for g, (s, e) in enumerate(groups):
        u = e_sorted[s:e]
        spare = spare_sorted[s:e]
        sig = u.tobytes() + spare.tobytes()
        c = cache.get(sig)
        if c is None:
            c = _fewest_uppers(u, spare, down_max, divide)
            cache[sig] = c
        g_c[g] = c
    if full_fan and n_grp:
        # several pods: a partial group gets as many uppers as a full one where its lower switches have
        # the ports for ceil(share/C) to each, so that each upper position (column) of every pod sees
        # the same links from the partial block as from a full one: the pods' tiers above are wired
        # column by column, and a partial block whose links pile onto the first uppers would leave the
        # partial blocks of the other pods only those columns into this pod
        fan = int(g_c.max())
        for g, (s, e) in enumerate(groups):
            if g_c[g] < fan:
                each = -(-e_sorted[s:e] // fan)
                if int(each.sum()) <= down_max and bool((each * fan <= spare_sorted[s:e]).all()):
                    g_c[g] = fan
    if planes_above and n_grp:
        # a partial group's uppers split the planes of a full one evenly: a divisor of its count
        fan = int(g_c.max())
        divs = np.array([d for d in range(1, fan + 1) if fan % d == 0])
        g_c = divs[np.searchsorted(divs, g_c)]
    for g, (s, e) in enumerate(groups):
        c = int(g_c[g])
        nb = int(key_nb[s])
        q = int(key_q[s])
        ports = int(e_sorted[s:e].sum())
        if c == 1 and shared is not None and shared[0] == nb and shared[1] + ports <= down_max:
            upper = shared[2]
            shared = (nb, shared[1] + ports, upper)
            up_last_q[-1] = q
        else:
            upper = next_upper
            next_upper += c
            up_block.append(nb)
            up_count.append(c)
            up_first_q.append(q)
            up_last_q.append(q)
            shared = (nb, ports, upper) if c == 1 else None
        g_base[g] = upper
    if count_only:
        return next_upper
    grp_of = np.empty(len(order), dtype=np.int64)
    grp_of[order] = np.repeat(np.arange(n_grp), ends - starts)
    c_m = g_c[grp_of]
    # equal links to every upper of the group (ceil), unless the lower switch lacks the ports: then spread
    equal_need = np.bincount(m_sw, weights=c_m * -(-m_e // c_m), minlength=n).astype(np.int64)
    down_of = lower.down
    spread = (down_of + equal_need > radix)[m_sw]
    # links of each membership to each of its group's uppers
    r_m = np.repeat(np.arange(len(m_sw)), c_m)
    j = rank_in_runs(r_m)
    e_r = m_e[r_m]
    c_r = c_m[r_m]
    cnt = np.where(spread[r_m], e_r // c_r + (j < e_r % c_r), -(-e_r // c_r))
    upper_r = g_base[grp_of[r_m]] + j
    lower_r = m_sw[r_m]
    srt = np.lexsort((upper_r, lower_r))
    a = np.repeat(lower_r[srt], cnt[srt])
    b = np.repeat(upper_r[srt], cnt[srt])
    blocks = np.repeat(np.asarray(up_block, dtype=np.int64), up_count)
    pos = np.arange(len(blocks)) - np.repeat(_first_index(blocks), _run_lengths(blocks))
    # plane ranges of the uppers at the new tier
    fan = max(up_count) if up_count else 1
    cnt_u = np.repeat(np.asarray(up_count, dtype=np.int64), up_count)
    jj = rank_in_runs(np.repeat(np.arange(len(up_count)), up_count))
    fq = np.repeat(np.asarray(up_first_q, dtype=np.int64), up_count)
    lq = np.repeat(np.asarray(up_last_q, dtype=np.int64), up_count)
    lo = fq * fan + jj * fan // cnt_u
    hi = np.where(lq > fq, (lq + 1) * fan, fq * fan + (jj + 1) * fan // cnt_u)
    return a, b, blocks, pos, lo, hi


def _top_slots(
    lower: Layer, down_max: int, radix: int, fewer_than: int
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The top tier as one group: the ``U`` links a full switch takes into plane ``q`` take slots
    ``q*U .. q*U+U-1`` and slot ``i`` goes to top switch ``i mod C``, so every full switch of plane ``q``
    in every block reaches the same top switches with the same links. A switch with ``e < U`` links
    into the plane sends ``ceil(f*e/U)`` where a full one sends ``f`` (so any set of them gets its share
    of every top switch), or, when it lacks the ports for that, spreads its ``e`` links evenly over the
    plane's slots. ``C`` is the fewest whose down ports hold what lands on them; None when that is not
    fewer than ``fewer_than`` (the per-plane wiring then stays)."""
    n = len(lower.up)
    sw, q, e = _plane_shares(lower, radix, every=False)
    if len(e) == 0:
        return None
    unit = int(e.max())
    full = e == unit
    f_link = np.repeat(np.flatnonzero(full), unit)
    f_slot = q[f_link] * unit + rank_in_runs(f_link)
    f_a = sw[f_link]
    thin = np.flatnonzero(~full)
    down = lower.down

    def wire(c: int) -> tuple[np.ndarray, np.ndarray] | None:
        parts_a, parts_b = [f_a], [f_slot % c]
        if len(thin):
            # a full switch of plane q sends f = U//c (+1 for the first U%c) to top switches
            # (q*U + i) mod c, i < min(U, c); a thin one ceil(f*e/U) to each
            m = min(unit, c)
            mem = np.repeat(thin, m)
            i = np.tile(np.arange(m, dtype=np.int64), len(thin))
            top = (q[mem] * unit + i) % c
            cnt = -(-(unit // c + (i < unit % c)) * e[mem] // unit)
            need = np.bincount(sw[mem], weights=cnt, minlength=n).astype(np.int64)
            lacks = down + need > radix
            ok = ~lacks[sw[mem]]
            parts_a.append(np.repeat(sw[mem[ok]], cnt[ok]))
            parts_b.append(np.repeat(top[ok], cnt[ok]))
            # lacking the ports: its e links over the plane's U slots, evenly
            few = thin[lacks[sw[thin]]]
            s_link = np.repeat(few, e[few])
            s_slot = q[s_link] * unit + rank_in_runs(s_link) * unit // e[s_link]
            parts_a.append(sw[s_link])
            parts_b.append(s_slot % c)
        a, b = np.concatenate(parts_a), np.concatenate(parts_b)
        if int(np.bincount(b, minlength=c).max()) > down_max:
            return None
        return a, b

    # the fewest C that fits: gallop up from the port bound, then halve back (feasibility grows with C)
    lo = max(1, -(-int(e.sum()) // down_max)) - 1  # known not to fit (or 0)
    step, hi, best = 1, lo + 1, None
    while hi < fewer_than:
        best = wire(hi)
        if best is not None:
            break
        lo, hi, step = hi, hi + step, step * 2
    if best is None:
        hi = fewer_than - 1
        if hi <= lo or (best := wire(hi)) is None:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        got = wire(mid)
        if got is None:
            lo = mid
        else:
            hi, best = mid, got
    a, b = best
    srt = np.lexsort((b, a))
    return a[srt], b[srt], hi


def _first_index(sorted_keys: np.ndarray) -> np.ndarray:
    if len(sorted_keys) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))


def _run_lengths(sorted_keys: np.ndarray) -> np.ndarray:
    starts = _first_index(sorted_keys)
    return np.diff(np.concatenate((starts, [len(sorted_keys)])))


def rank_in_runs(keys: np.ndarray) -> np.ndarray:
    """0, 1, 2 ... restarting whenever the (sorted) key changes."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    starts = _first_index(keys)
    return np.arange(len(keys)) - np.repeat(starts, _run_lengths(keys))


def rank_by(keys: np.ndarray) -> np.ndarray:
    """0, 1, 2 ... among the entries with the same key, in order (keys need not be sorted)."""
    order = np.argsort(keys, kind="stable")
    rank = np.empty(len(keys), dtype=np.int64)
    rank[order] = rank_in_runs(keys[order])
    return rank


def _group_blocks(layer: Layer, size: int | None, join_pods: bool) -> np.ndarray:
    """New block of each switch of ``layer``: ``size`` consecutive blocks of the same structural pod,
    all blocks of a structural pod (``size`` None), or everything (``join_pods``)."""
    if join_pods:
        return np.zeros(len(layer.block), dtype=np.int64)
    first_block_of_spod = np.full(int(layer.spod.max()) + 1, np.iinfo(np.int64).max)
    np.minimum.at(first_block_of_spod, layer.spod, layer.block)
    local = layer.block - first_block_of_spod[layer.spod]
    sub = local // size if size else np.zeros_like(local)
    key = layer.spod * (int(sub.max()) + 1) + sub
    _, dense = np.unique(key, return_inverse=True)
    return dense.astype(np.int64)


def _common_pod(a: np.ndarray, b: np.ndarray, pod_a: np.ndarray, n_upper: int) -> np.ndarray:
    lo = np.full(n_upper, np.iinfo(np.int64).max)
    hi = np.full(n_upper, np.iinfo(np.int64).min)
    np.minimum.at(lo, b, pod_a[a])
    np.maximum.at(hi, b, pod_a[a])
    return np.where(lo == hi, lo, -1)


def fewest_tiers(leaves: int, block_leaves: int, half: int, top_down: int) -> int:
    """Fewest tiers whose top holds ``leaves`` leaves of one pod (see clos for the grouping)."""
    if leaves <= 1:
        return 1
    if leaves <= top_down:
        return 2
    blocks, tiers = -(-leaves // block_leaves), 3
    while blocks > top_down:
        blocks, tiers = -(-blocks // half), tiers + 1
    return tiers


def clos(
    leaf_spod: np.ndarray,
    leaf_pod: np.ndarray,
    leaf_down: np.ndarray,
    pod_tiers: int,
    join_tier: bool,
    radix: int,
    block_leaves: int,
    top_down: int,
    top_up: Callable[[np.ndarray], np.ndarray],
    leaf_up: Callable[[np.ndarray], np.ndarray] | None = None,
    leaf_slot: np.ndarray | None = None,
    divide: bool = False,
) -> Net:
    """Tiers 1..pod_tiers inside each structural pod, plus one tier joining the pods if ``join_tier``.
    Below the pod top every switch is non-blocking (up = down, at most radix/2 each); the pod top takes
    at most ``top_down`` links down and ``top_up(down)`` up; the joining tier takes all ``radix`` down.

    ``leaf_slot``: each leaf's place in its structural pod (numbers may skip missing leaves: the 2-tier
    blocks are slots ``b*block_leaves .. (b+1)*block_leaves - 1``); None: the leaves in order. ``divide``:
    the spines of a 2-tier block divide every leaf's links up (see _fewest_uppers)."""
    half = radix // 2
    tiers = pod_tiers + int(join_tier)
    net = Net()
    n_leaf = len(leaf_down)
    if leaf_up is not None:
        up = leaf_up(leaf_down)
    elif pod_tiers == 1:
        up = top_up(leaf_down) if join_tier else np.zeros(n_leaf, dtype=np.int64)
    else:
        up = leaf_down.copy()
    zero = np.zeros(n_leaf, dtype=np.int64)
    layer = Layer(
        block=np.arange(n_leaf) if leaf_slot is None else np.asarray(leaf_slot, dtype=np.int64),
        pos=zero,
        up=up,
        pod=leaf_pod,
        spod=leaf_spod,
        down=leaf_down,
        lo=zero,
        hi=zero + 1,
    )
    net.layers.append(layer)
    for t in range(2, tiers + 1):
        if t > pod_tiers:  # the tier that joins the pods
            new_block = _group_blocks(layer, None, join_pods=True)
            down_max = radix
        elif t == pod_tiers:  # the pod top
            new_block = _group_blocks(layer, None, join_pods=False)
            down_max = top_down
        else:
            new_block = _group_blocks(layer, block_leaves if t == 2 else half, join_pods=False)
            down_max = half
        slots = None
        if t == tiers == pod_tiers and int(new_block.max()) == 0:  # one pod's top: fewer by slots?
            per_plane = _tier_up(
                layer, new_block, down_max, radix, False, count_only=True, divide=divide and t == 2
            )
            assert isinstance(per_plane, int)
            slots = _top_slots(layer, down_max, radix, per_plane)
        if slots is not None:
            a, b, n_top = slots
            blocks = np.zeros(n_top, dtype=np.int64)
            pos = lo = np.arange(n_top, dtype=np.int64)
            hi = lo + 1
        else:
            wired = _tier_up(
                layer,
                new_block,
                down_max,
                radix,
                t < tiers,
                full_fan=join_tier and t < pod_tiers,
                divide=divide and t == 2,
            )
            assert not isinstance(wired, int)
            a, b, blocks, pos, lo, hi = wired
        n_up = len(blocks)
        down = np.bincount(b, minlength=n_up)
        if t > pod_tiers:
            up_links = np.zeros(n_up, dtype=np.int64)
        elif t == pod_tiers:
            up_links = top_up(down) if join_tier else np.zeros(n_up, dtype=np.int64)
        else:
            up_links = down.copy()
        block_spod = np.zeros(int(new_block.max()) + 1, dtype=np.int64)
        if t <= pod_tiers:
            block_spod[new_block] = layer.spod
        layer = Layer(
            block=blocks,
            pos=pos,
            up=up_links,
            pod=_common_pod(a, b, layer.pod, n_up),
            spod=block_spod[blocks],
            down=down,
            lo=lo,
            hi=hi,
        )
        net.layers.append(layer)
        net.links.append((a, b))
        net.parent.append(new_block)
    return net
