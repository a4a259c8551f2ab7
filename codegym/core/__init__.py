"""The shared core: text spaces, the CodeEnv base class, outcomes and info, task sets."""

from .env import CodeEnv, EnvSnapshot, Episode
from .extract import Extracted, extract_code
from .info import Outcome, make_info, validate_info
from .spaces import UnicodeText
from .tasks import Task, TaskSet

__all__ = [
    "CodeEnv",
    "Episode",
    "EnvSnapshot",
    "Extracted",
    "Outcome",
    "Task",
    "TaskSet",
    "UnicodeText",
    "extract_code",
    "make_info",
    "validate_info",
]
