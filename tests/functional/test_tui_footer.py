"""The footer is composed again only when the keys it shows change (layout/tui/footer.py):
closing a dialog or moving the focus with the same keys shown mounts no key widgets (and so asks for no
layout of the screen), while a key that becomes disabled is shown so at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_tui import copy_site, designed, sync
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from layout.tui.app import DCLayoutApp
from layout.tui.footer import SteadyFooter, shown_keys


class Counting(SteadyFooter):
    composed = 0

    def compose(self) -> ComposeResult:
        type(self).composed += 1
        yield from super().compose()


class Toy(App[None]):
    BINDINGS = [Binding("x", "thing", "thing"), Binding("y", "other", "other")]
    allowed = True

    def compose(self) -> ComposeResult:
        yield Static("body")
        yield Counting()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "thing" and not self.allowed else True


def _keys(app: App[Any]) -> list[tuple[str, bool]]:
    return [(k.key, k.has_class("-disabled")) for k in app.query(FooterKey)]


@sync
async def test_the_footer_is_composed_again_only_when_its_keys_change() -> None:
    Counting.composed = 0
    app = Toy()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        first = Counting.composed
        assert first >= 1 and ("x", False) in _keys(app)
        for _ in range(3):  # the same keys: nothing composed
            app.screen.refresh_bindings()
            await pilot.pause()
        assert Counting.composed == first
        app.allowed = False  # x is now disabled: the footer shows it so
        app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()  # the new key widgets are mounted after the compose
        assert Counting.composed == first + 1
        assert ("x", True) in _keys(app) and ("y", False) in _keys(app)
        assert app.query_one(Counting)._composed == shown_keys(app.screen)


@sync
async def test_closing_an_edit_dialog_composes_no_footer(tmp_path: Path) -> None:
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        footer = app.query_one(SteadyFooter)
        before = [(k.key, k.description) for k in app.query(FooterKey)]
        mounted = set(map(id, app.query(FooterKey)))
        await pilot.press("p")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert set(map(id, app.query(FooterKey))) == mounted  # the very same key widgets
        assert [(k.key, k.description) for k in app.query(FooterKey)] == before
        assert footer._composed == shown_keys(app.screen)
