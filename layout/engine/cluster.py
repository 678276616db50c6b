"""A Dask client that maps a task over items, with the shared inputs sent to each worker once.

``Engine(scheduler=None, workers=None)``:

- ``scheduler`` ``tcp://HOST:PORT`` (or ``tls://HOST:PORT``): the tasks run on that existing Dask cluster
  (``dask scheduler`` + ``dask worker`` processes, which must import this very ``layout`` package);
- else ``workers`` > 1 (default: this machine's cores): a ``distributed.LocalCluster`` of that many
  single-threaded worker processes, started here and stopped when the engine closes;
- ``workers == 1`` without a scheduler: every task runs in this process, one after the other (no Dask).

:meth:`Engine.map` returns one result per item, in the items' order, whatever order they finished in,
so a run gives the same results on every cluster (the tasks are pure functions of their arguments). An
exception in a task comes back as that item's :class:`Failed` (its one-line reason; a MemoryError says
the worker ran out of memory); the others go on.

Each task function is called as ``fn(shared, item, state)``: ``shared`` is the object scattered once to
every worker, ``state`` a dict the worker keeps for the engine's tasks of its thread (e.g. a
design memo (layout/memo.py) so that unchanged stages are reused between the tasks a worker runs); a local engine
keeps one such dict.

**Faults** (nothing waits without a bound, and no fault is a traceback):

- the ``--scheduler`` address is checked first (:func:`check_address`: ``tcp://`` or ``tls://``, a host
  and a port), then reached within :data:`CONNECT_S` seconds in all (a thread with a deadline: a
  listener that accepts and never answers cannot hang the run), then given :data:`FIRST_WORKER_S`
  seconds to have a worker; each failure is an :class:`~layout.errors.InputError` naming the address
  and what is wrong (one line, exit code 2 from the CLI);
- a task lost with its worker (the only copy of its result or of the shared inputs died with it; Dask
  itself reruns the tasks of a dead worker while another holds their inputs) is run again, on the
  workers there are then, the shared inputs scattered anew, up to :data:`MAX_TRIES` runs in all;
- the scheduler lost (its connection closed, or no answer for :data:`ANSWER_S` s), no worker at all for
  :data:`NO_WORKERS_S` s, or a task lost :data:`MAX_TRIES` times: the run ends. :attr:`Engine.lost`
  then holds one line naming what was lost, every item not finished is a :class:`Failed` with
  ``lost=True`` (the finished ones keep their results), and later maps run nothing. The commands write
  what finished, print that line and exit 3 (the outputs could not all be made).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

CONNECT_S = 10.0  # the hard limit on reaching a --scheduler: connection, handshake and first answer
FIRST_WORKER_S = 5.0  # how long a --scheduler is given to have its first worker
NO_WORKERS_S = 10.0  # a run with no worker for this long (the last one died, none came back) ends
ANSWER_S = 10.0  # a scheduler that does not answer a question for this long is lost
RESULT_S = 60.0  # fetching one finished task's result (a small summary) from its worker
MAX_TRIES = 3  # runs of a task whose worker keeps dying under it before it is given up as lost
CHECK_S = 0.5  # how often a running map asks the scheduler how many workers it has
POLL_S = 0.05  # how often a running map looks for finished tasks
SCHEMES = ("tcp", "tls")
MAX_ADDRESS = 300  # characters: no address is longer
STATE_ATTR = "_dclayout_state"  # the attribute of a Dask worker holding the per-thread task state
_ADDRESS = re.compile(
    r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(?P<port>[0-9]+)/?"
)


@dataclass(frozen=True)
class Failed:
    """A task that did not return: why, in one line. ``lost``: it never finished because its workers or
    the scheduler were lost (see :attr:`Engine.lost`), not because of the task itself."""

    reason: str
    lost: bool = False


class ClusterLost(Exception):
    """The cluster was lost before anything the caller could keep was finished: the message is
    :attr:`Engine.lost`, the one line naming what was lost."""


def reason(e: BaseException, where: str = "the worker") -> str:
    """The one-line reason of a task's exception: ``Type: the first line of its message``; a MemoryError
    says that ``where`` ran out of memory (its own message is most often empty)."""
    first = next((line.strip() for line in str(e).splitlines() if line.strip()), "")
    if isinstance(e, MemoryError):
        return f"MemoryError: {where} ran out of memory" + (f" ({first})" if first else "")
    return f"{type(e).__name__}: {first}" if first else type(e).__name__


def check_address(text: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of a scheduler address ``tcp://HOST:PORT`` or ``tls://HOST:PORT`` (an
    IPv6 host in brackets, ASCII digits only); an InputError saying what is wrong with any other text
    (the one line ``--scheduler: TEXT: not a Dask scheduler address: ... (allowed: ...)``)."""
    try:
        return _parse_address(text)
    except ValueError as e:
        raise _refused(
            text, f"not a Dask scheduler address: {e}", "tcp://HOST:PORT or tls://HOST:PORT"
        ) from None


def _parse_address(text: str) -> tuple[str, str, int]:
    if len(text) > MAX_ADDRESS:
        raise ValueError(f"{len(text)} characters is too long for an address (at most {MAX_ADDRESS})")
    scheme, sep, rest = text.partition("://")
    if not sep:
        raise ValueError("no scheme: the address starts with tcp:// or tls://")
    if scheme.lower() not in SCHEMES:
        raise ValueError(f"the scheme {scheme}:// is not supported here")
    m = _ADDRESS.fullmatch(rest)
    if m is None:
        raise ValueError("not HOST:PORT after the scheme")
    port = int(m["port"])
    if not 1 <= port <= 65535:
        raise ValueError(f"port {m['port']} is not between 1 and 65535")
    return scheme.lower(), m["host"].strip("[]"), port


def _refused(address: str, problem: str, allowed: str) -> Exception:
    """The InputError of a ``--scheduler`` the engine cannot run on."""
    from layout.errors import InputError, Problem

    shown = address if len(address) <= MAX_ADDRESS else f"{address[:40]}..."
    return InputError([Problem("--scheduler", shown, problem, allowed)])


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
    except Exception as e:  # MemoryError included: the worker lives on, the task failed
        return Failed(reason(e))


def _mute_filter(record: logging.LogRecord) -> bool:
    """A logging filter that lets only critical records through."""
    return record.levelno >= logging.CRITICAL


def _mute() -> list[logging.Handler]:
    """The handlers of Dask's loggers (``distributed``, ``distributed.client``, ...), each made to drop
    all but critical records until the filter is removed again."""
    muted = []
    for name in ("distributed", *logging.Logger.manager.loggerDict):
        if name.split(".")[0] in ("distributed", "tornado"):
            for handler in getattr(logging.getLogger(name), "handlers", ()):
                if _mute_filter not in handler.filters:
                    handler.addFilter(_mute_filter)
                    muted.append(handler)
    return muted


class _Late(Exception):
    """A step of connecting that did not end within its time."""


def _within(seconds: float, step: Callable[[], Any], undo: Callable[[Any], None]) -> Any:
    """``step()`` in a thread of its own, given ``seconds``: its result or its exception, else _Late.
    What a step that ends too late makes is handed to ``undo`` (e.g. a client closed)."""
    box: dict[str, Any] = {}
    lock = threading.Lock()

    def run() -> None:
        try:
            got = step()
        except BaseException as e:
            with lock:
                box["error"] = e
            return
        with lock:
            late = "late" in box
            box["value"] = got
        if late:
            undo(got)

    t = threading.Thread(target=run, name="dclayout-connect", daemon=True)
    t.start()
    t.join(seconds)
    with lock:
        if "value" in box:
            return box["value"]
        if "error" in box:
            raise box["error"]
        box["late"] = True
    raise _Late


class Engine:
    """See the module docstring. Use as a context manager (the local cluster is stopped on exit)."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None):
        self.scheduler = scheduler
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.lost: str | None = None  # what was lost, in one line, once the run's cluster is gone
        self._client: Any = None
        self._cluster: Any = None
        self._local_state: dict[str, Any] = {}
        self._scattered: dict[int, Any] = {}
        self._muted: list[logging.Handler] = []

    @property
    def local(self) -> bool:
        """True when the tasks run in this process (one worker, no scheduler)."""
        return self.scheduler is None and self.workers <= 1

    @property
    def where(self) -> str:
        """The cluster, as a line names it."""
        return f"the Dask scheduler at {self.scheduler}" if self.scheduler else "the local Dask cluster"

    def __enter__(self) -> Engine:
        if self.local:
            return self
        # the client's own log lines (a lost connection, its reconnection) would break the one line
        # a fault is said in: the faults are reported by the engine instead
        import distributed  # noqa: F401  (its loggers and their handlers, to be muted)

        self._muted = _mute()
        try:
            if self.scheduler is not None:
                self._client = self._connect(self.scheduler)
            else:
                from distributed import Client, LocalCluster

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
        except BaseException:
            self.__exit__()
            raise
        return self

    def _connect(self, address: str) -> Any:
        """A client of the scheduler at ``address``, which has a worker (module docstring: Faults)."""
        from distributed import Client

        running = "the address of a running `dask scheduler`, e.g. tcp://10.0.0.5:8786"
        _, host, port = check_address(address)
        deadline = time.monotonic() + CONNECT_S
        try:  # first a plain connection: a refused port or an unknown host is said at once
            socket.create_connection((host, port), timeout=CONNECT_S).close()
        except OSError as e:
            why = "no answer" if isinstance(e, TimeoutError) else e.strerror or type(e).__name__
            raise _refused(address, f"no Dask scheduler answers there ({why})", running) from None

        def close(client: Any) -> None:
            client.close(timeout=2)

        left = max(deadline - time.monotonic(), 1.0)
        try:
            client = _within(left, lambda: Client(address, timeout=left, set_as_default=False), close)
        except _Late:
            raise _refused(
                address, f"no Dask scheduler answered there within {CONNECT_S:g} s", running
            ) from None
        except Exception as e:
            raise _refused(address, f"no Dask scheduler answers there ({reason(e)})", running) from None
        self._client = client
        until = time.monotonic() + FIRST_WORKER_S
        while True:
            n = self._count_workers()
            if n is None:
                self.lost = None
                raise _refused(address, "the Dask scheduler was lost while connecting", running)
            if n > 0:
                return client
            if time.monotonic() > until:
                raise _refused(
                    address,
                    f"the Dask scheduler has no workers (none joined within {FIRST_WORKER_S:g} s)",
                    "a scheduler with at least one `dask worker` connected to it",
                )
            time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        self._scattered.clear()
        try:
            if client is not None:
                client.close(timeout=5)
            if cluster is not None:
                cluster.close(timeout=10)
        except Exception:  # a lost scheduler: nothing left to close there
            pass
        finally:
            for handler in self._muted:
                handler.removeFilter(_mute_filter)
            self._muted = []

    def n_workers(self) -> int:
        """Workers the tasks run on now (1 for a local engine, 0 once the cluster is lost)."""
        if self._client is None:
            return 0 if self.lost else 1
        return self._count_workers() or 0

    def _count_workers(self) -> int | None:
        """The scheduler's workers now; None, with :attr:`lost` set, when the scheduler is lost."""
        if self.lost:
            return None
        client = self._client
        if client.status != "running":
            self.lost = f"{self.where} was lost"
            return None
        try:
            info = client.sync(client.scheduler.identity, n_workers=0, callback_timeout=ANSWER_S)
        except Exception as e:
            if client.status != "running":
                self.lost = f"{self.where} was lost"
            else:
                self.lost = f"{self.where} stopped answering ({reason(e)})"
            return None
        return int(info.get("n_workers", 0))

    def _shared(self, shared: Any) -> Any:
        """``shared`` on the workers: scattered to every worker the first time (and again once its
        every copy was lost with the workers holding it), then reused."""
        got = self._scattered.get(id(shared))
        if got is None or got[0] is not shared or got[1].status != "finished":
            remote = self._client.scatter(shared, broadcast=True, hash=False, timeout=ANSWER_S)
            got = (shared, remote)
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
        task that raised or whose worker died; ``Failed(..., lost=True)`` for every item not finished
        when the cluster was lost, see :attr:`lost`). ``done(index, result)`` is called as each ends."""
        if not items:
            return []
        if self._client is None and not self.lost:
            out = []
            for i, item in enumerate(items):
                try:
                    r = fn(shared, item, self._local_state)
                except Exception as e:
                    r = Failed(reason(e, "this process"))
                out.append(r)
                if done is not None:
                    done(i, r)
            return out
        results: list[Any] = [None] * len(items)
        finished = [False] * len(items)

        def end(i: int, r: Any) -> None:
            results[i], finished[i] = r, True
            if done is not None:
                done(i, r)

        if not self.lost:
            self._run(fn, shared, items, end)
        for i in range(len(items)):
            if not finished[i]:
                end(i, Failed(self.lost or "lost", lost=True))
        return results

    def _run(
        self,
        fn: Callable[[Any, Any, dict[str, Any]], Any],
        shared: Any,
        items: Sequence[Any],
        end: Callable[[int, Any], None],
    ) -> None:
        """The tasks on the cluster: ``end(index, result)`` for each that finished or failed; returns
        when all did, or when the cluster was lost (:attr:`lost` set)."""
        from distributed import as_completed

        client = self._client
        ready = as_completed(loop=client.loop)
        pending: dict[str, tuple[int, Any]] = {}  # task key -> item index, future
        tries = [0] * len(items)
        todo = list(range(len(items)))  # to submit, or to submit again
        workers, checked, none_since = 0, -1e9, None
        given_up = 0
        while todo or pending:
            now = time.monotonic()
            if now - checked >= CHECK_S:
                checked = now
                n = self._count_workers()
                if n is None:
                    break
                workers = n
                if workers:
                    none_since = None
                elif none_since is None:
                    none_since = now
                elif now - none_since > NO_WORKERS_S:
                    self.lost = f"every worker of {self.where} was lost (none for {NO_WORKERS_S:g} s)"
                    break
            if todo and workers:
                try:
                    remote = self._shared(shared)
                    for i in todo:
                        f = client.submit(_call, fn, remote, items[i], pure=False)
                        tries[i] += 1
                        pending[f.key] = (i, f)
                        ready.add(f)
                    todo = []
                except Exception:  # the workers went while the inputs were sent: ask again
                    workers, checked = 0, -1e9
            batch = ready.next_batch(block=False)
            for f in batch:
                got = pending.pop(f.key, None)
                if got is None:
                    continue
                i = got[0]
                r = _outcome(f)
                if r is not _LOST:
                    end(i, r)
                elif tries[i] < MAX_TRIES:
                    todo.append(i)
                    checked = -1e9  # ask first: the scheduler may be the one that was lost
                else:
                    given_up += 1
                    end(i, Failed(f"lost with its worker {MAX_TRIES} times", lost=True))
            if not batch:
                time.sleep(POLL_S)
        if given_up and not self.lost:
            self.lost = f"{given_up} task(s) of {self.where} were lost with their workers {MAX_TRIES} times"
        if pending and client.status == "running":
            with contextlib.suppress(Exception):
                client.cancel([f for _, f in pending.values()])


_LOST = object()  # a task whose result is gone with its worker (or was never made): to run again


def _outcome(f: Any) -> Any:
    """The result of a finished future: the task's value or Failed; _LOST when it was lost."""
    from concurrent.futures import CancelledError

    if f.status == "error":
        e = f.exception(timeout=RESULT_S)
        if type(e).__name__ == "KilledWorker":
            n = getattr(e, "allowed_failures", None)
            times = f" {n + 1} times" if isinstance(n, int) else ""
            return Failed(
                f"KilledWorker: its worker died{times} running it (out of memory, or a crash: see the "
                "workers' logs)"
            )
        return Failed(reason(e))
    try:
        return f.result(timeout=RESULT_S)
    except (CancelledError, TimeoutError, OSError):
        return _LOST
    except Exception as e:
        if type(e).__name__ in ("CommClosedError", "FutureCancelledError"):
            return _LOST
        return Failed(reason(e))
