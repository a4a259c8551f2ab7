"""codegym: Gymnasium environments for RL of code-writing models, and a GRPO-family learner.

``import codegym`` registers every env id with Gymnasium; ``gym.make("codegym:CodeGen-v0")``
does the import itself.
"""

from codegym.registration import register_envs

__version__ = "0.1.0"

register_envs()
