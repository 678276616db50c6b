"""Benchmark the terminal UI on a site (default: the 100k campus), headless at 120 x 40:

- first screen: from the start of this script (imports included) until the hall map is drawn;
- the first design's figures on screen;
- for a few edits, from the key press until the recomputed figures are on screen, split into the
  design pipeline (per stage), the BOM, and redrawing the UI; an undo or redo back to a site text the
  app designed a moment ago shows that design again without running the pipeline (marked "recent");
- a cursor move: a key press through the app, until the map cursor, the inspector and the screen are
  updated; through Pilot's ``press`` (which sleeps at least 2 x 20 ms a key waiting for the process to
  be idle) and from the key event to the screen update composed after it (the figure a user sees).

Edits report wall time and the CPU time of the process (both threads), which the load of other
programs on a shared machine does not inflate. An edit made in a dialog (``k 40``) is timed from its
Enter, with the dialog drawn and the app idle first (as when a person has typed the value).

Figures (100k campus, 2-core machine, idle; key to figures, wall; six runs):

| edit | 2026-12-03 start (31d1001) | after this round's last session |
|---|---|---|
| hall max kW 50 -> 45 (moves no rack) | 0.19 s | 0.09-0.13 s |
| hall max kW 45 -> 40 (B1/H1 re-laid, its building's other hall kept) | 0.57 s (0.54-0.81) | 0.31-0.44 s, median 0.37 |
| cooling -> liquid | 0.41 s | 0.13-0.18 s |
| next hall max kW 50 -> 40 (B1/H2) | 0.55 s | 0.32-0.38 s, median 0.35 |
| rail -> middle-of-rack (every hall re-laid) | 0.99 s | 0.94-1.2 s |
| cursor move, key to frame | 10 ms median | 13-16 ms median, 22 ms worst |

    .venv/bin/python bench/bench_tui.py [SITE]
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import asyncio  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from textual import events  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from layout.tui.app import DCLayoutApp  # noqa: E402
from layout.tui.results import Result  # noqa: E402
from layout.tui.session import compute  # noqa: E402
from layout.tui.widgets.hall_map import HallMap  # noqa: E402


class TimedApp(DCLayoutApp):
    """The app, recording how long each redraw of a finished design takes."""

    redraw_s: list[float] = []
    shown_at: list[float] = []
    shown: list[Result] = []
    again: list[bool] = []  # a design shown before (from the app's recent designs: no pipeline run)
    shown_event = asyncio.Event()

    frames: list[float] = []  # when each screen update was composed (headless: not written anywhere)
    frame_event = asyncio.Event()

    def _display(self, screen: Any, renderable: Any) -> None:
        super()._display(screen, renderable)
        if renderable is not None:
            self.frames.append(time.perf_counter())
            self.frame_event.set()

    inspected: list[float] = []  # when the inspector was last updated (after a cursor move)

    def update_inspector(self) -> None:
        super().update_inspector()
        self.inspected.append(time.perf_counter())

    def show_result(self, result: Result) -> None:
        t = time.perf_counter()
        super().show_result(result)
        self.shown_at.append(time.perf_counter())
        self.redraw_s.append(self.shown_at[-1] - t)
        self.again.append(any(r is result for r in self.shown))
        self.shown.append(result)
        self.shown_event.set()


async def wait_for_design(app: TimedApp, shown: int) -> float:
    """When the ``shown``-th design was on screen (waits on an event: no polling that would compete with
    the worker thread for the interpreter)."""
    while app.designs_shown < shown:
        app.shown_event.clear()
        await app.shown_event.wait()
    return app.shown_at[shown - 1]


async def key_to_frame(app: TimedApp, pilot: Any, key: str, moves: int) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds from a key event sent to the app (as a terminal would) until the screen
    update composed after it has moved the map cursor and updated the inspector, for ``moves`` keys,
    the app idle before each."""
    wall: list[float] = []
    cpu: list[float] = []
    driver = app._driver
    assert driver is not None
    for _ in range(moves):
        await pilot.pause()
        app.frame_event.clear()
        inspected = len(app.inspected)
        t, c = time.perf_counter(), time.process_time()
        driver.send_message(events.Key(key, None))
        while len(app.inspected) == inspected or app.frames[-1] < app.inspected[inspected]:
            await app.frame_event.wait()
            app.frame_event.clear()
        frame = next(f for f in app.frames if f > app.inspected[inspected])
        wall.append((frame - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return wall, cpu


def stage_times(app: DCLayoutApp) -> dict[str, float]:
    """The pipeline once more outside the UI, timed per stage (progress marks when each one starts)."""
    assert app.editor is not None
    marks: list[tuple[str, float]] = []
    compute(
        app.editor.inputs,
        app.editor.text,
        lambda stage: marks.append((stage, time.perf_counter())),
        app.session.memo,  # as the app's own runs
    )
    end = time.perf_counter()
    return {name: (marks[i + 1][1] if i + 1 < len(marks) else end) - t for i, (name, t) in enumerate(marks)}


async def main(site: str) -> None:
    app = TimedApp(Path(site))
    async with app.run_test(size=(120, 40)) as pilot:
        hall_map = app.query_one(HallMap)
        while hall_map.grid is None:
            await asyncio.sleep(0.01)
        first_screen = time.perf_counter() - STARTED
        designed = await wait_for_design(app, 1)
        assert app.result is not None
        print(
            f"{site}: {app.result.summary['gpus']:,} GPUs, {len(app.result.racks):,} racks, "
            f"{len(app.result.design.cabling.links):,} links; {os.cpu_count()} cores"
        )
        print(f"first screen (hall map drawn, imports included): {first_screen:.2f} s")
        print(
            f"first design on screen:                           {designed - STARTED:.2f} s "
            f"(pipeline + BOM {app.result.seconds:.2f} s, redraw {app.redraw_s[-1]:.2f} s)"
        )

        moves = 20
        t, cpu = time.perf_counter(), time.thread_time()
        for _ in range(moves):  # through the app as a key press: cursor, inspector, the screen painted
            await pilot.press("right")
        await pilot.pause()
        per_key_ms = (time.perf_counter() - t) / moves * 1000
        per_key_cpu = (time.thread_time() - cpu) / moves * 1000
        print(
            f"cursor move through Pilot's press:                {per_key_ms:.0f} ms per key ({per_key_cpu:.0f} ms CPU; "
            "Pilot sleeps >= 2 x 20 ms per key until the process is idle)"
        )
        wall, cpu_ms = await key_to_frame(app, pilot, "left", moves)
        print(
            f"cursor move, key to frame:                        {statistics.median(wall):.0f} ms median, "
            f"{max(wall):.0f} ms worst ({statistics.median(cpu_ms):.0f} ms CPU median)"
        )

        # (what, keys that open and fill a dialog, the key that applies the edit: timed from there)
        edits: list[tuple[str, list[str], str]] = [
            ("hall max kW 50 -> 45", ["p", *"45"], "enter"),
            ("rail -> middle-of-rack", [], "d"),
            ("undo (back to rail)", [], "ctrl+z"),
            ("hall max kW 45 -> 40", ["p", *"40"], "enter"),
            ("cooling -> liquid", ["o", "down"], "enter"),
            # the next hall (B1/H2 on the campus, with room to spare): its racks re-laid, its building only
            ("next hall max kW 50 -> 40", ["right_square_bracket", "p", *"40"], "enter"),
        ]
        for label, prepare, key in edits:
            await pilot.press(*prepare)
            if prepare:  # the dialog drawn and the app idle, as when a person has typed the value
                await pilot.pause()
                await asyncio.sleep(0.3)
            before = app.designs_shown
            t, cpu, all_cpu = time.perf_counter(), time.thread_time(), time.process_time()
            await pilot.press(key)
            done = await wait_for_design(app, before + 1)
            ui_cpu = time.thread_time() - cpu
            used = time.process_time() - all_cpu  # both threads: the UI and the design worker
            how = "recent design, no run" if app.again[-1] else f"pipeline + BOM {app.result.seconds:.2f} s"
            print(
                f"edit {label:<24} figures back in {done - t:.2f} s, {used:.2f} s CPU ({how}, "
                f"redraw {app.redraw_s[-1]:.2f} s, UI thread {ui_cpu:.2f} s CPU)"
            )
        stages = stage_times(app)
        print(
            "where the time goes (the UI's pipeline alone, once more; the fabric is reused when the cluster "
            "did not change): "
            + ", ".join(f"{k} {v:.2f} s" for k, v in stages.items())
            + f"; total {sum(stages.values()):.2f} s"
        )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "sites" / "campus-100k.toml")))
