from textkit.case import camel_to_snake, slugify, snake_to_camel, title_case


def test_slugify_joins_words_with_dashes():
    assert slugify("Hello, World!") == "hello-world"


def test_slugify_custom_separator():
    assert slugify("a b  c", sep="_") == "a_b_c"


def test_slugify_keeps_digits():
    assert slugify("Top 10 Tips") == "top-10-tips"


def test_snake_to_camel_lower_first():
    assert snake_to_camel("make_it_work") == "makeItWork"


def test_snake_to_camel_upper_first():
    assert snake_to_camel("make_it_work", upper_first=True) == "MakeItWork"


def test_snake_to_camel_skips_empty_parts():
    assert snake_to_camel("__a__b") == "aB"


def test_snake_to_camel_empty():
    assert snake_to_camel("___") == ""


def test_camel_to_snake():
    assert camel_to_snake("makeItWork") == "make_it_work"


def test_camel_to_snake_leading_capital():
    assert camel_to_snake("HttpServer") == "http_server"


def test_title_case_keeps_minor_words_lower():
    assert title_case("the lord of the rings") == "The Lord of the Rings"


def test_title_case_lowers_the_rest_of_words():
    assert title_case("hELLO wORLD") == "Hello World"


def test_camel_to_snake_second_letter_capital():
    assert camel_to_snake("aB") == "a_b"


def test_title_case_minor_second_word():
    assert title_case("war and peace") == "War and Peace"
