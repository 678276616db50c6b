"""Issue 28: a dialog applies exactly what its field shows when Enter is pressed, never a partial
value, however fast the keys come: a burst typed with no pause from the key that opens the dialog
(as a fast typist or a paste sends it) ends in the value typed."""

from __future__ import annotations

from pathlib import Path

from test_tui import copy_site, designed, sync
from textual import events
from textual.widgets import Input

from layout.tui.app import DCLayoutApp
from layout.tui.screens.dialogs import NumberScreen


@sync
async def test_a_burst_into_the_kw_dialog_applies_what_was_typed(tmp_path: Path) -> None:
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        hall = app.hall
        assert hall is not None
        for value in ("100", "45", "120"):
            # the dialog opens with the current value; the burst clears it and types the new one, all
            # posted before the dialog is mounted
            keys = [("p", "p"), *[("backspace", None)] * 6, *[(c, c) for c in value], ("enter", "\r")]
            for key, char in keys:
                app.post_message(events.Key(key, char))
            await pilot.pause()
            await designed(pilot)
            assert app.session.hall(hall).max_rack_kw == float(value)
            assert not isinstance(app.screen, NumberScreen)


@sync
async def test_keys_before_the_dialog_has_its_focus_reach_its_field(tmp_path: Path) -> None:
    """The keys the dialog receives before its field holds the focus (the screen is pushed, its widgets
    not yet mounted) go into the field, in order, not to the screen (lost)."""
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        got: list[float | None] = []
        screen = NumberScreen("kW", 30.0, 1, 300)
        app.push_screen(screen, got.append)
        # posted at once, as a terminal's driver posts a burst, before the screen is mounted
        for key, char in (("backspace", None), ("backspace", None), ("7", "7"), ("5", "5")):
            app.post_message(events.Key(key, char))
        await pilot.pause()
        await pilot.pause()
        assert screen.query_one(Input).value == "75"
        await pilot.press("enter")
        await pilot.pause()
        assert got == [75.0]


@sync
async def test_letters_that_open_dialogs_are_text_inside_a_dialog(tmp_path: Path) -> None:
    """p, i, a, t, g, o, w and / open dialogs from the map (priority bindings, so a burst after them
    reaches the dialog); typed into the find dialog they are its text, and open nothing."""
    from layout.tui.screens.find import FindScreen

    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        keys = [("slash", "/"), *[(c, c) for c in "piatgow/"]]
        for key, char in keys:
            app.post_message(events.Key(key, char))
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, FindScreen) and len(app.screen_stack) == 2
        assert app.screen.query_one(Input).value == "piatgow/"
        await pilot.press("escape")
        assert len(app.screen_stack) == 1


@sync
async def test_a_toast_never_covers_the_status_line_at_80_columns(tmp_path: Path) -> None:
    """Issue 28: at 80 columns a toast after an edit hid the status line's cost and violations."""
    from textual.widgets import Static
    from textual.widgets._toast import Toast

    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await designed(pilot)
        for i in range(3):
            app.notify(f"a long message number {i} that wraps over more than one line at 80 columns")
        await pilot.pause(0.2)
        status = app.query_one("#status", Static).region
        toasts = [t.region for t in app.screen.query(Toast)]
        assert toasts and all(not t.overlaps(status) for t in toasts), (status, toasts)
        assert all(t.bottom <= status.y for t in toasts)


@sync
async def test_a_burst_into_an_open_dialog_keeps_its_order(tmp_path: Path) -> None:
    """Seen in tmux: with the dialog open and its field focused, "backspace backspace 3 7 enter" sent at
    once inserted 3 and 7, then ran the two backspaces (Input's bindings run once a key has bubbled
    past it) and submitted an empty field. Every key now acts in the order typed."""
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        hall = app.hall
        assert hall is not None
        await pilot.press("p")
        await pilot.pause()
        field = app.screen.query_one(Input)
        assert field.has_focus and field.value == "45"
        for key, char in (("end", None), ("backspace", None), ("backspace", None), ("3", "3"), ("7", "7")):
            app.post_message(events.Key(key, char))
        await pilot.pause()
        assert field.value == "37"
        for key, char in (("left", None), ("backspace", None), ("2", "2"), ("enter", "\r")):
            app.post_message(events.Key(key, char))  # the cursor moves left of 7 first: 27
        await pilot.pause()
        await designed(pilot)
        assert app.session.hall(hall).max_rack_kw == 27.0
