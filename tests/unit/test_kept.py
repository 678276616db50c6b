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


def test_take_is_get_then_put_and_makes_only_what_is_not_kept() -> None:
    """take(key, make): the kept value (make not called) or make()'s; the order and limit as get then
    put leave them, on a hit, a miss, and a miss in a full store."""
    made: list[int] = []

    def make(n: int) -> str:
        made.append(n)
        return f"new{n}"

    take: Kept[int, str] = Kept(3)
    both: Kept[int, str] = Kept(3)
    for n in (1, 2, 1, 3, 4, 2, 4, 4):
        got = take.take(n, lambda n=n: make(n))
        known = both.get(n)
        value = known if known is not None else f"new{n}"
        both.put(n, value)
        assert got == value and take.known_keys() == both.known_keys(), n
    assert made == [1, 2, 3, 4, 2]  # 1, 4 and 4 again were kept; 2 was dropped by 4, made again


def test_a_copy_keeps_the_same_values_and_goes_its_own_way() -> None:
    kept: Kept[int, str] = Kept(2)
    kept.put(1, "a")
    kept.put(2, "b")
    other = kept.copy()
    other.put(3, "c")
    assert kept.known_keys() == [1, 2] and other.known_keys() == [2, 3] and other.get(2) is kept.get(2)
