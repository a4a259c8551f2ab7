"""A pure-Python env for the learner's tests: spell a word; plus the checks that it behaves.

``SpellEnv`` follows docs/contract.md's info contract without a sandbox, so learner tests are fast:
reward = share of the word's characters written at the right place (1.0 exact), and a process
signal with one ``[i, i+1, 1.0]`` span per correct character. ``fail_every`` makes every
n-th step report an ``infra_error`` (reward 0) to test that learners drop those samples.
"""

from __future__ import annotations

import gymnasium as gym

from codegym.core import CodeEnv, Outcome, Task

WORDS = ["cat", "dog", "sun", "map", "cup", "pen", "box", "hat", "red", "bed", "key", "net"]
TASKS = [
    {"id": w, "word": w, "split": "test" if i >= 10 else "train", "difficulty": "easy"} for i, w in enumerate(WORDS)
]


class SpellEnv(CodeEnv):
    """Spell the word in the prompt; multi-turn when ``max_turns > 1`` (terminated when exact)."""

    #: Each turn re-grades the spelling, so an episode's score is its last reward
    #: (codegym.learner.returns: how an env the learner's table does not know says so).
    episode_return = "final"

    def __init__(self, fail_every: int = 0, **kwargs):
        kwargs.setdefault("tasks", TASKS)
        super().__init__(**kwargs)
        self.fail_every, self.steps_taken = fail_every, 0

    def _start(self, task: Task) -> str:
        return f"spell {task['word']}"

    def _grade(self, action: str) -> Outcome:
        self.steps_taken += 1
        if self.fail_every and self.steps_taken % self.fail_every == 0:
            return Outcome(0.0, infra_error="simulated sandbox crash")
        word = self.episode.task["word"]
        good = [i for i, (a, b) in enumerate(zip(action, word, strict=False)) if a == b]
        exact = action == word
        reward = 1.0 if exact else len(good) / max(len(word), len(action), 1)
        return Outcome(
            reward,
            {"match": reward},
            "correct" if exact else f"not {action!r}; try again",
            token_rewards=[(i, i + 1, 1.0) for i in good],
            terminated=exact or self.max_turns == 1,
        )

    def gold_action(self) -> str:
        return self.episode.task["word"]


if "LearnerSpell-v0" not in gym.registry:
    gym.register("LearnerSpell-v0", entry_point=SpellEnv, disable_env_checker=True)


def test_spell_env_gold_earns_full_reward_and_garbage_the_floor():
    env = SpellEnv()
    env.reset(options={"task_id": "cat"})
    assert env.step(env.gold_action())[1] == 1.0
    env.reset(options={"task_id": "cat"})
    _, reward, _, _, info = env.step("zzz")
    assert reward == 0.0 and info["token_rewards"] == []


def test_spell_env_spans_mark_the_correct_characters():
    env = SpellEnv()
    env.reset(options={"task_id": "cat"})
    _, reward, *_, info = env.step("cot")
    assert reward == 2 / 3 and info["token_rewards"] == [[0, 1, 1.0], [2, 3, 1.0]]


def test_spell_env_passes_the_gymnasium_checker():
    from gymnasium.utils.env_checker import check_env

    check_env(SpellEnv(), skip_render_check=True)
