import pytest

from ledger.account import Account, InsufficientFunds


def test_deposit_increases_balance():
    acct = Account("a")
    assert acct.deposit(500) == 500


def test_deposit_rejects_zero():
    with pytest.raises(ValueError):
        Account("a").deposit(0)


def test_withdraw_decreases_balance():
    acct = Account("a", balance=1000)
    assert acct.withdraw(300) == 700


def test_withdraw_may_empty_the_account():
    acct = Account("a", balance=300)
    assert acct.withdraw(300) == 0


def test_withdraw_beyond_balance_raises():
    acct = Account("a", balance=100)
    with pytest.raises(InsufficientFunds):
        acct.withdraw(101)


def test_withdraw_uses_overdraft():
    acct = Account("a", balance=100, overdraft=50)
    assert acct.withdraw(150) == -50


def test_failed_withdrawal_leaves_history_alone():
    acct = Account("a", balance=10)
    with pytest.raises(InsufficientFunds):
        acct.withdraw(20)
    assert acct.history == [] and acct.balance == 10


def test_transfer_moves_money():
    a, b = Account("a", balance=1000), Account("b")
    a.transfer(b, 400)
    assert (a.balance, b.balance) == (600, 400)


def test_statement_lines():
    acct = Account("a")
    acct.deposit(1205, "salary")
    acct.withdraw(307, "coffee")
    assert acct.statement() == ["+12.05 salary", "-3.07 coffee"]


def test_withdraw_rejects_zero_and_takes_one_cent():
    acct = Account("a", balance=10)
    with pytest.raises(ValueError):
        acct.withdraw(0)
    assert acct.withdraw(1) == 9
