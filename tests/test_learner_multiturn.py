"""Multi-turn credit, pass rates, recovery chains and prompt cutting, on hand-computed cases.

A scripted policy stands in for the model (it replaces the sampler, so every action is
known) and SpellEnv stands in for a family: reward = share of the word's letters in place,
1.0 when exact, and the episode ends when exact. The returns below are worked out by hand.
"""

import types
import warnings
from dataclasses import replace

import gymnasium as gym
import pytest
import torch
from codegym.learner import rollout as rollout_mod
from codegym.learner.config import LearnerConfig
from codegym.learner.loss import advantages, make_batch
from codegym.learner.returns import FAMILY_RETURNS, episode_return, resolve_rule
from codegym.learner.rollout import PromptCutWarning, PromptTooLongError, RolloutSettings, fit_prompt, rollout
from codegym.learner.trainer import Trainer, pass_rate
from codegym.wrappers.recovery import RecoveryWrapper
from test_learner_toyenv import SpellEnv


def small(tmp_path, **kw):
    fields = dict(
        tiny_layers=1,
        tiny_hidden=32,
        tiny_heads=2,
        vocab_size=300,
        num_generations=3,
        tasks_per_step=1,
        max_new_tokens=8,
        steps=1,
        eval_tasks=2,
        progress=False,
        env_workers=3,  # multi-turn episodes run len(envs) at a time: a group's 3 side by side
        out_dir=str(tmp_path / "run"),
    )
    fields.update(kw)
    return LearnerConfig(**fields)


def script(monkeypatch, tokenizer, policy):
    """Replace the sampler: each row writes ``policy(context text, rank)``.

    ``rank`` tells apart rows whose contexts are equal in one call (the G attempts of a
    group start from the same prompt): the k-th such row gets rank k.
    """

    def fake_generate(model, contexts, max_new_tokens, eos_id, *args, **kwargs):
        seen: dict[tuple[int, ...], int] = {}
        seqs = []
        for c in contexts:
            rank = seen.get(tuple(c), 0)
            seen[tuple(c)] = rank + 1
            text = policy(tokenizer.decode(c, skip_special_tokens=True), rank)
            seqs.append(list(tokenizer(text, add_special_tokens=False)["input_ids"]) + [eos_id])
        return seqs, [[0.0] * len(s) for s in seqs], [True] * len(seqs)

    monkeypatch.setattr(rollout_mod, "generate", fake_generate)


def plan(*answers_by_rank):
    """A policy: rank k answers ``answers_by_rank[k][turn]``, the turn read off the context."""

    def policy(context, rank):
        turn = context.count("try again")
        return answers_by_rank[rank][turn]

    return policy


# ------------------------------------------------------------------ the returns, by hand
def test_fail_then_fix_no_longer_beats_solving_at_once_on_a_final_reward_env(tmp_path, monkeypatch):
    tr = Trainer(small(tmp_path, max_turns=2, episode_return="final", turn_penalty=0.1), env=SpellEnv(max_turns=2))
    script(monkeypatch, tr.tokenizer, plan(["cot", "cat"], ["cat"]))
    fix, once = rollout(tr.model, tr.tokenizer, tr.envs, [("cat", 0), ("cat", 0)], tr.settings)
    # Summed (before): 2/3 + 1 = 1.667 > 1.0. Final minus 0.1 per extra turn: 0.9 < 1.0.
    assert [t.reward for t in fix.turns] == [2 / 3, 1.0] and [t.reward for t in once.turns] == [1.0]
    assert fix.reward == pytest.approx(0.9) and once.reward == 1.0
    assert fix.score == 1.0 and fix.solved and once.solved
    adv = advantages(make_batch([fix, once], tr.tokenizer.pad_token_id), tr.cfg)
    assert adv[0, 0] < 0 < adv[1, 0]  # GRPO now prefers solving at once


def test_each_turn_is_a_segment_holding_the_models_tokens_and_its_reward(tmp_path, monkeypatch):
    tr = Trainer(small(tmp_path, max_turns=3, episode_return="final"), env=SpellEnv(max_turns=3))
    script(monkeypatch, tr.tokenizer, plan(["zzz", "cot", "cat"]))
    (s,) = rollout(tr.model, tr.tokenizer, tr.envs, [("cat", 0)], tr.settings)
    assert [t.reward for t in s.turns] == [0.0, 2 / 3, 1.0]
    for turn, text in zip(s.turns, ["zzz", "cot", "cat"], strict=True):
        assert all(s.loss_mask[turn.start : turn.end])  # model tokens only
        assert tr.tokenizer.decode(s.token_ids[turn.start : turn.end], skip_special_tokens=True) == text
    # Between segments: the env's feedback, out of the loss.
    assert s.loss_mask[s.turns[0].end : s.turns[1].start] == [0] * (s.turns[1].start - s.turns[0].end)
    assert s.turns[0].end < s.turns[1].start and s.turns[-1].end == len(s.token_ids)


def test_a_sum_return_discounts_later_turns_and_charges_the_turn_penalty(tmp_path, monkeypatch):
    cfg = small(tmp_path, max_turns=3, episode_return="sum", turn_discount=0.5, turn_penalty=0.05)
    tr = Trainer(cfg, env=SpellEnv(max_turns=3))
    script(monkeypatch, tr.tokenizer, plan(["cot", "cog", "cat"]))
    (s,) = rollout(tr.model, tr.tokenizer, tr.envs, [("cat", 0)], tr.settings)
    # rewards 2/3, 1/3, 1: G = 2/3 + 0.5 * 1/3 + 0.25 * 1 - 0.05 * 2 = 0.98333; the score stays
    # SpellEnv's own (the last turn's reward), so "solved" does not change with the config.
    assert s.reward == pytest.approx(2 / 3 + 1 / 6 + 0.25 - 0.1) and (s.score, s.solved) == (1.0, True)


def test_episode_return_formulas():
    assert episode_return([0.417, 1.0], "final") == (1.0, 1.0)
    assert episode_return([0.417, 1.0], "final", turn_penalty=0.2) == (0.8, 1.0)
    assert episode_return([0.0, 0.0, 0.5], "sum", discount=0.9) == (pytest.approx(0.405), 0.5)
    assert episode_return([0.5, 0.5], "sum", score_kind="final") == (1.0, 0.5)
    assert episode_return([], "final") == (0.0, 0.0)


def test_each_family_has_one_documented_return_rule():
    def rule(env_id):
        return resolve_rule(types.SimpleNamespace(spec=gym.spec(env_id), unwrapped=object()))

    for env_id in ("CodeGen-v0", "CodeOptimization-v0", "WebApp-v0", "ImageToSVG-v0", "ImageToTikZ-v0"):
        assert rule(env_id).kind == "final", env_id  # each turn re-grades the whole attempt
    for env_id in ("CodeRepair-v0", "TestGen-v0", "Terminal-v0"):
        assert rule(env_id).kind == "sum", env_id  # tool steps earn 0 (or deltas), submit the rest
    assert rule("TextToCAD-v0").kind == "final" and rule("CodeGen-v0").solved_at == 1.0
    assert rule("ImageToSVG-v0").solved_at == 0.99  # where the env ends its episodes
    from codegym.registration import ENVS

    assert {e.id.rsplit("-v", 1)[0] for e in ENVS} == set(FAMILY_RETURNS)  # every family decided


def test_an_env_the_table_does_not_know_is_summed_with_a_warning_unless_it_declares_its_rule():
    class Undeclared(SpellEnv):
        episode_return = None

    with pytest.warns(UserWarning, match="episode_return=final"):
        assert resolve_rule(Undeclared()).kind == "sum"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert resolve_rule(Undeclared(), multi_turn=False).kind == "sum"  # one turn: nothing to guess
        assert resolve_rule(SpellEnv()).kind == "final"  # SpellEnv declares episode_return = "final"
        forced, declared = resolve_rule(Undeclared(), "final", solved_at=0.5), resolve_rule(SpellEnv(), solved_at=0.5)
        assert (forced.kind, forced.score_kind, forced.solved_at) == (declared.kind, declared.score_kind, 0.5)


# ------------------------------------------------------------------ pass rate = solved
def test_three_wrong_turns_are_not_a_pass_however_the_rewards_add_up(tmp_path, monkeypatch):
    # The config asks for summed returns; "solved" still reads the family's score (the last turn).
    tr = Trainer(small(tmp_path, max_turns=3, episode_return="sum"), env=SpellEnv(max_turns=3))
    script(monkeypatch, tr.tokenizer, plan(["cot", "cot", "cot"], ["cat"]))
    samples = rollout(tr.model, tr.tokenizer, tr.envs, [("cat", 0), ("cat", 0)], tr.settings)
    assert samples[0].reward == pytest.approx(2.0)  # the sum of 3 x 2/3: above 1.0 ...
    assert samples[0].score == pytest.approx(2 / 3) and not samples[0].solved and samples[1].solved
    assert pass_rate(samples) == 0.5  # ... but only the second episode solved the task
    assert tr._scores(samples, "")["pass_rate"] == 0.5


# ------------------------------------------------------------------ recovery chains
class SpellChainEnv(SpellEnv):
    """SpellEnv that RecoveryWrapper can restart: the preface shows the failed spelling."""

    def _grade(self, action):
        self.episode.state["last_patch"] = action
        return super()._grade(action)

    def restart_attempt(self, preface):
        self.episode.turn, self.episode.done = 0, False
        obs = preface + self._start(self.episode.task)
        self.episode.last_observation = obs
        return obs


def chain_policy(context, rank):
    """First try by rank: solve, near miss, miss; the near miss is fixed, the miss repeated."""
    if "```diff\ncot" in context:
        return "cat"
    if "```diff\nzz" in context:
        return "zzq"
    return ["cat", "cot", "zzz"][rank]


def test_every_attempt_of_a_chain_is_a_sample_grouped_by_attempt_index(tmp_path, monkeypatch):
    env = RecoveryWrapper(SpellChainEnv(), max_attempts=3)
    tr = Trainer(small(tmp_path, algorithm="dr_grpo", episode_return="final"), env=env)
    script(monkeypatch, tr.tokenizer, chain_policy)
    samples = rollout(tr.model, tr.tokenizer, tr.envs, [("cat", 7)] * 3, tr.settings)
    got = [(s.attempt, s.text, s.reward) for s in samples]
    assert got == [
        (0, ["cat"], 1.0),  # chain 1: solved at once, leaves the active set
        (0, ["cot"], 2 / 3),  # chain 2: near miss, then fixed
        (1, ["cat"], 1.0),
        (0, ["zzz"], 0.0),  # chain 3: fails all three attempts
        (1, ["zzq"], 0.0),
        (2, ["zzq"], 0.0),
    ]
    assert len({s.chain_id for s in samples}) == 3 and all(s.group == 7 for s in samples)
    # Dr. GRPO advantages A = r - mean within (task, attempt index):
    # attempt 1: {1, 2/3, 0}, mean 5/9; attempt 2: {1, 0}, mean 1/2; attempt 3: {0} alone.
    adv = advantages(make_batch(samples, tr.tokenizer.pad_token_id), tr.cfg)[:, 0]
    want = [4 / 9, 1 / 9, 1 / 2, -5 / 9, -1 / 2, 0.0]
    torch.testing.assert_close(adv, torch.tensor(want), atol=1e-5, rtol=0)
    assert pass_rate(samples) == pytest.approx(2 / 3)  # two chains of three solved
    # The second attempt's prompt is its own observation (the failed try and the feedback).
    second = tr.tokenizer.decode(samples[2].prompt_ids, skip_special_tokens=True)
    assert "Attempt 1 of 3 failed" in second and "cot" in second


def test_the_recovery_wrapper_forks_so_env_workers_grade_chains_in_parallel(tmp_path, monkeypatch):
    env = RecoveryWrapper(SpellChainEnv(), max_attempts=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "cannot be forked" warning
        tr = Trainer(small(tmp_path, episode_return="final", env_workers=3), env=env)
    assert len(tr.envs) == 3 and all(isinstance(e, RecoveryWrapper) for e in tr.envs)
    assert len({id(e.unwrapped) for e in tr.envs}) == 3
    script(monkeypatch, tr.tokenizer, chain_policy)
    samples = rollout(tr.model, tr.tokenizer, tr.envs, [("cat", 0)] * 3, tr.settings)
    assert [s.reward for s in samples] == [1.0, 2 / 3, 1.0, 0.0, 0.0, 0.0]
    assert len({s.chain_id for s in samples}) == 3  # forks never reuse a chain id


def test_an_unforkable_wrapper_says_env_workers_drops_to_one(tmp_path):
    class Reward2(gym.Wrapper):
        pass

    with pytest.warns(UserWarning, match="cannot be forked"):
        tr = Trainer(small(tmp_path, env_workers=2), env=Reward2(SpellEnv()))
    assert len(tr.envs) == 1


# ------------------------------------------------------------------ prompt cutting
class LongPromptEnv(SpellEnv):
    def _start(self, task):
        return f"TASK: spell {task['word']}. " + "filler " * 200 + "ANSWER WITH THE WORD"


def test_a_long_prompt_is_cut_from_the_middle_keeping_the_task_and_the_end_with_a_warning(tmp_path):
    tr = Trainer(small(tmp_path, max_prompt_tokens=100), env=LongPromptEnv())
    with pytest.warns(PromptCutWarning, match=r"task 'cat' is \d+ tokens, longer than max_prompt_tokens=100: cut \d+"):
        (s,) = rollout(tr.model, tr.tokenizer, tr.envs, [("cat", 0)], tr.settings)
    text = tr.tokenizer.decode(s.prompt_ids, skip_special_tokens=True)
    full = tr.tokenizer(
        tr.cfg.prompt_template.format(observation=LongPromptEnv()._start({"word": "cat"})), add_special_tokens=False
    )
    assert len(s.prompt_ids) == 100 and s.prompt_cut > 0
    assert text.startswith("TASK: spell cat.") and text.endswith("ANSWER WITH THE WORD\n")
    assert f"[... {s.prompt_cut} prompt tokens cut ...]" in text
    assert s.prompt_cut == len(full["input_ids"]) - 100 + len(
        tr.tokenizer(f"\n[... {s.prompt_cut} prompt tokens cut ...]\n", add_special_tokens=False)["input_ids"]
    )


def test_a_long_prompt_is_an_error_when_prompt_overflow_says_so(tmp_path):
    tr = Trainer(small(tmp_path, max_prompt_tokens=60, prompt_overflow="error"), env=LongPromptEnv())
    with pytest.raises(PromptTooLongError, match="raise max_prompt_tokens or set prompt_overflow=cut_middle"):
        rollout(tr.model, tr.tokenizer, tr.envs, [("cat", 0)], tr.settings)


def test_prompts_that_fit_are_left_alone_and_tiny_budgets_cut_without_a_marker():
    class Chars:
        def __call__(self, text, add_special_tokens=False):
            return {"input_ids": [ord(c) for c in text]}

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fit_prompt(Chars(), [1, 2, 3], 3) == ([1, 2, 3], 0)
    with pytest.warns(PromptCutWarning, match="cut 5 tokens from its middle"):
        assert fit_prompt(Chars(), list(range(10)), 5) == ([0, 1, 2, 8, 9], 5)
    with pytest.raises(ValueError, match="got 'left'"):
        fit_prompt(Chars(), list(range(10)), 5, "left")


def test_config_checks_the_new_fields():
    with pytest.raises(ValueError, match="episode_return must be one of"):
        LearnerConfig(episode_return="mean")
    with pytest.raises(ValueError, match="prompt_overflow must be one of"):
        LearnerConfig(prompt_overflow="left")
    with pytest.raises(ValueError, match=r"turn_discount must be in \(0, 1\]"):
        LearnerConfig(turn_discount=0.0)
    with pytest.raises(ValueError, match="turn_penalty must be >= 0"):
        LearnerConfig(turn_penalty=-1)


# ------------------------------------------------------------------ on a real family
CODEGEN_TASK = "io-even_odd_count-python"


def test_on_codegen_fail_then_fix_earns_the_final_reward_not_the_sum(monkeypatch):
    from codegym.learner.models import build_tokenizer

    env = gym.make("CodeGen-v0", sandbox="local", max_turns=2)
    env.reset(options={"task_id": CODEGEN_TASK})
    gold = env.unwrapped.gold_action()
    wrong = gold.replace("len(xs) - ev", "0")  # right only when every number is even
    tokenizer = build_tokenizer([gold, wrong], 300)

    def policy(context, rank):
        return gold if "Your previous attempt" in context or rank == 1 else wrong

    script(monkeypatch, tokenizer, policy)
    envs = [env, env.unwrapped.fork()]
    settings = RolloutSettings(max_turns=2, max_prompt_tokens=2048, max_new_tokens=256)
    try:
        fix, once = rollout(None, tokenizer, envs, [(CODEGEN_TASK, 0)] * 2, settings)
        penalised = rollout(None, tokenizer, envs, [(CODEGEN_TASK, 0)] * 2, replace(settings, turn_penalty=0.1))
    finally:
        envs[1].close()
        env.close()
    first = fix.turns[0].reward
    assert 0 < first < 1 and [t.reward for t in fix.turns] == [first, 1.0]  # partial, then every test
    assert (fix.reward, once.reward) == (1.0, 1.0)  # was first + 1.0 against 1.0
    assert fix.solved and once.solved and pass_rate([fix, once]) == 1.0
    assert [s.reward for s in penalised] == [pytest.approx(0.9), 1.0]


def test_a_coderepair_recovery_chain_trains_attempt_by_attempt_on_two_forks(monkeypatch):
    from codegym.envs.agentic.repair import CodeRepairEnv
    from codegym.learner.models import build_tokenizer

    task = "textkit.case.camel_to_snake.drop_condition.0"
    env = RecoveryWrapper(CodeRepairEnv(sandbox="local"), max_attempts=2)
    env.reset(options={"task_id": task})
    gold = env.unwrapped.gold_action()
    empty = "```diff\n```"
    tokenizer = build_tokenizer([gold, empty], 300)

    def policy(context, rank):  # chain 1 solves at once; chain 2 submits nothing, then the fix
        return gold if rank == 0 or "Attempt 1 of 2 failed" in context else empty

    script(monkeypatch, tokenizer, policy)
    envs = [env, env.fork()]
    try:
        samples = rollout(None, tokenizer, envs, [(task, 3)] * 2, RolloutSettings(max_prompt_tokens=8192))
    finally:
        for e in envs:
            e.close()
    assert [(s.attempt, s.reward, s.solved) for s in samples] == [(0, 1.0, True), (0, 0.0, False), (1, 1.0, True)]
    assert len({s.chain_id for s in samples}) == 2 and samples[1].chain_id == samples[2].chain_id
    assert pass_rate(samples) == 1.0


@pytest.mark.parametrize("extra", [{}, {"algorithm": "dapo"}, {"allocation": "vigor", "vigor_initial": 2}])
def test_training_steps_on_recovery_chains_log_attempts_and_a_chain_pass_rate(tmp_path, extra):
    env = RecoveryWrapper(SpellChainEnv(), max_attempts=2)
    tr = Trainer(small(tmp_path, num_generations=4, tasks_per_step=2, **extra), env=env)
    rec = tr.train_step()
    attempts = [s for s in tr.last_generated if not s.infra_error]
    first = [s for s in attempts if s.attempt == 0]
    second = [s for s in attempts if s.attempt == 1]
    assert len(first) + len(second) == len(attempts) and len({s.chain_id for s in attempts}) == len(first)
    assert len(second) == sum(not s.solved for s in first) > 0  # every failed first try got a second
    assert rec["pass_rate"] == pass_rate(attempts) and rec["prompt_tokens_cut"] == 0
    assert all(torch.isfinite(torch.tensor(rec.get(k, 0.0))) for k in ("loss", "grad_norm", "reward"))
