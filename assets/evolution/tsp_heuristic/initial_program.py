"""Travelling salesman on fixed instances: a construction heuristic."""
import math

# EVOLVE-BLOCK-START
def tour(cities):
    """Visit the cities in the order given."""
    return list(range(len(cities)))
# EVOLVE-BLOCK-END


def run(instances):
    return [tour(c) for c in instances]
