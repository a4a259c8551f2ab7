"""Graph colouring: a greedy order."""

# EVOLVE-BLOCK-START
def colour(n, edges):
    """Every vertex its own colour: proper, and wasteful."""
    return list(range(n))
# EVOLVE-BLOCK-END


def run(graphs):
    return [colour(g["n"], g["edges"]) for g in graphs]
