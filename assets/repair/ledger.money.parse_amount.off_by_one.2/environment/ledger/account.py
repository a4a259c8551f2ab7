"""An account with a balance and a history of transactions."""


class InsufficientFunds(Exception):
    """A withdrawal larger than the balance plus the overdraft limit."""


class Account:
    """A named account; amounts are integer cents."""

    def __init__(self, name, balance=0, overdraft=0):
        self.name = name
        self.balance = balance
        self.overdraft = overdraft
        self.history = []

    def deposit(self, cents, memo=""):
        """Add ``cents`` (must be positive)."""
        if cents <= 0:
            raise ValueError("deposit must be positive")
        self.balance += cents
        self.history.append(("deposit", cents, memo))
        return self.balance

    def withdraw(self, cents, memo=""):
        """Take ``cents`` out; the balance may go down to ``-overdraft``."""
        if cents <= 0:
            raise ValueError("withdrawal must be positive")
        if self.balance - cents < -self.overdraft:
            raise InsufficientFunds(f"{self.name}: cannot withdraw {cents}")
        self.balance -= cents
        self.history.append(("withdraw", cents, memo))
        return self.balance

    def transfer(self, other, cents, memo="transfer"):
        """Move ``cents`` from this account to ``other``."""
        self.withdraw(cents, memo)
        other.deposit(cents, memo)

    def statement(self):
        """Lines ``"+12.00 memo"`` / ``"-3.00 memo"`` for each transaction in order."""
        lines = []
        for kind, cents, memo in self.history:
            sign = "+" if kind == "deposit" else "-"
            lines.append(f"{sign}{cents // 100}.{cents % 100:02d} {memo}".rstrip())
        return lines
