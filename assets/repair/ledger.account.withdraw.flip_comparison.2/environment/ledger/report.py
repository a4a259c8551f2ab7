"""Reports over transactions given as ``(category, cents)`` pairs."""


def totals_by_category(transactions):
    """Sum of cents per category."""
    totals = {}
    for category, cents in transactions:
        totals[category] = totals.get(category, 0) + cents
    return totals


def top_categories(transactions, n=2):
    """The ``n`` categories with the largest totals, ties broken by name."""
    totals = totals_by_category(transactions)
    ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))
    return [name for name, _ in ranked[:n]]


def running_balance(start, amounts):
    """The balance after each amount, starting from ``start``."""
    balances = []
    balance = start
    for cents in amounts:
        balance += cents
        balances.append(balance)
    return balances


def largest_expense(transactions):
    """The transaction with the most negative amount, or None without expenses."""
    worst = None
    for tx in transactions:
        if tx[1] < 0 and (worst is None or tx[1] < worst[1]):
            worst = tx
    return worst
