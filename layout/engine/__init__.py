"""Many designs at once: the fan-out of ``compare``, ``report``, ``sweep`` and ``optimize`` over Dask.

- :mod:`~layout.engine.cluster`: :class:`Engine`, a Dask client on a ``distributed.LocalCluster`` of this
  machine's cores (default) or on an existing cluster (``--scheduler tcp://HOST:PORT``); the shared inputs
  go to the workers once (scatter) and each task returns a small summary, in the order of the tasks,
  so the results are the same bytes whichever cluster ran them; a task that fails is that task's
  :class:`Failed`, not the end of the run; a scheduler address is checked and reached within seconds, a
  task lost with its worker is run again, and a cluster lost for good (its scheduler, or every worker)
  ends the run with :attr:`Engine.lost` naming it, the finished results kept;
- :mod:`~layout.engine.optimize`: the layout search of ``dclayout optimize``;
- :mod:`~layout.engine.sweep`: the grid of ``dclayout sweep``.

Dask is imported only when an engine with workers starts (``dclayout fabric`` stays fast).
"""

from layout.engine.cluster import ClusterLost, Engine, Failed

__all__ = ["ClusterLost", "Engine", "Failed"]
