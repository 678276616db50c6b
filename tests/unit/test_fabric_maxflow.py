"""Non-blocking, checked by max-flow: valley-free (up, then down) flow between sets of leaves.

The graph is built from the link table alone: every switch is split into an "up" node and a "down" node;
a link from a lower switch to an upper one is an edge up (lower-up -> upper-up) and one down
(upper-down -> lower-down), capacity = the number of parallel links; every switch may turn (up -> down).
A source feeds the leaves of one set with their GPU ports, the leaves of the other set drain to a sink.
Non-blocking promises min(ports of X, ports of Y) inside a pod and that divided by the oversubscription
R between pods. Sets: every pair of leaf groups (2-tier blocks), the first and the last block of every
tier, single leaves (the first, the last, one of a partial scalable unit) and random halves.

Switch counts are compared with a lower bound worked out here from the GPU count alone: a non-blocking
folded Clos needs at least ceil(N / (k/2)) switches at every tier below the top and ceil(N / k) at the
top (N = GPU ports, k = radix at the NIC speed), and the rail-optimized leaf count of the design.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import connected_components, maximum_flow
from test_fabric_invariants import SMALL

from layout.fabric import Fabric, size


class ValleyFree:
    """Max-flow between leaf sets over the backend network of ``fab``."""

    def __init__(self, fab: Fabric) -> None:
        d, lk = fab.device_arrays, fab.link_arrays
        be = lk["network"] == 0
        a, b = lk["a"][be], lk["b"][be]
        self.n = n = len(d["tier"])
        self.tier = d["tier"]
        self.pod = d["pod"]
        srv = self.tier[a] == 0
        self.ports = np.bincount(b[srv], minlength=n)  # GPU ports of each leaf
        a2, b2 = a[~srv], b[~srv]
        self.a, self.b = a2, b2
        switches = np.flatnonzero((self.tier > 0) & (d["network"] == "backend"))
        ones = np.ones(len(a2), dtype=np.int64)
        self.rows = np.concatenate([a2, n + b2, switches])
        self.cols = np.concatenate([b2, n + a2, n + switches])
        self.caps = np.concatenate([ones, ones, np.full(len(switches), 1 << 29)])
        self.leaves = np.flatnonzero(d["role"] == "leaf")

    def flow(self, x: np.ndarray, y: np.ndarray) -> int:
        n = self.n
        rows = np.concatenate([self.rows, np.full(len(x), 2 * n), n + y])
        cols = np.concatenate([self.cols, x, np.full(len(y), 2 * n + 1)])
        caps = np.concatenate([self.caps, self.ports[x], self.ports[y]]).astype(np.int32)
        m = csr_matrix((caps, (rows, cols)), shape=(2 * n + 2, 2 * n + 2))
        m.sum_duplicates()
        return int(maximum_flow(m, 2 * n, 2 * n + 1).flow_value)

    def blocks(self, top_tier: int) -> list[np.ndarray]:
        """Leaves grouped by the block they form with the switches up to ``top_tier`` (pod by pod)."""
        keep = self.tier[self.b] <= top_tier
        g = coo_matrix((np.ones(int(keep.sum())), (self.a[keep], self.b[keep])), shape=(self.n, self.n))
        _, comp = connected_components(g, directed=False)
        lc = comp[self.leaves]
        return [self.leaves[lc == c] for c in dict.fromkeys(lc.tolist())]

    def check(self, x: np.ndarray, y: np.ndarray, ratio: float) -> None:
        need = min(int(self.ports[x].sum()), int(self.ports[y].sum()))
        across = len(set(self.pod[x].tolist()) | set(self.pod[y].tolist())) > 1
        promised = math.floor(need / ratio + 1e-9) if across else need
        got = self.flow(x, y)
        assert got >= promised, (
            f"{len(x)} leaves {x[:3]}.. -> {len(y)} leaves {y[:3]}..: {got} of {promised} ({100 * got / promised:.0f} %)"
        )


def check_non_blocking(fab: Fabric, all_pairs: bool = True, seed: int = 0, partial_sets: bool = True) -> None:
    vf = ValleyFree(fab)
    ratio = fab.oversubscription if fab.pods > 1 else 1.0
    leaves = vf.leaves
    if len(leaves) < 2:
        return
    pairs: list[tuple[np.ndarray, np.ndarray]] = []
    for top in range(2, fab.tiers):
        blocks = vf.blocks(top)
        if len(blocks) < 2:
            continue
        if all_pairs and top == 2 and len(blocks) <= 24:
            pairs += [(blocks[i], blocks[j]) for i in range(len(blocks)) for j in range(i + 1, len(blocks))]
        else:
            pairs += [(blocks[-1], blocks[0]), (blocks[-1], blocks[len(blocks) // 2]), (blocks[0], blocks[1])]
    small = leaves[vf.ports[leaves] < vf.ports[leaves].max()]  # leaves of a partial scalable unit
    singles = [leaves[:1], leaves[-1:], leaves[len(leaves) // 2 : len(leaves) // 2 + 1]]
    if len(small) and partial_sets:
        singles.append(small[:1])
        pairs.append((small, leaves[:1]))
        pairs.append((small, leaves[: max(2, len(small))]))
    pairs += [(p, q) for i, p in enumerate(singles) for q in singles[i + 1 :] if p[0] != q[0]]
    rng = np.random.default_rng(seed)
    for _ in range(3):
        perm = rng.permutation(leaves)
        half = len(perm) // 2
        pairs.append((np.sort(perm[:half]), np.sort(perm[half:])))
    for x, y in pairs:
        vf.check(x, y, ratio)


def lower_bound(fab: Fabric) -> int:
    """Fewest switches of an exactly non-blocking folded Clos of one pod for these GPU ports.

    Leaves: as the design has them (rails, racks). Every tier between leaf and top: ceil(N / (k/2)).
    The top: at least ceil(N / k), and, for B full blocks of the tier below (``h**(T-1)`` ports each,
    h = k/2, no spare ports), their link vectors to the top switches must be equal (otherwise two of
    them have less than full flow between them), so one top switch takes at most floor(k / B) links of
    each: at least ceil(h**(T-1) / floor(k / B)) top switches.
    """
    srv = SMALL.server[fab.server]
    n = fab.gpus // srv.gpus * srv.backend_ports
    k, h = fab.radix, fab.radix // 2
    leaves = int((fab.device_arrays["role"] == "leaf").sum())  # fixed by the design (rails, racks)
    if fab.tiers == 1:
        return leaves
    middle = (fab.tiers - 2) * math.ceil(n / h)
    top = math.ceil(n / k)
    block = h ** (fab.tiers - 1)
    full = n // block
    if full:
        top = max(top, math.ceil(block / (k // full)))
    return leaves + middle + top


def switches(fab: Fabric) -> int:
    return int(((fab.device_arrays["network"] == "backend") & (fab.device_arrays["tier"] > 0)).sum())


SWEEP = [
    # (gpus, switch): round, odd and just past each tier's capacity, on 64-, 128- and 288-port switches
    (256, "qm9700"),
    (1000, "qm9700"),
    (2048, "qm9700"),
    (2056, "qm9700"),  # one DGX past 2 tiers
    (3072, "qm9700"),
    (8200, "qm9700"),
    (20_000, "qm9700"),
    (24_000, "qm9700"),
    (512, "sn5600"),
    (8192, "sn5600"),
    (8200, "sn5600"),  # past 2 tiers of 128 ports
    (32_000, "sn5600"),
    (50_000, "tomahawk5"),
    (8192, "q3400"),
    (41_480, "q3400"),  # past 2 tiers of 288 lanes
]


@pytest.mark.parametrize(("gpus", "switch"), SWEEP)
def test_non_blocking_sweep(gpus: int, switch: str) -> None:
    fab = size(gpus, switch=switch, catalog=SMALL)
    check_non_blocking(fab)
    assert switches(fab) <= lower_bound(fab) * 1.05, (
        switches(fab),
        lower_bound(fab),
        fab.summary()["switches"],
    )


@pytest.mark.parametrize(
    ("gpus", "server", "switch", "design", "pod_gpus", "ratio"),
    [
        (300, "gpu1", "tiny8", "rail", 0, 1.0),  # 4 tiers of 8-port switches, partial blocks everywhere
        (257, "gpu1", "tiny8", "rail", 0, 1.0),  # one port past 4^4/2 ... a 4th tier
        (129, "gpu1", "tiny8", "rail", 0, 1.0),
        (700, "gpu4", "tiny12", "rail", 0, 1.0),
        (456, "gpu4", "tiny12", "mor", 0, 1.0),
        (1_000, "gpu2x3", "tiny12", "rail", 0, 1.0),
        (200, "gpu1", "tiny8", "rail", 64, 3.0),  # pods joined 3:1, partial last pod
        (6_144, "dgx-h100", "qm9700", "rail", 2048, 3.0),
        (10_000, "dgx-h100", "qm9700", "rail", 3000, 7.0),
        # several pods each ending in a partial scalable unit (issue 12: 42 of 48, 57 %, 67 % before)
        (624, "dgx-h100", "tiny12", "rail", 160, 1.0),
        (624, "dgx-h100", "tiny12", "rail", 160, 3.0),
        (158, "gpu2x3", "tiny12", "rail", 80, 1.0),
        (70, "gpu1", "tiny8", "rail", 35, 1.0),
    ],
)
def test_non_blocking_small_shapes(
    gpus: int, server: str, switch: str, design: str, pod_gpus: int, ratio: float
) -> None:
    fab = size(gpus, server, switch, design, pod_gpus, ratio, catalog=SMALL)
    check_non_blocking(fab)


def test_partial_blocks_of_several_pods_get_a_full_blocks_spines() -> None:
    """78 DGX H100 on a 12-port switch in 4 pods of 20 (the last 18): each pod of 20 is 3 scalable units
    of 6 servers and one of 2, 32 leaves in 2-tier blocks of 6 (the last two, 6 and 2 leaves of the
    partial unit, 2 GPU ports each). Several pods meet above the cores column by column (core i of
    every pod on the same super-spines), so a partial block wired as for one pod (2 spines of 3 planes
    and 1 of 6, their links on the first cores of each plane) left the partial units of pods 0-2 only
    those cores into pod 0: 42 of 48. Now a partial block has one spine per plane like a full one (each
    partial leaf sends one link to each of its block's 6 spines), and every core takes 6 links down."""
    fab = size(624, "dgx-h100", "tiny12", "rail", pod_gpus=160, oversubscription=1.0, catalog=SMALL)
    d, lk = fab.devices, fab.links
    assert fab.pods == 4 and fab.tiers == 4
    spines = d[(d["role"] == "spine") & (d["pod"] == 0)]
    assert spines.groupby("group").size().tolist() == [6] * 6 and (spines["planes"] == 1).all()
    assert fab.summary()["switches"] == {
        "leaf": 120,
        "spine": 3 * 36 + 24,
        "core": 144,
        "super": 72,
        "total": 468,
    }
    leaves = d.index[(d["role"] == "leaf") & (d["pod"] == 0)]
    up = lk[(lk["kind"] == "leaf_spine") & lk["a"].isin(leaves)].groupby("a").size()
    assert (up == 6).all() and len(up) == 32
    cores = d.index[(d["role"] == "core") & (d["pod"] == 0)]
    assert (lk[(lk["kind"] == "spine_core") & lk["b"].isin(cores)].groupby("b").size() == 6).all()
    vf = ValleyFree(fab)
    ports = vf.ports[vf.leaves]
    small = vf.leaves[ports < ports.max()]
    assert len(small) == 24 and int(vf.ports[small].sum()) == 48  # 8 leaves of 2 ports in pods 0-2
    assert vf.flow(small, vf.leaves[:24]) == 48


@pytest.mark.slow
@pytest.mark.parametrize(("gpus", "switch"), [(100_000, "qm9700"), (65_544, "qm9700"), (100_000, "sn5600")])
def test_non_blocking_large(gpus: int, switch: str) -> None:
    fab = size(gpus, switch=switch, catalog=SMALL)
    check_non_blocking(fab, all_pairs=False)
    assert switches(fab) <= lower_bound(fab) * 1.05, (
        switches(fab),
        lower_bound(fab),
        fab.summary()["switches"],
    )


@pytest.mark.slow
def test_one_server_past_32_full_blocks_is_non_blocking() -> None:
    """131,080 GPUs on 128 ports: 32 full 2-tier blocks and one DGX. Non-blocking, but the top tier is
    not near its bound (1,345 cores for 1,025): the DGX's spine has too few ports to reach every core."""
    fab = size(131_080, switch="sn5600", catalog=SMALL)
    check_non_blocking(fab, all_pairs=False)
    assert fab.summary()["switches"]["core"] <= 1_345


def test_islands_are_pods_no_backend_tier_joins() -> None:
    """Seed 000's hybrid: 4 pods of 24,576 H100 as islands are 3 tiers each and no super tier (the
    7:1 pods take a 4th tier of 256 switches); each island is the non-blocking fabric of its 24,576
    GPUs (the same switches per tier, and that fabric's max flow holds), and no backend link joins two
    islands."""
    from layout.fabric import size
    from layout.load import load_catalog

    cat = load_catalog()
    joined = size(98_304, pod_gpus=24_576, oversubscription=7.0, catalog=cat, frontend=True, keep_pods=True)
    islands = size(98_304, pod_gpus=24_576, catalog=cat, frontend=True, join_pods=False, keep_pods=True)
    j, i = joined.summary(), islands.summary()
    assert (j["tiers"], i["tiers"]) == (4, 3)
    assert j["switches"]["super"] == 256 and i["switches"]["super"] == 0
    assert i["pods_joined_by"] == "frontend" and i["oversubscription"] == 1.0
    dev, links = islands.devices, islands.links
    be = links[links["network"] == "backend"]
    pod = dev["pod"].to_numpy()
    assert (pod[be["a"].to_numpy()] == pod[be["b"].to_numpy()]).all()
    one = size(24_576, catalog=cat)
    assert {t: 4 * n for t, n in one.summary()["switches"].items()} == i["switches"]
    check_non_blocking(one, all_pairs=False)


def test_islands_need_pods_and_the_frontend() -> None:
    from layout.errors import InputError
    from layout.fabric import size
    from layout.load import load_catalog

    with pytest.raises(InputError) as e:
        size(4096, pod_gpus=0, catalog=load_catalog(), join_pods=False)
    text = str(e.value)
    assert "need pods smaller than the cluster" in text and "need the frontend network" in text
