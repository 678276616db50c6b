"""The tree of campus, buildings, halls and rows."""

from __future__ import annotations

from typing import Any

from textual.widgets import Tree

from layout.load import Inputs


class SiteTree(Tree[tuple[str, str]]):
    """Node data is (level, key): ("site", ""), ("building", "B1"), ("hall", "B1/H1"), ("row", "B1/H1/R03")
    or ("user_row", "<index>")."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("site", data=("site", ""), id=id)
        self.show_root = True
        self.guide_depth = 2

    def fill(self, inputs: Inputs, rows: list[tuple[str, str, str]], hall: str | None) -> None:
        """Rebuild from the inputs; ``rows`` are (hall, row id, label) of the placed rows, if any."""
        self.clear()
        s = inputs.site
        self.root.set_label(s.site.name)
        by_hall: dict[str, list[tuple[str, str]]] = {}
        for hall_key, rid, label in rows:
            by_hall.setdefault(hall_key, []).append((rid, label))
        user_rows: dict[str, list[tuple[int, Any]]] = {}
        for i, r in enumerate(s.row):
            user_rows.setdefault(r.hall, []).append((i, r))
        for b in s.building:
            mw = f" · ≤{b.it_mw:g} MW" if b.it_mw else ""
            bnode = self.root.add(f"{b.id}{mw}", data=("building", b.id), expand=True)
            for h in b.hall:
                key = f"{b.id}/{h.id}"
                hnode = bnode.add(
                    f"{h.id} · {h.cooling} · {h.max_rack_kw:g} kW", data=("hall", key), expand=key == hall
                )
                for rid, label in by_hall.get(key, []):
                    hnode.add_leaf(label, data=("row", rid))
                if not by_hall.get(key):
                    for i, r in user_rows.get(key, []):
                        hnode.add_leaf(f"user row {i + 1}: {r.racks}×{r.template}", data=("user_row", str(i)))
        self.root.expand()
