"""The TUI's status line (layout/tui/status.py): figures as every output writes them, their moves since
the design before, and the lines the README quotes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from layout import design
from layout.load import load_site
from layout.tui.status import behind, delta, figures_line

ROOT = Path(__file__).resolve().parents[2]


def test_a_delta_is_written_as_its_figure_and_only_when_it_shows() -> None:
    assert delta("racks", 47, 79) == "▲ 32"
    assert delta("cost_total_usd", 49.05e6, 47.85e6) == "▼ $1.20 M"
    assert delta("it_mw", 1.431, 1.433) == ""  # 1.43 MW either way: no move to show
    assert delta("racks", None, 3) == ""


def test_the_readme_quotes_what_the_status_line_shows(tmp_path: Path, design_of: Any) -> None:
    before = design_of("superpod-4su")
    text = (ROOT / "sites" / "superpod-4su.toml").read_text()
    site = tmp_path / "superpod-4su.toml"
    site.write_text(re.sub(r"max_rack_kw\s*=\s*[\d.]+", "max_rack_kw = 30", text, count=1))
    after = design.run(load_site(site))
    line = figures_line(after.figures, before.figures).plain
    assert "racks ▲ 32" in line and "GPUs ▲" not in line
    readme = (ROOT / "README.md").read_text()
    assert f"\n{line}\n" in readme
    compact = figures_line(before.figures, compact=True).plain
    assert compact.endswith(" viol.") and len(compact) < 78
    assert " ".join(compact.split()) in " ".join(readme.replace("`", "").split())
    dimmed = behind("designing…", before.figures)
    assert dimmed.plain == "designing… · " + figures_line(before.figures).plain


def test_violations_worst_first_keep_their_order_within_a_kind() -> None:
    from layout.violations import Violation, worst_first

    vs = [
        Violation("tray_fill", "T1", "a"),
        Violation("something_new", "x", "b"),
        Violation("aisle", "B1/H1", "c"),
        Violation("feed", "B1/H1/UPS-A1", "d"),
        Violation("tray_fill", "T2", "e"),
        Violation("aisle", "B1/H2", "f"),
    ]
    assert [vs[i].message for i in worst_first(vs)] == ["c", "f", "d", "a", "e", "b"]
