"""How the report writes figures and text: thousands separators, money, percentages, energy, durations,
and text made safe for the standard Helvetica (WinAnsi) encoding, with and without Paragraph markup.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from reportlab.platypus import (
    Paragraph,
)

from layout.export.pdf.theme import STYLES


def fmt_int(n: float) -> str:
    return f"{round(n):,}"


def fmt_num(x: float, digits: int = 1) -> str:
    return f"{x:,.{digits}f}"


def fmt_usd(x: float) -> str:
    return f"${x:,.0f}"


def fmt_price(x: float) -> str:
    """Dollars, with cents only when there are any (so BOM lines add up to their subtotals exactly)."""
    cents = round(x * 100)
    return f"${cents // 100:,}" if cents % 100 == 0 else f"${cents / 100:,.2f}"


def fmt_pct(x: float, digits: int = 1) -> str:
    return f"{100.0 * x:.{digits}f} %"


_ASCII = str.maketrans(
    {"≤": "<=", "≥": ">=", "→": "->", "←": "<-", "≈": "~", "…": "...", "−": "-", "✓": "ok"}
)


def safe(text: object) -> str:
    """Text fit for a Paragraph in the standard Helvetica (WinAnsi) encoding, markup escaped."""
    s = str(text).translate(_ASCII)
    s = s.encode("cp1252", errors="replace").decode("cp1252")
    return escape(s)


def para(text: object, style: str = "body") -> Paragraph:
    return Paragraph(safe(text), STYLES[style])


def safe_plain(text: object) -> str:
    """Text for canvas.drawString (no markup)."""
    return str(text).translate(_ASCII).encode("cp1252", errors="replace").decode("cp1252")


def short_id(key: str) -> str:
    """Last part of a hierarchical id: B1/H1/R03 -> R03."""
    return key.rsplit("/", 1)[-1]
