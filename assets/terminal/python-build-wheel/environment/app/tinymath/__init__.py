"""Tiny math."""


def square(x):
    return x * x
