"""layout.kept.Kept: the last few values by key, compared with ==."""

from __future__ import annotations

from layout.kept import Kept


def test_keeps_the_newest_and_drops_the_oldest() -> None:
    kept: Kept[dict[str, int], str] = Kept(3)  # unhashable keys, as the site and catalog models are
    for i in range(4):
        kept.put({"n": i}, f"v{i}")
    assert kept.known_keys() == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert kept.get({"n": 0}) is None and kept.get({"n": 2}) == "v2"


def test_putting_a_known_key_again_makes_it_the_newest() -> None:
    kept: Kept[int, str] = Kept(2)
    kept.put(1, "a")
    kept.put(2, "b")
    kept.put(1, "a2")  # 1 is now the newest: the next one drops 2
    kept.put(3, "c")
    assert kept.known_keys() == [1, 3] and kept.get(1) == "a2"
    kept.clear()
    assert len(kept) == 0 and kept.get(3) is None


def test_a_store_of_one_keeps_only_the_last() -> None:
    kept: Kept[int, int] = Kept(1)
    kept.put(1, 10)
    kept.put(2, 20)
    assert kept.known_keys() == [2]
