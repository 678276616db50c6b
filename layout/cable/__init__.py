"""The cabling stage: lay the trays, route every link, pick its medium and count what to buy.

- :mod:`~layout.cable.tray_pieces`: the graph the trays are built on, and each hall's piece of it;
- :mod:`~layout.cable.trays`: the cable tray network, a graph in metres over rows, aisles, trunks,
  risers and campus ducts, with every rack hung off its row tray;
- :mod:`~layout.cable.route`: each link's ends, jumpers, and the shortest tray paths and edge loads;
- :mod:`~layout.cable.cages`: the fabric's part of the port map: every end's cage group, port and cage,
  and which links share a cage;
- :mod:`~layout.cable.ports`: every link end on a port and a cage, one medium per cage;
- :mod:`~layout.cable.media`: the catalog's media as arrays, each link's medium by its routed length,
  stock lengths, transceivers and their power;
- :mod:`~layout.cable.checks`: tray fill, and the violations of links without a route and of full trays;
- :mod:`~layout.cable.inputs`: what the stage reads of the inputs (:class:`CableInput`);
- :mod:`~layout.cable.stage`: ``cable()``, the stage's entry (trays -> routes -> media -> fill) and its
  result :class:`Cabling`.
"""

from layout.cable.inputs import CableInput
from layout.cable.stage import Cabling, cable

__all__ = ["CableInput", "Cabling", "cable"]
