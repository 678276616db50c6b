"""Above every sheet's title block: the sign-off (drawn, checked, approved), the issue status, and the
revision table, all from the site file's ``[site]`` (``drawn_by``, ``checked_by``, ``approved_by``,
``status``, ``[[site.revisions]]``). The table reads upwards from the title block, oldest first, as
revisions are added on paper; with no ``[[site.revisions]]`` it holds the site's one revision."""

from __future__ import annotations

from ezdxf.enums import TextEntityAlignment
from ezdxf.layouts import Paperspace

from layout.export.dxf.annotate import fit_height, note
from layout.export.dxf.blocks import TITLE_W
from layout.model.site import Revision, SiteInfo

SIGN_H = 10.0  # the sign-off band
REV_ROW_H = 5.0  # each row of the revision table, and its header
REV_ROWS_MAX = 6  # revisions listed; older ones are counted in the top row
# (caption, x from the block's right edge) of each sign-off cell, and of each revision table column
SIGN_CELLS = (("DRAWN", -180.0), ("CHECKED", -145.0), ("APPROVED", -110.0), ("STATUS", -75.0))
REV_COLUMNS = (("REV", -180.0), ("DATE", -165.0), ("DESCRIPTION", -140.0), ("BY", -22.0))


def revision_rows(site: SiteInfo) -> list[Revision]:
    """The revisions the table lists, oldest first: the site file's, else its current revision."""
    if site.revisions:
        return list(site.revisions)
    return [Revision(rev=site.revision, date=site.date)]


def issue_height(site: SiteInfo) -> float:
    """Paper millimetres the sign-off band and the revision table take above the title block."""
    rows = min(len(revision_rows(site)), REV_ROWS_MAX) + (len(revision_rows(site)) > REV_ROWS_MAX)
    return SIGN_H + REV_ROW_H * (1 + rows)


def draw_issue(layout: Paperspace, site: SiteInfo, right: float, bottom: float) -> float:
    """The sign-off band and the revision table, ``right`` and ``bottom`` their lower right corner on
    the sheet (the title block's upper right); returns their height."""
    ttl = {"layer": "G-TTLB"}
    x0 = right - TITLE_W
    top = bottom + issue_height(site)
    layout.add_lwpolyline(
        [(x0, bottom), (right, bottom), (right, top), (x0, top)], close=True, dxfattribs=ttl
    )
    values = (site.drawn_by, site.checked_by, site.approved_by, site.status)
    edges = [x for _, x in SIGN_CELLS[1:]] + [0.0]
    for (caption, x), value, end in zip(SIGN_CELLS, values, edges, strict=True):
        if x > -TITLE_W:
            layout.add_line((right + x, bottom), (right + x, bottom + SIGN_H), dxfattribs=ttl)
        note(layout, caption, (right + x + 1.2, bottom + SIGN_H - 1.2), 1.8, "G-TTLB",
             TextEntityAlignment.TOP_LEFT)  # fmt: skip
        if value:
            h = fit_height(value, 3.5 if caption == "STATUS" else 3.0, end - x - 2.4)
            note(layout, value, (right + x + 1.2, bottom + 1.5), h, "G-TTLB", TextEntityAlignment.BOTTOM_LEFT)
    y = bottom + SIGN_H
    layout.add_line((x0, y), (right, y), dxfattribs=ttl)
    revs = revision_rows(site)
    shown = revs[-REV_ROWS_MAX:]
    lines: list[tuple[str, str, str, str]] = [("REV", "DATE", "DESCRIPTION", "BY")]
    lines += [(r.rev, r.date, r.description, r.by) for r in shown]
    if len(revs) > len(shown):
        lines.append(("", "", f"... and {len(revs) - len(shown)} earlier revisions (site file)", ""))
    widths = [b - a for (_, a), (_, b) in zip(REV_COLUMNS, [*REV_COLUMNS[1:], ("", 0.0)], strict=True)]
    for k, cells in enumerate(lines):
        for (_, x), text, width in zip(REV_COLUMNS, cells, widths, strict=True):
            if text:
                h = fit_height(text, 1.8 if k == 0 else 2.5, width - 2.0)
                note(layout, text, (right + x + 1.0, y + REV_ROW_H / 2), h, "G-TTLB",
                     TextEntityAlignment.MIDDLE_LEFT)  # fmt: skip
        y += REV_ROW_H
        layout.add_line((x0, y), (right, y), dxfattribs=ttl)
    for _, x in REV_COLUMNS[1:]:
        layout.add_line((right + x, bottom + SIGN_H), (right + x, top), dxfattribs=ttl)
    return top - bottom
