from textkit.stats import average_word_length, longest_word, top_words, word_count, words


def test_words_lowercases_and_splits_on_punctuation():
    assert words("Hello, world! It's me.") == ["hello", "world", "it's", "me"]


def test_word_count():
    assert word_count("one two  three") == 3


def test_word_count_empty():
    assert word_count("") == 0


def test_top_words_orders_by_count():
    assert top_words("b a b c b a", 2) == [("b", 3), ("a", 2)]


def test_top_words_breaks_ties_alphabetically():
    assert top_words("z y x", 2) == [("x", 1), ("y", 1)]


def test_longest_word_first_on_ties():
    assert longest_word("cat dog horse mouse") == "horse"


def test_longest_word_none_without_words():
    assert longest_word("123 !!") is None


def test_average_word_length():
    assert average_word_length("ab abcd") == 3.0


def test_average_word_length_empty():
    assert average_word_length("") == 0.0
