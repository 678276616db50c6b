"""Oversubscription as a choice that pays (issue 26, item 4): refused without pods, and oversubscribed pods
that need more switches than one non-blocking fabric of the same GPUs give way to it (or, where a site's
pods may not span buildings, are kept), with both figures in the summary. The small cases are worked by
hand on 8-port switches (tests/unit/test_fabric_invariants.SMALL: ``tiny8``, 1-GPU servers)."""

from __future__ import annotations

import pytest
from test_fabric_invariants import SMALL

from layout.fabric import CLUSTER_KEYS, build, size
from layout.load import InputError
from layout.model import Cluster

# 16 one-port servers on 8-port switches (4 down, 4 up below the top):
# - one non-blocking fabric: 4 leaves; 16 links up to a top of 8 ports down: 2 spines. 6 switches, 2 tiers,
#   16 + 16 = 32 links.
# - 2 pods of 8 at 3:1: each pod 2 leaves and a pod top of at most floor(8 x 3/4) = 6 links down: each
#   leaf's 4 links over 2 spines (2 each, 4 down per spine), each spine ceil(4/3) = 2 up; the 4 spines'
#   8 links up on one 8-port switch that joins the pods. 4 + 4 + 1 = 9 switches, 3 tiers, 16 + 16 + 8 = 40.
SMALL_CASE = {
    "pods": 2,
    "pod_gpus": 8,
    "oversubscription": 3.0,
    "tiers": 3,
    "switches": 9,
    "links": 40,
    "non_blocking": {"tiers": 2, "switches": 6, "links": 32},
}


def test_pods_that_cost_more_give_way_to_one_non_blocking_fabric() -> None:
    s = size(16, "gpu1", "tiny8", pod_gpus=8, oversubscription=3.0, catalog=SMALL).summary()
    assert (s["pods"], s["tiers"], s["oversubscription"]) == (1, 2, 1.0)  # as built
    assert (s["switches"]["leaf"], s["switches"]["spine"], s["switches"]["total"]) == (4, 2, 6)
    assert s["links"]["total"] == 32
    assert s["pods_cost_more"] == {**SMALL_CASE, "built": "non_blocking"}


def test_pods_that_cost_more_are_kept_when_asked_with_both_figures() -> None:
    s = size(16, "gpu1", "tiny8", pod_gpus=8, oversubscription=3.0, keep_pods=True, catalog=SMALL).summary()
    assert (s["pods"], s["tiers"], s["oversubscription"]) == (2, 3, 3.0)
    assert (s["switches"]["leaf"], s["switches"]["spine"], s["switches"]["core"]) == (4, 4, 1)
    assert s["links"]["total"] == 40
    assert s["pods_cost_more"] == {**SMALL_CASE, "built": "pods"}


def test_pods_that_pay_are_built_without_a_note() -> None:
    """64 one-port servers on 8-port switches. One non-blocking fabric: 16 leaves, 16 spines (blocks of 4
    leaves), 64 links over 8-port cores: 8; 40 switches, 3 tiers, 192 links. Pods of 24 at 3:1 (24, 24
    and 16 servers): a pod's 6 leaves (4 in the last) fit under a pod top of 6 links down: 4 spines each
    (a leaf's 4 links, 1 to each; the last pod's partial block gets as many), each spine ceil(down/3) = 2
    up; the pods meet spine position by position: 4 switches of 3 x 2 links. 16 + 12 + 4 = 32 switches,
    64 + 64 + 24 = 152 links."""
    pods = size(64, "gpu1", "tiny8", pod_gpus=24, oversubscription=3.0, catalog=SMALL).summary()
    flat = size(64, "gpu1", "tiny8", catalog=SMALL).summary()
    assert (flat["switches"]["total"], flat["links"]["total"], flat["tiers"]) == (40, 192, 3)
    assert (pods["pods"], pods["tiers"], pods["oversubscription"]) == (3, 3, 3.0)
    sw = pods["switches"]
    assert (sw["leaf"], sw["spine"], sw["core"], pods["links"]["total"]) == (16, 12, 4, 152)
    assert pods["pods_cost_more"] is None


def test_the_issue_figures_24008_gpus_in_pods_of_8192_at_3_to_1() -> None:
    """Issue 26: 24,008 GPUs in pods of 8,192 at 3:1 need 2,416 switches and 80,328 links against 2,016
    and 72,136 non-blocking. Without a site (``dclayout fabric``) the non-blocking one is built; a site
    keeps its pods where they may not span buildings (each pod is what a building holds) and builds the
    non-blocking fabric where they may."""
    note = {
        "pods": 3,
        "pod_gpus": 8192,
        "oversubscription": 3.0,
        "tiers": 4,
        "switches": 2416,
        "links": 80_328,
        "non_blocking": {"tiers": 3, "switches": 2016, "links": 72_136},
    }
    s = size(24_008, pod_gpus=8192, oversubscription=3.0, catalog=SMALL).summary()
    assert (s["switches"]["total"], s["links"]["total"], s["pods"]) == (2016, 72_136, 1)
    assert s["pods_cost_more"] == {**note, "built": "non_blocking"}
    base = dict(gpus=24_008, server="dgx-h100", rack="dgx-h100-x4", switch="qm9700", pod_gpus=8192)
    for spans, built, switches in ((False, "pods", 2416), (True, "non_blocking", 2016)):
        cluster = Cluster(**base, oversubscription=3.0, pod_spans_buildings=spans)
        s = build(cluster, SMALL).summary()
        assert s["switches"]["total"] == switches
        assert s["pods_cost_more"] == {**note, "built": built}


def test_pods_at_1_to_1_are_a_choice_of_their_own() -> None:
    """Non-blocking pods (1:1) cost nothing in bandwidth: kept as asked, never compared."""
    s = size(16, "gpu1", "tiny8", pod_gpus=8, catalog=SMALL).summary()
    assert s["pods"] == 2 and s["pods_cost_more"] is None


@pytest.mark.parametrize(
    ("pod_gpus", "what"),
    [(0, "no pod size is given"), (1024, "a pod of 1,024 GPUs holds the whole cluster")],
)
def test_oversubscription_without_pods_is_refused(pod_gpus: int, what: str) -> None:
    with pytest.raises(InputError) as e:
        size(1024, pod_gpus=pod_gpus, oversubscription=3.0, catalog=SMALL)
    assert [str(p) for p in e.value.problems] == [
        f"dclayout fabric: --pod-gpus: an oversubscription of 3:1 applies between pods, and {what} "
        "(allowed: pods smaller than the 1,024 GPUs, e.g. --pod-gpus 512; or --oversubscription 1)"
    ]
    with pytest.raises(InputError) as e:
        size(1024, pod_gpus=pod_gpus, oversubscription=3.0, catalog=SMALL, source="s.toml", keys=CLUSTER_KEYS)
    assert [str(p) for p in e.value.problems] == [
        f"s.toml: cluster.pod_gpus: an oversubscription of 3:1 applies between pods, and {what} (allowed: "
        "pods smaller than the 1,024 GPUs, e.g. cluster.pod_gpus = 512; or cluster.oversubscription = 1)"
    ]


def test_a_cluster_of_one_server_is_offered_no_pod_size() -> None:
    with pytest.raises(InputError) as e:
        size(72, "gb200-nvl72", oversubscription=2.0, catalog=SMALL)
    assert str(e.value.problems[0]).endswith(
        "an oversubscription of 2:1 applies between pods, and no pod size is given (allowed: --oversubscription 1)"
    )
