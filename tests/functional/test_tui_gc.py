"""The TUI leaves full garbage collections out of its design runs (layout.tui.results.settle_gc) and makes
one when it has shown a design and nothing runs (DCLayoutApp.collect_garbage)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_tui import copy_site, designed, sync

from layout.tui.app import DCLayoutApp
from layout.tui.results import FULL_COLLECTIONS_NEVER


@pytest.fixture(autouse=True)
def gc_as_it_was() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.set_threshold(*threshold)
    gc.unfreeze()


@sync
async def test_no_automatic_full_collection_after_the_first_design_and_one_when_idle(tmp_path: Path) -> None:
    young = gc.get_threshold()[:2]
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    app.IDLE_COLLECT_S = 0.2
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        assert gc.get_threshold()[2] == FULL_COLLECTIONS_NEVER
        assert gc.get_threshold()[:2] == young  # the young generations are collected as before
        assert gc.get_freeze_count() > 0
        before = app.idle_collections
        await pilot.press("k", *"30", "enter")  # a design runs: the collection waits for it
        await designed(pilot)
        collected = app.idle_collections
        await asyncio.sleep(0.5)
        await pilot.pause()
        assert app.idle_collections >= collected + 1 > before
