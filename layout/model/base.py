"""Shared model base: every model refuses unknown keys, refuses inf/nan and is immutable once validated."""

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, allow_inf_nan=False)
