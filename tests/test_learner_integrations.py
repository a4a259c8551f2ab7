"""codegym envs as TRL reward functions (codegym.integrations.trl), without importing TRL."""

import pytest
from test_learner_toyenv import SpellEnv

from codegym.integrations.trl import EnvReward, prompt_dataset


def test_env_reward_grades_each_completion_on_its_own_task():
    reward = EnvReward(SpellEnv())
    assert reward(prompts=["p"] * 3, completions=["cat", "cot", "dog"], task_id=["cat", "cat", "dog"]) == [
        1.0,
        2 / 3,
        1.0,
    ]
    assert reward.last_infos[1]["token_rewards"] == [[0, 1, 1.0], [2, 3, 1.0]]
    assert reward.__name__ == "codegym_SpellEnv"


def test_env_reward_reads_the_last_message_of_conversational_completions():
    reward = EnvReward(SpellEnv())
    assert reward(completions=[[{"role": "assistant", "content": "sun"}]], task_id=["sun"]) == [1.0]


def test_env_reward_returns_none_for_infra_errors_so_trl_skips_them():
    reward = EnvReward(SpellEnv(fail_every=2))
    assert reward(completions=["cat", "cat"], task_id=["cat", "cat"]) == [1.0, None]


def test_env_reward_without_task_ids_says_how_to_build_the_dataset():
    with pytest.raises(ValueError, match="prompt_dataset"):
        EnvReward(SpellEnv())(prompts=["p"], completions=["cat"])


def test_prompt_dataset_has_one_row_per_task_of_the_split():
    rows = prompt_dataset(SpellEnv(), "test", as_hf=False)
    assert rows == [{"prompt": "spell key\n", "task_id": "key"}, {"prompt": "spell net\n", "task_id": "net"}]
    assert len(prompt_dataset(SpellEnv(), "train")) == 10
