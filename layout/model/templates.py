"""Rack templates (rack_templates/*.toml): footprint, cooling, what the rack holds and at which RU."""

from typing import Annotated, Literal

from pydantic import Field

from layout.model.base import Id, Strict, Text

RackKind = Literal["gpu", "network", "spine", "core", "storage", "management", "cdu"]
Cooling = Literal["air", "rear-door", "liquid"]


class Slot(Strict):
    device: str = Field(description='catalog id, or "leaf"/"switch" for the cluster\'s fabric switch')
    ru: list[Annotated[int, Field(ge=1, le=60)]] = Field(min_length=1, description="lowest RU of each device")
    optional: bool = False


class RackTemplate(Strict):
    id: Id
    name: Text
    kind: RackKind
    width_mm: float = Field(gt=300, le=1500)
    depth_mm: float = Field(gt=300, le=2000)
    height_ru: int = Field(gt=0, le=60)
    cooling: Cooling
    weight_kg_empty: float = Field(ge=0, le=3000)
    # leveller feet (or castors) it stands on, at its footprint's corners: its point loads on the floor
    feet: int = Field(default=4, ge=1, le=16)
    pdu_kw: float = Field(gt=0, le=500)
    # rack PDUs one side of the rack has room for (zero-U channels, or power-shelf whips): more is a violation
    pdu_positions_per_side: int = Field(default=2, ge=1, le=8)
    slot: list[Slot] = Field(default_factory=list)

    @property
    def width_m(self) -> float:
        return self.width_mm / 1000.0

    @property
    def depth_m(self) -> float:
        return self.depth_mm / 1000.0

    def server_slots(self, server_ids: set[str]) -> list[int]:
        """RU positions of servers in this template."""
        return [r for s in self.slot if s.device in server_ids for r in s.ru]

    def server_id(self, server_ids: set[str]) -> str | None:
        for s in self.slot:
            if s.device in server_ids:
                return s.device
        return None

    def switch_slots(self) -> list[int]:
        """RU positions for fabric switches ("switch" slots of network racks)."""
        return [r for s in self.slot if s.device == "switch" for r in s.ru]

    def node_slots(self) -> list[int]:
        """RU positions for storage / CPU nodes ("node" slots of storage and management racks)."""
        return [r for s in self.slot if s.device == "node" for r in s.ru]

    def leaf_slot(self) -> int | None:
        """RU of the middle-of-rack leaf, if the template has one."""
        for s in self.slot:
            if s.device == "leaf":
                return s.ru[0]
        return None
