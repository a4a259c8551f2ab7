"""The program database as OpenEvolve keeps it: islands, a MAP-Elites grid per island, an archive.

Each program lives on one island; each island keeps a MAP-Elites grid over two features
(OpenEvolve's defaults, ``complexity`` = length of the code, ``diversity`` = how far its
text is from the island's best), one elite per cell; the archive keeps the best programs
overall. Everything here is plain data, so that episode snapshots deep-copy it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

BINS = 10


@dataclass
class Program:
    """One evaluated program."""

    id: int
    code: str
    fitness: float
    island: int
    parent: int | None
    generation: int
    ok: bool
    cell: tuple[int, int] = (0, 0)
    modules: dict[str, str] = field(default_factory=dict)


@dataclass
class Database:
    """Islands, per-island MAP-Elites grids and an elite archive.

    Attributes:
        num_islands: islands (OpenEvolve's ``database.num_islands``).
        archive_size: elites kept overall (``database.archive_size``).
        programs: every program, by id.
        islands: program ids per island.
        grids: per island, ``"i,j"`` -> id of the cell's elite.
        archive: ids of the best programs overall.
        base_length: the initial program's length (the complexity axis's scale).

    """

    num_islands: int = 5
    archive_size: int = 20
    programs: dict[int, Program] = field(default_factory=dict)
    islands: list[list[int]] = field(default_factory=list)
    grids: list[dict[str, int]] = field(default_factory=list)
    archive: list[int] = field(default_factory=list)
    base_length: int = 1

    def __post_init__(self) -> None:
        if not self.islands:
            self.islands = [[] for _ in range(self.num_islands)]
            self.grids = [{} for _ in range(self.num_islands)]

    # ------------------------------------------------------------------ reading
    @property
    def best(self) -> Program:
        """The fittest program (the earliest among ties)."""
        return max(self.programs.values(), key=lambda p: (p.fitness, -p.id))

    def island_best(self, island: int) -> Program | None:
        """The fittest program of one island, or None when it is empty."""
        ids = self.islands[island]
        return max((self.programs[i] for i in ids), key=lambda p: (p.fitness, -p.id)) if ids else None

    def features(self, code: str, island: int) -> tuple[int, int]:
        """The MAP-Elites cell of ``code`` on ``island``: (complexity bin, diversity bin)."""
        complexity = min(BINS - 1, int(len(code) / (2 * self.base_length) * BINS))
        ref = self.island_best(island)
        distance = 0.0 if ref is None else 1.0 - difflib.SequenceMatcher(None, ref.code, code, autojunk=False).ratio()
        return complexity, min(BINS - 1, int(distance * BINS * 2))

    def diversity(self) -> float:
        """Share of occupied MAP-Elites cells over all islands' grids (0..1)."""
        return sum(len(g) for g in self.grids) / (self.num_islands * BINS * BINS)

    # ------------------------------------------------------------------ writing
    def add(self, program: Program) -> None:
        """Insert ``program`` on its island: a cell keeps its fitter elite; the archive its best."""
        program.cell = self.features(program.code, program.island)
        self.programs[program.id] = program
        self.islands[program.island].append(program.id)
        key = f"{program.cell[0]},{program.cell[1]}"
        grid = self.grids[program.island]
        if key not in grid or self.programs[grid[key]].fitness < program.fitness:
            grid[key] = program.id
        self.archive = sorted({*self.archive, program.id}, key=lambda i: (-self.programs[i].fitness, i))
        del self.archive[self.archive_size :]

    def migrate(self, island: int) -> int | None:
        """Copy ``island``'s best to the next island of the ring (OpenEvolve's migration); its id."""
        best = self.island_best(island)
        target = (island + 1) % self.num_islands
        if best is None or best.id in self.islands[target]:
            return None
        self.islands[target].append(best.id)
        return best.id

    # ------------------------------------------------------------------ parent selection
    def select(self, rule: str, island: int, rng: np.random.Generator) -> Program:
        """A parent by ``rule`` (``best``, ``tournament``, ``random``, ``island_best``, ``diverse``)."""
        pool = self.islands[island] or list(self.programs)
        if rule == "best":
            return self.best
        if rule == "island_best":
            return self.island_best(island) or self.best
        if rule == "random":
            return self.programs[pool[int(rng.integers(len(pool)))]]
        if rule == "diverse":
            cells = sorted(self.grids[island].values()) or pool
            return self.programs[cells[int(rng.integers(len(cells)))]]
        picks = [self.programs[pool[int(rng.integers(len(pool)))]] for _ in range(3)]
        return max(picks, key=lambda p: (p.fitness, -p.id))

    def inspirations(self, memory: str, exclude: int, k: int = 3) -> list[Program]:
        """Past programs shown with the parent: ``top`` fittest, ``recent``, or ``failures``."""
        others = [p for p in self.programs.values() if p.id != exclude]
        if memory == "top":
            return sorted(others, key=lambda p: (-p.fitness, p.id))[:k]
        if memory == "recent":
            return sorted(others, key=lambda p: -p.id)[:k]
        if memory == "failures":
            worse = [p for p in others if p.parent is not None and not p.ok]
            return sorted(worse, key=lambda p: -p.id)[:k]
        return []

    def summary(self) -> dict[str, Any]:
        """Counts for the verdict."""
        return {
            "population": len(self.programs),
            "islands": [len(i) for i in self.islands],
            "cells": [len(g) for g in self.grids],
            "archive": len(self.archive),
        }
