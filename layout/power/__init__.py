"""The power stage: what every rack draws, the halls' and site's budgets, the power chain and the CDUs.

- :mod:`~layout.power.loads`: each device's and rack's kW from the cabled links, floor loads, and
  ``check``: the power report with every budget breach (rack kW, hall, building and site MW, floor
  load, cooling);
- :mod:`~layout.power.chain`: per hall UPS blocks, switchboards, A/B busways and every rack's feeds;
- :mod:`~layout.power.cdus`: the CDUs of liquid halls;
- :mod:`~layout.power.facility`: what the chain and the CDUs read of the inputs (:class:`FacilityInput`);
- :mod:`~layout.power.cooling`: each hall's heat against its cooling capacity (layout/capacity.py,
  which the placer reads too), and the in-order packing of loads that the chain and the CDUs share.
"""
