"""A Golomb ruler with 8 marks: all differences distinct, as short as possible."""

# EVOLVE-BLOCK-START
def marks(n):
    """2^i - 1: always a Golomb ruler, but long."""
    return [2**i - 1 for i in range(n)]
# EVOLVE-BLOCK-END


def run():
    return marks(8)
