import pytest

from numkit.stats import clamp, mean, median, moving_average, percentile, variance


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_mean_empty_raises():
    with pytest.raises(ValueError):
        mean([])


def test_median_odd():
    assert median([5, 1, 3]) == 3


def test_median_even():
    assert median([4, 1, 3, 2]) == 2.5


def test_variance_population():
    assert variance([2, 4, 4, 4, 5, 5, 7, 9]) == 4.0


def test_variance_sample():
    assert variance([1, 2, 3, 4], sample=True) == pytest.approx(5 / 3)


def test_variance_sample_needs_two():
    with pytest.raises(ValueError):
        variance([1], sample=True)


def test_clamp_inside():
    assert clamp(5, 1, 10) == 5


def test_clamp_low_and_high():
    assert clamp(-3, 0, 10) == 0
    assert clamp(30, 0, 10) == 10


def test_clamp_rejects_bad_bounds():
    with pytest.raises(ValueError):
        clamp(1, 5, 2)


def test_moving_average():
    assert moving_average([1, 2, 3, 4, 5], 2) == [1.5, 2.5, 3.5, 4.5]


def test_moving_average_window_of_all():
    assert moving_average([2, 4], 2) == [3.0]


def test_moving_average_bad_window():
    with pytest.raises(ValueError):
        moving_average([1], 0)


def test_percentile_nearest_rank():
    assert percentile([15, 20, 35, 40, 50], 40) == 20


def test_percentile_extremes():
    assert percentile([3, 1, 2], 0) == 1
    assert percentile([3, 1, 2], 100) == 3


def test_clamp_to_a_single_point():
    assert clamp(5, 3, 3) == 3


def test_median_of_five_and_of_two():
    assert median([5, 1, 4, 2, 3]) == 3
    assert median([1, 3]) == 2


def test_moving_average_window_of_one():
    assert moving_average([1, 2], 1) == [1.0, 2.0]


def test_variance_sample_of_two():
    assert variance([1, 2], sample=True) == 0.5


def test_variance_population_of_one():
    assert variance([5]) == 0.0
