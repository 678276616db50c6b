"""The tree of campus, buildings, halls and rows."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from layout.load import Inputs

NodeData = tuple[str, str]


@dataclass
class Planned:
    """One node the tree should show: its label, data and children."""

    label: str
    data: NodeData
    expand: bool = False
    children: list[Planned] = field(default_factory=list)


def plan(inputs: Inputs, rows: list[tuple[str, str, str]], hall: str | None) -> list[Planned]:
    """The buildings of the tree, with their halls and rows; ``rows`` are (hall, row id, label) of the
    placed rows, if any (a hall without placed rows lists its user rows)."""
    s = inputs.site
    by_hall: dict[str, list[tuple[str, str]]] = {}
    for hall_key, rid, label in rows:
        by_hall.setdefault(hall_key, []).append((rid, label))
    user_rows: dict[str, list[Planned]] = {}
    for i, r in enumerate(s.row):
        user_rows.setdefault(r.hall, []).append(
            Planned(f"user row {i + 1}: {r.racks}×{r.template}", ("user_row", str(i)))
        )
    out = []
    for b in s.building:
        mw = f" · ≤{b.it_mw:g} MW" if b.it_mw else ""
        bnode = Planned(f"{b.id}{mw}", ("building", b.id), expand=True)
        for h in b.hall:
            key = f"{b.id}/{h.id}"
            placed = [Planned(label, ("row", rid)) for rid, label in by_hall.get(key, [])]
            bnode.children.append(
                Planned(
                    f"{h.id} · {h.cooling} · {h.max_rack_kw:g} kW",
                    ("hall", key),
                    expand=key == hall,
                    children=placed or user_rows.get(key, []),
                )
            )
        out.append(bnode)
    return out


def _shape(nodes: list[Planned]) -> list[object]:
    return [(n.data, _shape(n.children)) for n in nodes]


class SiteTree(Tree[NodeData]):
    """Node data is (level, key): ("site", ""), ("building", "B1"), ("hall", "B1/H1"), ("row", "B1/H1/R03")
    or ("user_row", "<index>")."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("site", data=("site", ""), id=id)
        self.show_root = True
        self.guide_depth = 2
        self._shape: list[object] | None = None  # the nodes' data as last built (see _shape)
        self._pending: tuple[list[Planned], list[object]] | None = None  # nodes to show after a refresh

    def fill(self, inputs: Inputs, rows: list[tuple[str, str, str]], hall: str | None) -> None:
        """Show the site with these rows. Labels that differ are replaced in place (no layout of the
        screen); a hall whose rows changed gets its rows again, the other nodes stay as they are (on the
        100k campus a one-hall edit adds that hall's few dozen rows, not the site's ~650 nodes), and what
        the user expanded or collapsed stays so. Another site (other buildings or halls) is built anew.

        A change of nodes is made after the next screen update (``call_after_refresh``): adding nodes
        asks for a layout of the whole screen, so the figures of a new design are painted first and the
        tree follows a frame later. The latest call wins."""
        planned = plan(inputs, rows, hall)
        shape = _shape(planned)
        if str(self.root.label) != inputs.site.site.name:
            self.root.set_label(inputs.site.site.name)
        if shape == self._shape:
            self._pending = None
            self._sync(self.root, planned)  # the same nodes: labels only
            return
        first = self._pending is None
        self._pending = (planned, shape)
        if first:
            self.call_after_refresh(self._apply_pending)

    @property
    def settled(self) -> bool:
        """The tree shows the nodes of the last fill (none are still due after a refresh)."""
        return self._pending is None

    def _apply_pending(self) -> None:
        if self._pending is None:
            return
        planned, shape = self._pending
        self._pending = None
        if self._shape is None or [p.data for p in planned] != [n.data for n in self.root.children]:
            self.clear()
            self._add(self.root, planned)
            self.root.expand()
        else:
            self._sync(self.root, planned)
        self._shape = shape

    def _sync(self, parent: TreeNode[NodeData], planned: list[Planned]) -> None:
        """Make ``parent``'s children show ``planned``: the same nodes relabelled where they are the same
        nodes (by their data), else ``parent``'s children made again."""
        if [p.data for p in planned] != [n.data for n in parent.children]:
            parent.remove_children()
            self._add(parent, planned)
            return
        for node, p in zip(parent.children, planned, strict=True):
            if str(node.label) != p.label:
                node.set_label(p.label)
            self._sync(node, p.children)

    def _add(self, parent: TreeNode[NodeData], planned: list[Planned]) -> None:
        for p in planned:
            if p.children:
                self._add(parent.add(p.label, data=p.data, expand=p.expand), p.children)
            elif p.data[0] in ("building", "hall"):
                parent.add(p.label, data=p.data, expand=p.expand)
            else:
                parent.add_leaf(p.label, data=p.data)

    def show_hall(self, key: str) -> None:
        """Put the tree's cursor on hall ``key`` (expanded, its building too): the tree follows ] and [
        and every other way the map changes hall. Moving the cursor selects nothing (no NodeSelected)."""
        if self._pending is not None:  # after the nodes due are shown (callbacks run in order)
            self.call_after_refresh(self.show_hall, key)
            return
        node = self._find(self.root, ("hall", key))
        if node is None or self.cursor_node is node:
            return
        parent = node.parent
        while parent is not None:
            parent.expand()
            parent = parent.parent
        node.expand()
        self.call_after_refresh(self.move_cursor, node)  # its line is known once the tree is laid out again

    def _find(self, parent: TreeNode[NodeData], data: NodeData) -> TreeNode[NodeData] | None:
        for node in parent.children:
            if node.data == data:
                return node
            got = self._find(node, data)
            if got is not None:
                return got
        return None
