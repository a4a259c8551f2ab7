from ledger.report import largest_expense, running_balance, top_categories, totals_by_category

TX = [("food", -1200), ("rent", -50000), ("food", -800), ("salary", 300000), ("fun", -2000)]


def test_totals_by_category():
    assert totals_by_category(TX)["food"] == -2000


def test_totals_by_category_single():
    assert totals_by_category([("x", 5)]) == {"x": 5}


def test_top_categories():
    assert top_categories(TX, 2) == ["salary", "food"]


def test_top_categories_ties_by_name():
    assert top_categories([("b", 1), ("a", 1), ("c", 0)], 2) == ["a", "b"]


def test_running_balance():
    assert running_balance(100, [50, -30, 10]) == [150, 120, 130]


def test_running_balance_empty():
    assert running_balance(5, []) == []


def test_largest_expense():
    assert largest_expense(TX) == ("rent", -50000)


def test_largest_expense_none():
    assert largest_expense([("salary", 10)]) is None


def test_largest_expense_ignores_zero_amounts():
    assert largest_expense([("a", 0), ("b", 5)]) is None


def test_largest_expense_keeps_the_first_of_equal_expenses():
    assert largest_expense([("a", -5), ("b", -5)]) == ("a", -5)


def test_top_categories_default_is_two():
    assert top_categories([("a", 5), ("b", 4), ("c", 3), ("d", 2)]) == ["a", "b"]
