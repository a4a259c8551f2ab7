"""A small env built on CodeEnv for the core tests: write ``add(a, b)``; graded in a sandbox."""

from __future__ import annotations

import json

from codegym.core import CodeEnv, Outcome, Task, extract_code
from codegym.sandbox import Sandbox, create

TASKS = [
    {
        "id": "add",
        "difficulty": "easy",
        "fn": "add",
        "cases": [[[1, 2], 3], [[-1, 1], 0], [[5, 5], 10]],
        "gold": "def add(a, b):\n    return a + b\n",
    },
    {
        "id": "mul",
        "difficulty": "easy",
        "fn": "mul",
        "cases": [[[2, 3], 6], [[0, 9], 0]],
        "gold": "def mul(a, b):\n    return a * b\n",
    },
    {
        "id": "neg",
        "difficulty": "hard",
        "split": "test",
        "fn": "neg",
        "cases": [[[2], -2]],
        "gold": "def neg(a):\n    return -a\n",
    },
]

RUNNER = """
import json, sys
cases = json.loads(sys.argv[1])
ns = {}
exec(open("solution.py").read(), ns)
print(json.dumps([ns[sys.argv[2]](*args) == want for args, want in cases]))
"""


class ToyEnv(CodeEnv):
    """Reward = share of cases passed; the spans reward the whole code with that share."""

    def __init__(self, **kwargs):
        kwargs.setdefault("tasks", TASKS)
        super().__init__(**kwargs)
        self._sandbox: Sandbox | None = None

    def _start(self, task: Task) -> str:
        return f"Write a Python function {task['fn']}."

    def _grade(self, action: str) -> Outcome:
        task = self.episode.task
        code = extract_code(action, "python")
        if code is None:
            return Outcome(0.0, {"pass_rate": 0.0}, "no code found")
        if self._sandbox is None:
            self._sandbox = create(**self.sandbox_spec, timeout_s=10)
        self._sandbox.write_file("solution.py", code.code)
        res = self._sandbox.run(["python3", "-c", RUNNER, json.dumps(task["cases"]), task["fn"]])
        try:
            passed = json.loads(res.stdout)
        except ValueError:
            return Outcome(0.0, {"pass_rate": 0.0}, res.stderr[-500:], verdict={"error": "crashed"})
        rate = sum(passed) / len(passed)
        return Outcome(
            rate,
            {"pass_rate": rate},
            f"{sum(passed)}/{len(passed)} passed",
            token_rewards=[(code.start, code.end, rate)],
            verdict={"passed": passed},
        )

    def gold_action(self) -> str:
        return f"```python\n{self.episode.task['gold']}```"

    def _close_resources(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None

    def _live_attributes(self):
        return ("_sandbox",)
