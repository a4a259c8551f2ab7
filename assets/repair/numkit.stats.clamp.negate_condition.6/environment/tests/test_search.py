from numkit.search import count, find, insert_sorted, lower_bound, upper_bound

DATA = [1, 3, 3, 3, 7, 9]


def test_lower_bound_first_of_equal():
    assert lower_bound(DATA, 3) == 1


def test_lower_bound_past_end():
    assert lower_bound(DATA, 10) == 6


def test_lower_bound_before_start():
    assert lower_bound(DATA, 0) == 0


def test_upper_bound_after_equal():
    assert upper_bound(DATA, 3) == 4


def test_upper_bound_missing_value():
    assert upper_bound(DATA, 5) == 4


def test_find_present():
    assert find(DATA, 7) == 4


def test_find_absent():
    assert find(DATA, 4) == -1


def test_find_in_empty():
    assert find([], 1) == -1


def test_count_duplicates():
    assert count(DATA, 3) == 3


def test_count_absent():
    assert count(DATA, 8) == 0


def test_insert_sorted_middle():
    assert insert_sorted([1, 5, 9], 6) == [1, 5, 6, 9]


def test_insert_sorted_ends():
    assert insert_sorted([2, 3], 1) == [1, 2, 3]
    assert insert_sorted([2, 3], 4) == [2, 3, 4]
