"""The design run's thread: a daemon thread, so that quitting never waits for a design in progress.

Textual's thread workers run in asyncio's default executor, and the event loop's shutdown joins that
executor: ``q`` during a run of the 100k campus waited for the run to end (2-5 s). A daemon thread is
not joined; the app posts its outcome back as a message (post_message is thread-safe) and, when the app
has gone, nobody reads it. :func:`run_app` leaves the process at once if a run is still going
(layout.tui.app), so the interpreter's exit never tears modules down under a running pipeline.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.message import Message
from textual.worker import WorkerState


@dataclass(frozen=True)
class Outcome:
    """How a run ended, with the attributes of a Textual worker the app reads (state, result, error)."""

    state: WorkerState
    result: Any = None
    error: BaseException | None = None


class RunCancelled(Exception):
    """Raised in a run (from its progress callback) to stop it: the app is quitting."""


class RunFinished(Message):
    """A run in a daemon thread ended (posted from that thread)."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__()
        self.outcome = outcome


def run_daemon(work: Callable[[], Any], done: Callable[[Outcome], Any], name: str) -> threading.Thread:
    """Run ``work`` in a new daemon thread; ``done`` gets its Outcome there (post it as a message)."""

    def main() -> None:
        try:
            outcome = Outcome(WorkerState.SUCCESS, work())
        except BaseException as e:  # noqa: BLE001 - every failure goes back to the app, none is lost
            outcome = Outcome(WorkerState.ERROR, error=e)
        done(outcome)

    thread = threading.Thread(target=main, name=name, daemon=True)
    thread.start()
    return thread
