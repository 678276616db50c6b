"""The status line: the design's headline figures (layout/figures.py, as every output writes them) and,
after a design, how each moved since the design before it (``▲ $1.20 M``, ``▼ 340``); while a design
runs or after one failed, the last figures stay, dimmed, behind what is happening."""

from __future__ import annotations

from rich.text import Text

from layout.figures import Figures, text

# what the status line always carries, in this order, with the words around each figure
STATUS_KEYS = ("gpus", "racks", "it_mw", "cost_total_usd", "optics_total", "violations")
WORDS = {
    "gpus": ("", " GPUs"),
    "racks": ("", " racks"),
    "it_mw": ("IT ", ""),
    "cost_total_usd": ("capital ", ""),
    "optics_total": ("", " optics"),
    "violations": ("", " violation(s)"),
}
# the same at under 110 columns, where the words above do not fit 80
COMPACT = {**WORDS, "it_mw": ("", ""), "cost_total_usd": ("", ""), "violations": ("", " viol.")}
NARROW_COLUMNS = 110
UP, DOWN = "▲", "▼"


def delta(key: str, before: object, now: object) -> str:
    """How the figure ``key`` moved, as its figure writes it (``▲ $1.20 M``); "" when it did not move
    (or moved less than the figure shows)."""
    try:
        diff = float(now) - float(before)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    if diff != diff or text(key, abs(diff)) == text(key, 0.0):
        return ""
    return f"{UP if diff > 0 else DOWN} {text(key, abs(diff))}"


def figures_line(figures: Figures, before: Figures | None = None, compact: bool = False) -> Text:
    """The figures of :data:`STATUS_KEYS`, each followed by its move since ``before`` (bold);
    ``compact``: with fewer words (:data:`COMPACT`), for narrow terminals."""
    parts = []
    for key in STATUS_KEYS:
        prefix, suffix = (COMPACT if compact else WORDS)[key]
        part = Text(f"{prefix}{figures[key].text}{suffix}")
        moved = delta(key, before.value(key), figures.value(key)) if before is not None else ""
        if moved:
            part.append(f" {moved}", style="bold")
        parts.append(part)
    return Text(" · ").join(parts)


def behind(what: str, figures: Figures | None, compact: bool = False) -> Text:
    """``what`` is happening (designing, exporting, a failure); the last figures follow, dimmed."""
    line = Text(what, style="bold")
    if figures is not None:
        line.append(" · ")
        line.append_text(figures_line(figures, compact=compact))
        line.stylize("dim", len(what) + 3)
    return line
