"""codegym.learner: a GRPO-family learner with token-level rewards for any Gymnasium text env.

Entry points: :class:`~codegym.learner.config.LearnerConfig` (every knob, documented),
:class:`~codegym.learner.trainer.Trainer` (Python API), ``codegym train``
(:func:`codegym.learner.cli.main`) and :func:`codegym.learner.demo.run_demo`.
The learner never imports a codegym family: it consumes any env through Gymnasium.
"""

from codegym.learner.config import LearnerConfig

__all__ = ["LearnerConfig", "Trainer"]


def __getattr__(name: str):
    # Trainer pulls in torch and transformers; import it only when asked for.
    if name == "Trainer":
        from codegym.learner.trainer import Trainer

        return Trainer
    raise AttributeError(name)
