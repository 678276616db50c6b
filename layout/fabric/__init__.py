"""The logical network of an AI cluster: servers, switches and links of a folded Clos (fat tree).

Sizing, by the switch radix ``k`` counted at the server's NIC speed (an 800G port that breaks out into
two 400G links counts twice):

- Non-blocking inside a pod: every switch below the pod's top tier takes at most ``k/2`` links down and
  at least as many up (more only in a partial block, where rounding to whole links adds a few). Two tiers hold ``k**2/2`` ports, three ``k**3/4``, four ``k**4/8``.
- Above the pods, the requested oversubscription ``R``: the pod's top tier takes at most
  ``floor(k*R/(R+1))`` links down and ``ceil(down/R)`` up; one more tier joins the pods.
- Buildable wiring: the switches of a tier are made of *blocks* (at tier 2 consecutive leaves, whole
  scalable units when they fit; above, ``k/2`` blocks of the tier below; the pod top takes the pod).
  A block has *planes*: a full 2-tier block has one spine per plane (``k/2``), a full 3-tier block one
  core per (spine plane, core) ... A group is one plane of one block: the switches of that plane in
  each block below. Each lower switch sends ``ceil(share/C)`` links to each of the group's ``C`` upper
  switches, ``C`` the fewest whose ports hold that (a divisor of a full group's count when a tier
  above needs the planes); planes that need one switch share it while it has ports.
- Partial blocks (the last of a pod, most GPU counts): a switch of a partial block serves a range of
  the full block's planes (column ``planes``) and spreads its up links evenly over them, at least one
  into each while it has the ports, so that every leaf reaches every plane above with its bandwidth;
  a lower switch without the ports for ``ceil(share/C)`` to every upper spreads its share instead
  (counts differ by at most one). With several pods, a partial group below the pod top gets as many
  upper switches as a full one wherever its switches have the ports for a link to each (a partial
  block then has one spine per plane, its leaves taking more links up than down): the pods meet above
  their tops position by position, so the partial blocks of every pod must reach every position
  evenly. The top of a single pod may instead be wired by *slots*: the ``U``
  links a full switch takes into plane ``q`` take slots ``q*U..q*U+U-1`` and slot ``i`` goes to top
  switch ``i mod C``; every full block then reaches the top switches with the same links (what full
  bisection between two full blocks requires) with ``C`` not bound to divisors; it is used when it
  takes fewer switches. tests/unit/test_fabric_maxflow.py checks non-blocking by valley-free max-flow.
- ``rail``: a scalable unit (SU) is ``k/2`` servers and one leaf per rail (= server backend port); rail i
  of every server goes to leaf i of its SU. ``mor``: all backend ports of a rack (or of a rack pair when
  two racks together fill no more than ``k/2`` ports) go to that rack's leaf, over copper.
- NVL72 rack systems on rails (``nvl72_wiring``): ``ra`` as the DGX SuperPOD GB200 RA's compute fabric,
  per SU one rail group per NIC position of a compute tray, each of one leaf per rack (the 18 trays'
  NICs at that position) and spines of its own that divide the leaf's links up (6 on QM9700: 3 each),
  the groups joined by a core tier (three tiers at least); ``packed``: tray position i on rail i.
- A dual-plane NIC (``split`` 2: ConnectX-8 as 2 x 400G) gets one fabric per plane, alike, sharing no
  switch (NVIDIA's NVL72 enterprise RA); link l of a server is plane ``l % 2`` of its cage.
- Oversubscription applies between pods and is refused without them; oversubscribed pods that need more
  switches than one non-blocking fabric of the same GPUs give way to it (unless kept: a site's pods that
  may not span buildings), the summary's ``pods_cost_more`` saying both figures.

Frontend and storage networks reuse the same sizing on the cluster's switch model (frontend leaves 3:1,
storage leaves 1:1, non-blocking above the leaf, as many tiers as needed); out-of-band management is one
48-port ``sn2201`` per 48 management ports of a pod (server BMCs and every switch's management port).

Everything is built with numpy arrays; nothing is one Python object per link.

The modules, each importing only those above it: ``model`` (``Fabric``, the constants, the ``Spec`` a
fabric is built from), ``clos`` (the Clos tiers on arrays), ``tables`` (device and link columns, ids),
``side`` (storage and CPU nodes, frontend, storage and out-of-band networks), ``entry`` (``build``,
``size``: the request checked, the backend sized and wired).
"""

from __future__ import annotations

from layout.fabric.entry import build, size
from layout.fabric.model import (
    CLUSTER_KEYS,
    DEFAULT_LINK_MTBF_YEARS,
    DEVICE_COLUMNS,
    FRONTEND_LEAF_OVERSUBSCRIPTION,
    GPUS_PER_LOGIN_NODE,
    LINK_COLUMNS,
    LINK_KINDS,
    MAX_TIERS,
    NETWORK_SWITCH,
    NETWORKS,
    NODE_ROLES,
    NVL72_WIRINGS,
    OOB_AGGREGATION,
    OOB_SWITCH,
    STORAGE_LEAF_OVERSUBSCRIPTION,
    TIER_LINKS,
    TIER_ROLES,
    Fabric,
    is_nvl72,
    is_switch_role,
)

__all__ = [
    "CLUSTER_KEYS",
    "DEFAULT_LINK_MTBF_YEARS",
    "DEVICE_COLUMNS",
    "FRONTEND_LEAF_OVERSUBSCRIPTION",
    "GPUS_PER_LOGIN_NODE",
    "LINK_COLUMNS",
    "LINK_KINDS",
    "MAX_TIERS",
    "NETWORKS",
    "NETWORK_SWITCH",
    "NODE_ROLES",
    "NVL72_WIRINGS",
    "OOB_AGGREGATION",
    "OOB_SWITCH",
    "STORAGE_LEAF_OVERSUBSCRIPTION",
    "TIER_LINKS",
    "TIER_ROLES",
    "Fabric",
    "build",
    "is_nvl72",
    "is_switch_role",
    "size",
]
