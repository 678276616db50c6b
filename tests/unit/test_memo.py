"""The design memo (layout/memo.py): tokens by content, bounded stores, and every store the pipeline
uses has its own limit."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from layout import design
from layout.load import load_site
from layout.memo import LIMITS, Memo, Scope, Token, token

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Pair:
    name: str
    values: np.ndarray


def test_equal_content_gives_equal_tokens_and_any_change_another() -> None:
    a = Pair("x", np.arange(5.0))
    assert token(a) == token(Pair("x", np.arange(5.0)))
    assert token(a) != token(Pair("x", np.arange(5.0) + 1e-12))
    assert token(a) != token(Pair("y", np.arange(5.0)))
    assert token(np.arange(3, dtype=np.int64)) != token(np.arange(3, dtype=np.int32))  # dtype counts
    assert token([1, 2]) != token([[1, 2]])  # nesting counts
    assert token({"a": 1, "b": 2}) == token({"b": 2, "a": 1})  # mappings by key, not insertion order
    df = pd.DataFrame({"id": ["r1", "r2"], "kw": [1.0, 2.0]})
    assert token(df) == token(df.copy())
    assert token(df) != token(df.assign(kw=[1.0, 2.5]))
    assert token(df) != token(df.assign(id=["r1", "r3"]))


def test_a_pydantic_model_is_tokened_by_its_content() -> None:
    site = load_site(ROOT / "sites" / "superpod-4su.toml").site
    again = load_site(ROOT / "sites" / "superpod-4su.toml").site
    assert site is not again and token(site) == token(again)
    hall = site.building[0].hall[0]
    assert token(hall) != token(hall.model_copy(update={"max_rack_kw": hall.max_rack_kw + 1}))


def test_a_value_without_content_is_refused() -> None:
    with pytest.raises(TypeError, match="no content token"):
        token(object())


def test_a_token_is_fed_as_it_is() -> None:
    t = Token(token("a"))
    assert token(t) != token(str(t))  # a stage's token is not a string that happens to be equal


def test_a_store_keeps_its_newest_limit_values() -> None:
    memo = Memo({"s": 2})
    made: list[str] = []

    def make(k: str) -> str:
        made.append(k)
        return k.upper()

    for k in ["a", "b", "a", "c", "b"]:
        assert memo.take("s", k, lambda k=k: make(k)) == k.upper()
    # a (made), b (made), a (kept; now newest), c (made; b goes), b (made again)
    assert made == ["a", "b", "c", "b"]
    assert memo.sizes() == {"s": 2}


def test_a_scopes_pieces_are_kept_apart_by_the_upstream_token() -> None:
    memo = Memo()
    one, two = Scope(memo, Token("fabric one")), Scope(memo, Token("fabric two"))
    assert one.take("p", (1,), lambda: "one") == "one"
    assert two.take("p", (1,), lambda: "two") == "two"
    assert one.take("p", (1,), lambda: "again") == "one"


def test_every_store_the_pipeline_fills_has_its_own_limit() -> None:
    """A store left to the default limit thrashes on a campus (8 halls, 4 kept): each is named here."""
    memo = Memo()
    design.run(load_site(ROOT / "sites" / "seed002-32k.toml"), memo=memo)
    assert set(memo.sizes()) <= set(LIMITS), set(memo.sizes()) - set(LIMITS)
    assert {"fabric", "place", "cable", "power", "bom", "reliability", "place.hall_grid"} <= set(memo.sizes())
