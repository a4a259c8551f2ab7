"""Online bin packing: a priority function over the open bins."""

CAPACITY = 150


# EVOLVE-BLOCK-START
def priority(item, remaining):
    """Worst fit: the emptiest bin wins."""
    return [float(r) for r in remaining]
# EVOLVE-BLOCK-END


def pack(items):
    remaining, where = [], []
    for item in items:
        scores = priority(item, remaining)
        fits = [i for i in range(len(remaining)) if remaining[i] >= item]
        if fits:
            b = max(fits, key=lambda i: (scores[i], -i))
        else:
            remaining.append(CAPACITY)
            b = len(remaining) - 1
        remaining[b] -= item
        where.append(b)
    return where


def run(instances):
    return [pack(items) for items in instances]
