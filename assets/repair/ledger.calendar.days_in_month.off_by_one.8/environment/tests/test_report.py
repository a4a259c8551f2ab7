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
