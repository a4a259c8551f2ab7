from numkit.intervals import contains, intersection, merge, overlaps, total_length


def test_merge_overlapping():
    assert merge([(1, 3), (2, 6), (8, 10)]) == [(1, 6), (8, 10)]


def test_merge_touching_intervals():
    assert merge([(1, 2), (3, 4)]) == [(1, 4)]


def test_merge_keeps_gaps():
    assert merge([(5, 6), (1, 2)]) == [(1, 2), (5, 6)]


def test_merge_nested():
    assert merge([(1, 10), (2, 3)]) == [(1, 10)]


def test_merge_empty():
    assert merge([]) == []


def test_overlaps_true_when_sharing_an_end():
    assert overlaps((1, 3), (3, 5))


def test_overlaps_false_when_apart():
    assert not overlaps((1, 2), (4, 5))


def test_total_length_counts_points_once():
    assert total_length([(1, 3), (2, 4)]) == 4


def test_total_length_single_point():
    assert total_length([(7, 7)]) == 1


def test_contains_inclusive_ends():
    assert contains([(1, 3)], 3)
    assert contains([(1, 3)], 1)


def test_contains_outside():
    assert not contains([(1, 3), (5, 6)], 4)


def test_intersection():
    assert intersection((1, 5), (3, 9)) == (3, 5)


def test_intersection_none():
    assert intersection((1, 2), (5, 9)) is None


def test_intersection_of_touching_intervals_is_a_point():
    assert intersection((1, 3), (3, 5)) == (3, 3)


def test_merge_extends_only_the_last_interval():
    assert merge([(1, 2), (5, 9), (6, 7)]) == [(1, 2), (5, 9)]


def test_overlaps_nested_and_reversed():
    assert overlaps((1, 10), (2, 3))
    assert overlaps((2, 3), (1, 10))
    assert overlaps((3, 5), (1, 3))
