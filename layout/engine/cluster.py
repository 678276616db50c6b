"""A Dask client that maps a task over items, with the shared inputs sent to each worker once.

``Engine(scheduler=None, workers=None)``:

- ``scheduler`` ``tcp://HOST:PORT``: the tasks run on that existing Dask cluster (``dask scheduler`` +
  ``dask worker`` processes, which must import this very ``layout`` package);
- else ``workers`` > 1 (default: this machine's cores): a ``distributed.LocalCluster`` of that many
  single-threaded worker processes, started here and stopped when the engine closes;
- ``workers == 1`` without a scheduler: every task runs in this process, one after the other (no Dask).

:meth:`Engine.map` returns one result per item, in the items' order, whatever order they finished in,
so a run gives the same results on every cluster (the tasks are pure functions of their arguments). An
exception in a task, or a worker that dies under it, comes back as that item's :class:`Failed` (its
one-line reason); the others go on.

Each task function is called as ``fn(shared, item, state)``: ``shared`` is the object scattered once to
every worker, ``state`` a dict the worker keeps for the engine's tasks of its thread (e.g. a
``DesignCache`` so that unchanged stages are reused between the tasks a worker runs); a local engine
keeps one such dict.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

CONNECT_TIMEOUT = "10s"  # how long to try to reach a --scheduler before it is refused
STATE_ATTR = "_dclayout_state"  # the attribute of a Dask worker holding the per-thread task state


@dataclass(frozen=True)
class Failed:
    """A task that did not return: why, in one line."""

    reason: str


def _state_of_worker() -> dict[str, Any]:
    """The task state this worker thread keeps between tasks (created on first use)."""
    from distributed import get_worker

    w = get_worker()
    states = getattr(w, STATE_ATTR, None)
    if states is None:
        states = {}
        setattr(w, STATE_ATTR, states)
    return states.setdefault(threading.get_ident(), {})  # type: ignore[no-any-return]


def _call(fn: Callable[[Any, Any, dict[str, Any]], Any], shared: Any, item: Any) -> Any:
    """Run one task on a worker; an exception becomes a Failed (sent back, not raised)."""
    try:
        return fn(shared, item, _state_of_worker())
    except Exception as e:
        return Failed(f"{type(e).__name__}: {e}")


class Engine:
    """See the module docstring. Use as a context manager (the local cluster is stopped on exit)."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None):
        self.scheduler = scheduler
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._client: Any = None
        self._cluster: Any = None
        self._local_state: dict[str, Any] = {}
        self._scattered: dict[int, Any] = {}

    @property
    def local(self) -> bool:
        """True when the tasks run in this process (one worker, no scheduler)."""
        return self.scheduler is None and self.workers <= 1

    def __enter__(self) -> Engine:
        if self.local:
            return self
        import logging

        from distributed import Client, LocalCluster

        if self.scheduler is not None:
            try:
                self._client = Client(self.scheduler, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, ValueError) as e:
                from layout.errors import InputError, Problem

                reason = str(e).splitlines()[0] if str(e) else type(e).__name__
                raise InputError(
                    [
                        Problem(
                            "--scheduler",
                            self.scheduler,
                            f"no Dask scheduler answers there ({reason})",
                            "tcp://HOST:PORT of a running `dask scheduler`",
                        )
                    ]
                ) from None
        else:
            self._cluster = LocalCluster(
                n_workers=self.workers,
                threads_per_worker=1,
                processes=True,
                memory_limit=0,  # a campus design needs more than a many-core machine's share per core
                dashboard_address=None,  # no dashboard; its HTTP routes on a free port (8787 may be taken)
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                silence_logs=logging.ERROR,
            )
            self._client = Client(self._cluster)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None
        self._scattered.clear()

    def n_workers(self) -> int:
        """Workers the tasks run on now (1 for a local engine)."""
        if self._client is None:
            return 1
        return len(self._client.scheduler_info(n_workers=-1).get("workers", {}))

    def _shared(self, shared: Any) -> Any:
        """``shared`` on the workers: scattered to every worker the first time, then reused."""
        got = self._scattered.get(id(shared))
        if got is None or got[0] is not shared:
            got = (shared, self._client.scatter(shared, broadcast=True, hash=False))
            self._scattered[id(shared)] = got
        return got[1]

    def map(
        self,
        fn: Callable[[Any, Any, dict[str, Any]], Any],
        shared: Any,
        items: Sequence[Any],
        done: Callable[[int, Any], None] | None = None,
    ) -> list[Any]:
        """``fn(shared, item, state)`` for every item: the results in the items' order (Failed for a
        task that raised or whose worker died). ``done(index, result)`` is called as each task ends."""
        if not items:
            return []
        if self._client is None:
            out = []
            for i, item in enumerate(items):
                try:
                    r = fn(shared, item, self._local_state)
                except Exception as e:
                    r = Failed(f"{type(e).__name__}: {e}")
                out.append(r)
                if done is not None:
                    done(i, r)
            return out
        from distributed import as_completed

        remote = self._shared(shared)
        futures = [self._client.submit(_call, fn, remote, item, pure=False) for item in items]
        index = {f.key: i for i, f in enumerate(futures)}
        results: list[Any] = [None] * len(items)
        for f in as_completed(futures):
            i = index[f.key]
            try:
                r = f.result()
            except Exception as e:  # the worker died (KilledWorker), the task could not be sent, ...
                r = Failed(f"{type(e).__name__}: {e}")
            results[i] = r
            if done is not None:
                done(i, r)
        return results
