"""Textual's footer, made again only when the keys it shows change.

Textual's :class:`~textual.widgets.Footer` composes all its key widgets again whenever the screen's
bindings are updated: on every focus change and every time a dialog closes, even when the keys are the
same. Mounting ~20 key widgets asks for a layout of the whole screen; after a one-key edit dialog
(``k``, ``o``) that layout ran in the UI thread while the design worker needed the interpreter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen


def shown_keys(screen: Screen[Any]) -> tuple[tuple[Any, ...], ...]:
    """What a footer shows of ``screen``'s bindings: key, description, action, enabled, tooltip, group."""
    return tuple(
        (b.key, b.key_display, b.description, b.action, enabled, tooltip, b.group)
        for (_, b, enabled, tooltip) in screen.active_bindings.values()
        if b.show
    )


class SteadyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that skips composing when the keys shown are the same."""

    _composed: tuple[tuple[Any, ...], ...] | None = None  # shown_keys when last composed

    def bindings_changed(self, screen: Screen[Any]) -> None:
        if (
            self._bindings_ready
            and self._composed is not None
            and self.is_attached
            and screen is self.screen
            and shown_keys(screen) == self._composed
        ):
            return
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._composed = shown_keys(self.screen)
        yield from super().compose()
