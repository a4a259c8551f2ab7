"""The learner end to end on SpellEnv: rollouts, every algorithm, infra errors, resume, CLI."""

import copy
import json
import subprocess
import sys

import pytest
import torch
from codegym.learner.config import LearnerConfig
from codegym.learner.loss import make_batch, token_logprobs
from codegym.learner.rollout import RolloutSettings, rollout
from codegym.learner.trainer import Trainer
from test_learner_toyenv import SpellEnv


def small(tmp_path, **kw):
    fields = dict(
        tiny_layers=1,
        tiny_hidden=32,
        tiny_heads=2,
        vocab_size=300,
        num_generations=4,
        tasks_per_step=2,
        max_new_tokens=6,
        steps=1,
        eval_tasks=2,
        progress=False,
        out_dir=str(tmp_path / "run"),
        learning_rate=1e-3,
    )
    fields.update(kw)
    return LearnerConfig(**fields)


def test_sampler_logprobs_equal_the_trainers_recomputed_logprobs(tmp_path):
    tr = Trainer(small(tmp_path), env=SpellEnv())
    samples = rollout(
        tr.model,
        tr.tokenizer,
        tr.envs,
        [("cat", 0), ("dog", 0), ("sun", 1)],
        RolloutSettings(max_new_tokens=6),
        torch.Generator().manual_seed(0),
    )
    batch = make_batch(samples, tr.tokenizer.pad_token_id)
    with torch.no_grad():
        logp, _ = token_logprobs(tr.model.eval(), batch, 1.0)
    m = batch.mask.bool()
    torch.testing.assert_close(logp[m], batch.sampler_logp[m], atol=1e-4, rtol=1e-4)
    for s in samples:  # the action the env graded is exactly the decoded sampled tokens
        ids = s.token_ids[:-1] if s.token_ids[-1] == tr.tokenizer.eos_token_id else s.token_ids
        assert tr.tokenizer.decode(ids, skip_special_tokens=True) == s.text[0]


@pytest.mark.parametrize("lora_rank", [0, 4])
def test_running_each_shared_prompt_once_gives_the_full_forwards_logprobs_and_gradients(tmp_path, lora_rank):
    words = ["cat", "elephant", "a"]
    env = SpellEnv(tasks=[{"id": w, "word": w, "split": "train", "difficulty": "easy"} for w in words])
    tr = Trainer(small(tmp_path, lora_rank=lora_rank, max_new_tokens=8, vocab_size=260), env=env)
    jobs = [("cat", 0)] * 3 + [("elephant", 1)] * 2 + [("a", 2)]  # prompts of different lengths
    samples = rollout(tr.model, tr.tokenizer, tr.envs, jobs, tr.settings, torch.Generator().manual_seed(4))
    batch = make_batch(samples, tr.tokenizer.pad_token_id)
    assert batch.prompts.shape[0] == 3 and batch.prompt_of.tolist() == [0, 0, 0, 1, 1, 2]
    assert len(set(batch.prompt_mask.sum(1).tolist())) > 1  # left padding is exercised
    params = [p for p in tr.model.parameters() if p.requires_grad]
    results = []
    for share in (True, False):
        tr.model.zero_grad()
        logp, ent = token_logprobs(tr.model.train(), batch, 0.7, with_entropy=True, share_prompts=share)
        ((logp * batch.mask).sum() + (logp * batch.mask)[:, 0].sum()).backward()
        results.append((logp.detach() * batch.mask, ent * batch.mask, [p.grad.clone() for p in params]))
    (lp_a, ent_a, g_a), (lp_b, ent_b, g_b) = results
    torch.testing.assert_close(lp_a, lp_b, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(ent_a, ent_b, atol=1e-5, rtol=1e-4)
    for a, b in zip(g_a, g_b, strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize(
    "extra",
    [
        dict(algorithm="grpo"),
        dict(algorithm="dapo", dynamic_sampling=False),
        dict(algorithm="dr_grpo", beta=0.1),
        dict(algorithm="gspo", erpo_keep=1),
    ],
    ids=lambda d: d["algorithm"],
)
def test_micro_batches_add_up_to_the_whole_batch_update(tmp_path, extra):
    runs = []
    for micro in (0, 3):  # 8 samples: one pass, or passes of 3, 3 and 2 samples
        tr = Trainer(small(tmp_path / str(micro), micro_batch_size=micro, learning_rate=1e-2, **extra), env=SpellEnv())
        if tr.cfg.beta:
            tr.ref = copy.deepcopy(tr.model).eval()
        samples = rollout(
            tr.model,
            tr.tokenizer,
            tr.envs,
            [("cat", 0)] * 4 + [("dog", 1)] * 4,
            tr.settings,
            torch.Generator().manual_seed(5),
        )
        for k, s in enumerate(samples):
            s.reward = float(k % 3)  # varied rewards, whatever the random model wrote
        stats = tr.update(samples)
        # The (clipped) gradients the step used; Adam's first step would magnify float noise.
        runs.append((stats, [p.grad.clone() for p in tr.model.parameters() if p.grad is not None]))
    (whole, p_whole), (micro, p_micro) = runs
    for key in ("loss", "clip_frac", "kl", "entropy", "grad_norm"):
        assert micro[key] == pytest.approx(whole[key], rel=1e-4, abs=1e-6), key
    assert len(p_whole) == len(p_micro) > 0
    for a, b in zip(p_whole, p_micro, strict=True):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-4)


def test_one_pass_byte_level_offsets_match_decoding_every_prefix():
    from codegym.learner.models import build_tokenizer
    from codegym.learner.rollout import _byte_decoder, _byte_level_char_counts

    tok = build_tokenizer(["déjà vu — naïve café 😀 ok", "def f(x):\n    return x"], 300)
    gen = torch.Generator().manual_seed(0)
    byte_token = {b: c for c, b in _byte_decoder().items()}
    words = ["déjà", " vu", " —", " naïve", " café", " 😀", " ok", "\n    return x"]
    for _ in range(100):  # random texts, some characters split into their single-byte tokens
        picks = torch.randint(0, len(words), (4,), generator=gen).tolist()
        ids = []
        for ch in "".join(words[k] for k in picks):
            if torch.rand(1, generator=gen).item() < 0.5:
                ids += tok.convert_tokens_to_ids([byte_token[b] for b in ch.encode()])
            else:
                ids += tok(ch, add_special_tokens=False)["input_ids"]
        text = tok.decode(ids, skip_special_tokens=True)
        prefixes = [tok.decode(ids[: i + 1], skip_special_tokens=True).rstrip("\ufffd") for i in range(len(ids))]
        assert _byte_level_char_counts(tok, ids) == [len(p) for p in prefixes]
        assert prefixes[-1] == text
    for _ in range(50):  # arbitrary ids, invalid UTF-8 included: still monotone, inside the text
        ids = torch.randint(0, len(tok), (12,), generator=gen).tolist()
        counts = _byte_level_char_counts(tok, ids)
        assert counts == sorted(counts) and counts[-1] <= len(tok.decode(ids, skip_special_tokens=True))


def test_rows_that_stop_early_leave_the_decode_batch_and_keep_exact_logprobs(tmp_path):
    tr = Trainer(small(tmp_path, sft_steps=40, sft_learning_rate=3e-3, max_new_tokens=10), env=SpellEnv())
    tr.warm_start()  # the model now ends most answers after three letters, some later
    samples = rollout(
        tr.model,
        tr.tokenizer,
        tr.envs,
        [("cat", 0)] * 8 + [("sun", 1)] * 8,
        tr.settings,
        torch.Generator().manual_seed(6),
    )
    lengths = [len(s.token_ids) for s in samples]
    stopped = sum(s.token_ids[-1] == tr.tokenizer.eos_token_id for s in samples)
    assert stopped >= 4 and max(lengths) > min(lengths)  # rows left the batch while others decoded on
    batch = make_batch(samples, tr.tokenizer.pad_token_id)
    with torch.no_grad():
        logp, _ = token_logprobs(tr.model.eval(), batch, 1.0)
    m = batch.mask.bool()
    torch.testing.assert_close(logp[m], batch.sampler_logp[m], atol=1e-4, rtol=1e-4)


def test_the_exponential_race_draws_exactly_what_torch_multinomial_draws():
    # generate() samples with argmax(p / q), q ~ Exp(1), drawn for every row of the batch; that
    # this equals torch.multinomial(p, 1) keeps runs identical to plain multinomial sampling.
    p = torch.softmax(torch.randn(16, 300, generator=torch.Generator().manual_seed(0)), -1)
    g1, g2 = torch.Generator().manual_seed(7), torch.Generator().manual_seed(7)
    for _ in range(10):
        a = torch.multinomial(p, 1, generator=g1).squeeze(1)
        b = (p / torch.empty_like(p).exponential_(1, generator=g2)).argmax(-1)
        assert torch.equal(a, b)


def test_token_rewards_land_on_the_tokens_of_the_rewarded_characters(tmp_path):
    tr = Trainer(small(tmp_path), env=SpellEnv())
    samples = rollout(
        tr.model,
        tr.tokenizer,
        tr.envs,
        [("cat", 0)] * 8,
        RolloutSettings(max_new_tokens=6),
        torch.Generator().manual_seed(1),
    )
    for s in samples:
        text, pos = s.text[0], 0
        for tok, r in zip(s.token_ids, s.token_rewards, strict=True):
            piece = tr.tokenizer.decode([tok], skip_special_tokens=True)
            good = any(i < 3 and text[i] == "cat"[i] for i in range(pos, pos + len(piece)))
            assert (r > 0) == good
            pos += len(piece)


def test_multi_turn_observation_tokens_are_in_the_context_but_out_of_the_loss(tmp_path):
    env = SpellEnv(max_turns=2)
    tr = Trainer(small(tmp_path, max_turns=2), env=env)
    samples = rollout(tr.model, tr.tokenizer, tr.envs, [("cat", 0)] * 4, tr.settings, torch.Generator().manual_seed(2))
    two_turns = [s for s in samples if len(s.text) == 2]
    assert two_turns, "a random model should miss 'cat' on the first turn"
    for s in two_turns:
        first = s.loss_mask.index(0)
        n_obs = s.loss_mask[first:].index(1)
        obs = tr.tokenizer.decode(s.token_ids[first : first + n_obs])
        assert obs == f"not {s.text[0]!r}; try again\n"
        assert all(lp == 0.0 for lp in s.sampler_logp[first : first + n_obs])


ALGOS = [dict(algorithm=a) for a in ("grpo", "dr_grpo", "dapo", "gspo", "gspo_token", "bot_grpo", "pure")] + [
    dict(algorithm="pure", pure_temperature=0.5),
    dict(beta=0.1),
    dict(num_iterations=2, seq_mask="carm"),
    dict(tis_cap=2.0),
    dict(allocation="vigor", vigor_initial=2),
    dict(reward_transform="leap"),
    dict(erpo_keep=1, entropy_ceiling=5.0),
    dict(lora_rank=4),
]


@pytest.mark.parametrize("extra", ALGOS, ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()))
def test_every_algorithm_runs_a_training_step_and_logs_finite_metrics(tmp_path, extra):
    tr = Trainer(small(tmp_path, steps=2, **extra), env=SpellEnv())
    before = [p.detach().clone() for p in tr.model.parameters() if p.requires_grad]
    result = tr.train()
    recs = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    train = [r for r in recs if r["kind"] == "train"]
    assert len(train) == 2 and all(torch.isfinite(torch.tensor(r.get("loss", 0.0))) for r in train)
    assert (tmp_path / "run" / "metrics.png").stat().st_size > 0 and result["after"]["n"] == 2
    if any(abs(r.get("grad_norm", 0)) > 0 for r in train):
        after = [p for p in tr.model.parameters() if p.requires_grad]
        assert any(not torch.equal(a, b) for a, b in zip(after, before, strict=True))


def test_infra_error_samples_are_dropped_not_learned_as_zero(tmp_path):
    tr = Trainer(small(tmp_path, steps=1, tasks_per_step=3), env=SpellEnv(fail_every=3))
    rec = tr.train_step()
    assert rec["infra_dropped"] == 4  # 12 graded steps, every 3rd broke
    assert rec["samples_used"] == 8


def test_training_resumes_from_the_checkpoint_at_the_step_it_stopped(tmp_path):
    Trainer(small(tmp_path, steps=2, sft_steps=2), env=SpellEnv()).train()
    resumed = Trainer(small(tmp_path, steps=3, sft_steps=2, resume=True), env=SpellEnv())
    assert resumed.step == 2 and resumed.sft_done
    out = resumed.train()
    assert out["steps"] == 3
    recs = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in recs if r["kind"] == "train"] == [1, 2, 3]


@pytest.mark.parametrize("lora_rank,base", [(0, "tiny"), (4, "tiny"), (4, "disk")])
def test_a_resumed_run_continues_exactly_like_an_uninterrupted_one(tmp_path, lora_rank, base):
    kw = dict(sft_steps=2, lora_rank=lora_rank, eval_tasks=1)
    if base == "disk":  # a LoRA run on a model read from a folder: the checkpoint holds the adapter only
        from codegym.learner.models import build_tiny_model, build_tokenizer

        tok = build_tokenizer(["spell cat\ncat", "spell dog\ndog"], 300)
        build_tiny_model(tok, 1, 32, 2).save_pretrained(tmp_path / "base")
        tok.save_pretrained(tmp_path / "base")
        kw["model"] = str(tmp_path / "base")
    whole = Trainer(small(tmp_path / "whole", steps=2, **kw), env=SpellEnv())
    straight = whole.train()["history"]
    Trainer(small(tmp_path / "cut", steps=1, **kw), env=SpellEnv()).train()
    resumed = Trainer(small(tmp_path / "cut", steps=2, resume=True, **kw), env=SpellEnv())
    assert resumed.step == 1 and type(resumed.model) is type(whole.model)
    again = resumed.train()["history"]
    assert len(again) == 1 and again[0]["step"] == 2
    for key in ("reward", "loss", "grad_norm", "generated_tokens", "entropy"):
        assert again[0][key] == straight[1][key], key
    a, b = whole.model.state_dict(), resumed.model.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    if lora_rank:  # the checkpoint carries the adapter in peft's format, the base only if in memory
        ckpt = tmp_path / "cut" / "run" / "checkpoint"
        assert (ckpt / "adapter_model.safetensors").exists()
        assert (ckpt / "lora_full_state.pt").exists() == (base == "tiny")


def test_same_seed_gives_the_same_run(tmp_path):
    a = Trainer(small(tmp_path / "a", steps=2), env=SpellEnv()).train()["history"]
    b = Trainer(small(tmp_path / "b", steps=2), env=SpellEnv()).train()["history"]
    assert [r["reward"] for r in a] == [r["reward"] for r in b]
    assert [r["loss"] for r in a] == pytest.approx([r["loss"] for r in b])


def test_offline_mode_trains_from_logged_jsonl_without_an_env(tmp_path):
    log = tmp_path / "log.jsonl"
    rows = [
        {
            "prompt": "spell cat",
            "completion": c,
            "reward": r,
            "task_id": "cat",
            "token_rewards": [[0, 1, 1.0]] if c[0] == "c" else [],
        }
        for c, r in (("cat", 1.0), ("cot", 0.67), ("dog", 0.0))
    ]
    rows.append({"prompt": "spell cat", "completion": "x", "reward": 0.0, "infra_error": "crash"})
    log.write_text("\n".join(json.dumps(r) for r in rows))
    tr = Trainer(small(tmp_path, offline_data=str(log), steps=2, algorithm="bot_grpo"))
    out = tr.train()
    assert out["steps"] == 2 and out["history"][0]["samples_used"] == 3


def test_sft_warm_start_lowers_the_loss_on_gold_actions(tmp_path):
    tr = Trainer(small(tmp_path, sft_steps=40, sft_learning_rate=3e-3), env=SpellEnv())
    losses = tr.warm_start()
    assert losses[-1] < 0.5 * losses[0]


def test_cli_trains_a_registered_env_and_rejects_bad_config(tmp_path, capsys):
    from codegym.learner.cli import main

    out = tmp_path / "cli"
    assert (
        main(
            [
                "env_id=LearnerSpell-v0",
                "steps=1",
                "tiny_layers=1",
                "tiny_hidden=32",
                "vocab_size=300",
                "num_generations=2",
                "tasks_per_step=1",
                "max_new_tokens=4",
                "eval_tasks=1",
                "progress=false",
                f"out_dir={out}",
            ]
        )
        == 0
    )
    assert (out / "metrics.jsonl").exists() and (out / "checkpoint" / "state.pt").exists()
    assert main(["tiny_hidden=30", "tiny_heads=4"]) == 2
    assert "tiny_hidden (30) must be divisible by tiny_heads (4)" in capsys.readouterr().err


def test_config_cross_field_errors_name_both_fields():
    with pytest.raises(ValueError, match=r"epsilon_high \(0.1\) must be >= epsilon \(0.2\)"):
        LearnerConfig(epsilon=0.2, epsilon_high=0.1)
    with pytest.raises(ValueError, match=r"overlong_buffer \(99\) must be <= max_new_tokens \(64\)"):
        LearnerConfig(overlong_buffer=99)
    with pytest.raises(ValueError, match="did you mean steps"):
        LearnerConfig.from_dict({}, ["stepz=1"])


def test_choosing_an_algorithm_sets_its_papers_defaults_unless_overridden():
    dapo = LearnerConfig(algorithm="dapo")
    assert (dapo.epsilon_high, dapo.loss_aggregation, dapo.dynamic_sampling) == (0.28, "token-mean", True)
    dr = LearnerConfig(algorithm="dr_grpo")
    assert (dr.scale_rewards, dr.loss_aggregation) == (False, "seq-mean-token-sum-norm")
    dapo_seq = LearnerConfig(algorithm="dapo", loss_aggregation="seq-mean-token-mean")
    assert dapo_seq.loss_aggregation == "seq-mean-token-mean"


def test_the_learner_never_imports_a_codegym_family():
    code = (
        "import sys, codegym.learner.trainer, codegym.learner.cli, codegym.learner.demo;"
        "bad=[m for m in sys.modules if m.startswith('codegym.envs')]; assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_run_demo_warm_starts_trains_and_evaluates(tmp_path):
    from codegym.learner.demo import run_demo

    out = run_demo(
        steps=1,
        out_dir=str(tmp_path / "demo"),
        env_id="LearnerSpell-v0",
        progress=False,
        tiny_layers=1,
        tiny_hidden=32,
        tiny_heads=2,
        vocab_size=300,
        sft_steps=8,
        max_new_tokens=6,
        eval_tasks=2,
    )
    assert out["steps"] == 1 and out["sft_loss"][1] < out["sft_loss"][0]
    assert set(out["after"]) == {"reward", "pass_rate", "n"} and out["seconds"] > 0


@pytest.mark.parametrize("algorithm", ["grpo", "gspo", "bot_grpo"])
def test_an_update_raises_the_likelihood_of_the_better_sample_and_lowers_the_worse(tmp_path, algorithm):
    tr = Trainer(small(tmp_path, algorithm=algorithm, learning_rate=1e-2, dynamic_sampling=False), env=SpellEnv())
    samples = rollout(tr.model, tr.tokenizer, tr.envs, [("cat", 0)] * 2, tr.settings, torch.Generator().manual_seed(3))
    samples[0].reward, samples[1].reward = 1.0, 0.0
    batch = make_batch(samples, tr.tokenizer.pad_token_id)

    def seq_logp():
        with torch.no_grad():
            logp, _ = token_logprobs(tr.model, batch, 1.0)
        return (logp * batch.mask).sum(1)

    before = seq_logp()
    for _ in range(3):
        tr.update(samples)
    after = seq_logp()
    assert after[0] > before[0] and after[1] < before[1]


def test_sampled_evaluation_reports_pass_at_1_over_n_samples_without_touching_training_rng(tmp_path):
    tr = Trainer(small(tmp_path, eval_samples=3), env=SpellEnv())
    state = tr.generator.get_state()
    out = tr.evaluate()
    assert out["n"] == 2 and out["sampled_n"] == 6 and 0.0 <= out["sampled_pass_rate"] <= 1.0
    assert torch.equal(tr.generator.get_state(), state)


class HalfConstantEnv(SpellEnv):
    """Only 'cat' and 'dog' reward anything that varies (length / 10); every other task pays 0.5."""

    VARIED = ("cat", "dog")

    def _grade(self, action):
        from codegym.core import Outcome

        if self.episode.task["word"] in self.VARIED:
            return Outcome(len(action) / 10, {"length": len(action) / 10})
        return Outcome(0.5, {"constant": 0.5})


def test_dapo_dynamic_sampling_refills_dropped_groups_until_the_batch_is_full(tmp_path):
    # 8 of the 10 train tasks always give equal rewards, so one round of 2 groups rarely has two
    # groups with variance: the same seed keeps fewer than 2 groups without refill, 2 with it.
    once = Trainer(small(tmp_path / "a", algorithm="dapo", dynamic_sampling_max_rounds=1), env=HalfConstantEnv())
    rec = once.train_step()
    assert rec["gen_rounds"] == 1 and rec["groups_used"] < 2
    tr = Trainer(small(tmp_path / "b", algorithm="dapo", dynamic_sampling_max_rounds=30), env=HalfConstantEnv())
    kept = tr.collect()
    assert tr.collect_stats["gen_rounds"] > 1 and tr.collect_stats["groups_used"] == 2
    assert len(tr.last_generated) == 2 * 4 * tr.collect_stats["gen_rounds"]  # dropped rounds still counted
    groups = sorted({s.group for s in kept})
    assert len(groups) == 2 and len(kept) == 2 * 4
    for g in groups:  # every kept group has reward variance, so only the varying tasks survive
        members = [s for s in kept if s.group == g]
        assert members[0].task_id in HalfConstantEnv.VARIED
        assert len({s.reward for s in members}) > 1
    assert tr.update(kept)["samples_used"] == 8


def test_dynamic_sampling_trains_on_what_it_has_when_the_rounds_run_out(tmp_path):
    class Constant(SpellEnv):
        def _grade(self, action):
            from codegym.core import Outcome

            return Outcome(0.5, {"constant": 0.5})

    tr = Trainer(small(tmp_path, algorithm="dapo", dynamic_sampling_max_rounds=3), env=Constant())
    rec = tr.train_step()
    assert (rec["gen_rounds"], rec["groups_used"], rec["samples_used"]) == (3, 0, 0)
    assert rec["generated_tokens"] > 0 and rec["reward"] == 0.5
