"""Property: ``step`` of every env, given hostile text, earns a reward and never blames the infrastructure.

Hypothesis builds actions from pieces a model can write that have broken graders before
(NUL bytes, lone surrogates, fences of every kind, shell metacharacters, paths out,
escape sequences, raster data, process kills), inside and outside each env's code fence.
For every one: no exception escapes ``step``, ``info`` has no ``infra_error``, the reward
is within [floor, full]. Then the gold action of the same task still earns full reward.

The default run draws a seeded sample (``CODEGYM_FUZZ_EXAMPLES``, default 12 per env);
raise it for a longer hunt.
"""

from __future__ import annotations

import os

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import codegym  # noqa: F401 - registers the ids
from codegym.play import code_env
from codegym.registration import ENVS

EXAMPLES = int(os.environ.get("CODEGYM_FUZZ_EXAMPLES", "12"))

PIECES = [
    "\0",
    "\ud800",
    "\udfff",
    "\x1b[2J",
    "\u202e",
    "\r\n",
    "```",
    "```python\n",
    "```diff\n",
    "```bash\n",
    "```svg\n",
    "```html\n",
    "```latex\n",
    "submit",
    "\nsubmit\n",
    "$(id)",
    "`id`",
    "'; rm -rf /sandbox; '",
    "--bind / /hostroot",
    "../../../../etc/passwd",
    "/proc/1/fd/0",
    "<svg xmlns='http://www.w3.org/2000/svg'>",
    "</svg>",
    "<image href='data:image/png;base64,iVBORw0KGgo='/>",
    "import os\n",
    "os.kill(os.getppid(), 9)\n",
    "raise SystemExit(0)\n",
    "def f(*a):\n    return a\n",
    "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
    '{"tool": "create", "path": ".codegym", "file_text": "x"}',
    "\\begin{tikzpicture}",
    "\\end{tikzpicture}",
    "\\input{/etc/passwd}",
    "result = cq.Workplane('XY').box(1, 1, 1)\n",
]

FENCES = ["```python\n", "```diff\n", "```bash\n", "```svg\n", "```html\n", "```jsx\n", "```latex\n", "```\n"]
TEXT = st.lists(st.one_of(st.text(max_size=40), st.sampled_from(PIECES)), max_size=10).map("".join)
# Half the actions inside a fence, so that graders get past "no code found" and run them.
HOSTILE = st.one_of(TEXT, st.builds(lambda fence, body: f"{fence}{body}\n```", st.sampled_from(FENCES), TEXT))


@pytest.mark.parametrize("env_id", [e.id for e in ENVS])
def test_hostile_text_never_escapes_step_nor_blames_the_infrastructure(env_id: str) -> None:
    env = gym.make(env_id, sandbox="local")
    base = code_env(env)
    task_id = sorted(base.tasks.ids)[0]
    try:

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(action=HOSTILE)
        def hostile_step(action: str) -> None:
            env.reset(seed=0, options={"task_id": task_id})
            _, reward, _, _, info = env.step(action)
            assert "infra_error" not in info, (action, info["infra_error"])
            assert base.floor_reward <= reward <= base.full_reward, (action, reward)

        hostile_step()
        env.reset(seed=0, options={"task_id": task_id})
        _, reward, _, _, info = env.step(base.gold_action())
        assert reward >= base.full_reward - 0.01, info
    finally:
        env.close()
