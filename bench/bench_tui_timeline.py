"""Where a TUI edit's time goes on the 100k campus, as a timeline: which thread runs what, from the key that
applies the edit until its figures are on screen.

Each line is one event: when it started (ms after the key), how long it took (wall), its CPU time and its
thread: the UI thread's ``apply_edit``, screen layouts (``_refresh_layout``) and renders
(``_compositor_refresh``), ``show_result``; the design thread's stage marks and its whole ``compute``.
Both threads share the interpreter (the GIL): CPU the UI thread spends while the design runs is wall time
the design loses. Compare the design thread's ``compute`` here with the same edit in a bare Session
(``bench/bench_design.py --one-hall``).

    .venv/bin/python bench/bench_tui_timeline.py [SITE]
"""

from __future__ import annotations

import asyncio
import functools
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_tui import ROOT, TimedApp, wait_for_design
from textual.screen import Screen

from layout.tui import app as app_mod
from layout.tui import session as session_mod

EVENTS: list[tuple[str, str, float, float, float]] = []  # (what, thread, start, wall s, CPU s)


def timed(owner: Any, name: str) -> None:
    """Record every call of ``owner.name`` as an event."""
    f = getattr(owner, name)

    @functools.wraps(f)
    def g(*args: Any, **kwargs: Any) -> Any:
        t, c = time.perf_counter(), time.thread_time()
        try:
            return f(*args, **kwargs)
        finally:
            wall, cpu = time.perf_counter() - t, time.thread_time() - c
            EVENTS.append((name, threading.current_thread().name, t, wall, cpu))

    setattr(owner, name, g)


def marked(compute: Callable[..., Any]) -> Callable[..., Any]:
    """session.compute with each stage's start recorded as an event."""

    def run(inputs: Any, text: str, progress: Any = None, *args: Any, **kwargs: Any) -> Any:
        def mark(stage: str) -> None:
            EVENTS.append((f"stage {stage}", threading.current_thread().name, time.perf_counter(), 0.0, 0.0))
            if progress is not None:
                progress(stage)

        return compute(inputs, text, mark, *args, **kwargs)

    return run


async def main(site: str) -> None:
    timed(Screen, "_refresh_layout")
    timed(Screen, "_compositor_refresh")
    timed(app_mod.DCLayoutApp, "apply_edit")
    timed(app_mod.DCLayoutApp, "show_result")
    timed(session_mod.Session, "compute")
    session_mod.compute = marked(session_mod.compute)  # type: ignore[assignment]
    app = TimedApp(Path(site))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_design(app, 1)
        edits = [
            ("hall max kW 50 -> 45", ["p", *"45"]),
            ("hall max kW 45 -> 40", ["p", *"40"]),
            ("next hall max kW 50 -> 40", ["right_square_bracket", "p", *"40"]),
        ]
        for label, keys in edits:
            await pilot.press(*keys)
            await pilot.pause()
            await asyncio.sleep(0.3)  # the dialog drawn and the app idle
            before = app.designs_shown
            EVENTS.clear()
            t, cpu = time.perf_counter(), time.process_time()
            await pilot.press("enter")
            done = await wait_for_design(app, before + 1)
            print(
                f"{label}: figures back in {done - t:.3f} s, {time.process_time() - cpu:.3f} s CPU (both threads)"
            )
            for name, thread, start, wall, used in sorted(EVENTS, key=lambda e: e[2]):
                print(
                    f"  {(start - t) * 1000:7.1f} ms  +{wall * 1000:6.1f} ms  CPU {used * 1000:6.1f} ms  {thread:<10} {name}"
                )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "sites" / "campus-100k.toml")))
