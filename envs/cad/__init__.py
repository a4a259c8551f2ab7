"""TextToCAD-v0: cadquery code for a described part, graded by its geometry (see :mod:`.env`)."""

from .env import TextToCADEnv

__all__ = ["TextToCADEnv"]
