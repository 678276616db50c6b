"""Textual's footer, made again only when the keys it shows change, showing the keys of the mode the app
is in.

Textual's :class:`~textual.widgets.Footer` composes all its key widgets again whenever the screen's
bindings are updated: on every focus change and every time a dialog closes, even when the keys are the
same. Mounting ~20 key widgets asks for a layout of the whole screen; after a one-key edit dialog
(``p``, ``o``) that layout ran in the UI thread while the design worker needed the interpreter.

The keys shown follow the mode: what does not work now is hidden by the check_action of its widget or
of the app (while a row is moved, only the map's keys and f1 work); what works but is not worth the room
in this mode, the app's ``footer_hidden()`` names (by action); a dialog has a footer of its own, with
the keys its focused field or list takes itself (enter) from the screen's ``FOOTER_HINTS``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen


def hidden_actions(screen: Screen[Any]) -> frozenset[str]:
    """The actions the app leaves out of the footer in its mode (``footer_hidden``), else none."""
    hidden = getattr(screen.app, "footer_hidden", None)
    return hidden() if callable(hidden) else frozenset()


def hints(screen: Screen[Any]) -> tuple[tuple[str, str], ...]:
    """(key, what) the screen's focused widget handles itself (a dialog's enter), shown first."""
    return tuple(getattr(screen, "FOOTER_HINTS", ()))


def shown_bindings(screen: Screen[Any]) -> list[tuple[Binding, bool, str]]:
    """What a footer shows of ``screen``'s bindings, one per action: (binding, enabled, tooltip)."""
    hidden = hidden_actions(screen)
    by_action: defaultdict[str, list[tuple[Binding, bool, str]]] = defaultdict(list)
    for _, b, enabled, tooltip in screen.active_bindings.values():
        if b.show and b.action not in hidden:
            by_action[b.action].append((b, enabled, tooltip))
    return [bindings[0] for bindings in by_action.values()]


def shown_keys(screen: Screen[Any]) -> tuple[tuple[Any, ...], ...]:
    """What a footer shows of ``screen``: the hints, then key, description, action, enabled, tooltip,
    group of each binding shown."""
    return hints(screen) + tuple(
        (b.key, b.key_display, b.description, b.action, enabled, tooltip, b.group)
        for b, enabled, tooltip in shown_bindings(screen)
    )


class SteadyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that skips composing when the keys shown are the same, and
    shows only the keys of the app's mode (no binding groups: the app uses none)."""

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
        if not self._bindings_ready:
            return
        screen = self.screen
        self._composed = shown_keys(screen)
        for key, what in hints(screen):  # a click on one presses its key, as on any FooterKey
            yield FooterKey(key, self.app.get_key_display(Binding(key, "")), what, "").data_bind(
                compact=Footer.compact
            )
        for binding, enabled, tooltip in shown_bindings(screen):
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            ).data_bind(compact=Footer.compact)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            active = screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
            if active is not None:
                _, binding, enabled, _tooltip = active
                yield FooterKey(
                    binding.key,
                    self.app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    classes="-command-palette",
                    disabled=not enabled,
                    tooltip=binding.tooltip or binding.description,
                )


class DialogFooter(SteadyFooter):
    """A dialog's footer: its keys (escape, and the FOOTER_HINTS of its field or list), in place of the
    map's, which do not work while it is open."""

    def __init__(self) -> None:
        super().__init__(compact=True, show_command_palette=False)
