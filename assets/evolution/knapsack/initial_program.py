"""0/1 knapsack: choose items under a capacity."""

# EVOLVE-BLOCK-START
def choose(weights, values, capacity):
    """Take items in order while they fit."""
    taken, load = [], 0
    for i in range(len(weights)):
        if load + weights[i] <= capacity:
            taken.append(i)
            load += weights[i]
    return taken
# EVOLVE-BLOCK-END


def run(instances):
    return [choose(k["weights"], k["values"], k["capacity"]) for k in instances]
