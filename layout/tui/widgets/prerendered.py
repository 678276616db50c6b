"""A widget that shows a rich renderable rendered once per width.

Textual's Static renders a rich renderable (tables, groups) again for every layout that measures its height
and again to paint it. The inspector's tables cost ~100 ms of UI-thread time per edit that way on the 100k
campus, time taken from the design worker through the GIL. Here the renderable becomes strips once per
width: layout counts them, paint copies them, and an update that keeps the height needs no layout at all.
With ``keep_height``, content that gets shorter is padded with blank lines to the tallest shown at this
width, so the inspector following the map cursor (a rack, then bare floor, then a rack) does not make
the screen lay itself out again on every move (~3 ms of the 100k campus's cursor move each time).
"""

from __future__ import annotations

from rich.console import RenderableType
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget


class Prerendered(Widget):
    DEFAULT_CSS = """
    Prerendered {
        height: auto;
    }
    """

    def __init__(
        self, content: RenderableType = "", *, id: str | None = None, keep_height: bool = False
    ) -> None:
        super().__init__(id=id)
        self._content: RenderableType = content
        self._strips: tuple[int, list[Strip]] | None = None  # (width, lines at that width)
        self._keep_height = keep_height
        self._tallest: tuple[int, int] = (0, 0)  # (width, most lines shown at that width)

    @property
    def content(self) -> RenderableType:
        """What is shown (as given to update)."""
        return self._content

    def update(self, content: RenderableType) -> None:
        width = self.size.width
        before = len(self.lines(width)) if width and self._strips is not None else None
        self._content, self._strips = content, None
        after = len(self.lines(width)) if width else None
        self.refresh(layout=before is None or before != after)

    def lines(self, width: int) -> list[Strip]:
        """The content as lines of ``width`` cells (rendered on the first call for that width)."""
        if self._strips is None or self._strips[0] != width:
            options = self.app.console_options.update_width(max(width, 1)).update(highlight=False)
            rendered = self.app.console.render_lines(
                self._content, options, style=self.visual_style.rich_style, pad=True
            )
            strips = [Strip(line, width) for line in rendered]
            if self._keep_height:
                tallest = self._tallest[1] if self._tallest[0] == width else 0
                blank = Strip.blank(width, self.visual_style.rich_style)
                strips += [blank] * (tallest - len(strips))
                self._tallest = (width, len(strips))
            self._strips = (width, strips)
        return self._strips[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render_line(self, y: int) -> Strip:
        lines = self.lines(self.size.width)
        return lines[y] if y < len(lines) else Strip.blank(self.size.width, self.visual_style.rich_style)
