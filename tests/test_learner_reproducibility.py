"""Same seed, same run: in one process, across processes (another hash seed), on CodeGen-v0."""

import json
import os
import subprocess
import sys
import textwrap

from codegym.learner.trainer import Trainer
from test_learner_toyenv import SpellEnv
from test_learner_trainer import small

from codegym.core import Outcome

# Wall-clock fields are the only ones allowed to differ between two runs of one seed.
TIMINGS = ("rollout_s", "update_s", "tokens_per_s")


class NoisyEnv(SpellEnv):
    """Grades with the env's own random numbers (as random-test or fuzzing graders do)."""

    def _grade(self, action):
        return Outcome(float(self.np_random.random()), {"noise": 1.0})


def test_an_env_that_grades_with_its_own_rng_is_seeded_by_the_run_seed(tmp_path):
    runs = [Trainer(small(tmp_path / k, env_workers=2), env=NoisyEnv()) for k in "ab"]
    first = [[s.reward for s in tr.collect()] for tr in runs]
    assert first[0] == first[1]
    other = Trainer(small(tmp_path / "c", env_workers=2, seed=1), env=NoisyEnv())
    assert [s.reward for s in other.collect()] != first[0]


RUN = textwrap.dedent(
    """
    import json, sys
    import gymnasium as gym
    import codegym
    from codegym.envs.codegen.generate import generate_tasks
    from codegym.learner.config import LearnerConfig
    from codegym.learner.trainer import Trainer

    tasks = generate_tasks(12, 0, "easy", "train") + generate_tasks(2, 1, "easy", "test")
    env = gym.make("CodeGen-v0", tasks=tasks)
    cfg = LearnerConfig(tiny_layers=1, tiny_hidden=32, tiny_heads=2, vocab_size=400, num_generations=4,
                        tasks_per_step=2, max_new_tokens=24, steps=2, sft_steps=10, eval_tasks=2,
                        eval_samples=2, env_workers=2, progress=False, out_dir=sys.argv[1], seed=7)
    Trainer(cfg, env=env).train()
    env.close()
    print(json.dumps([json.loads(line) for line in open(cfg.out_dir + "/metrics.jsonl")]))
    """
)


def test_two_codegen_runs_with_one_seed_in_two_processes_log_the_same_metrics(tmp_path):
    outs = []
    for hash_seed in ("1", "2"):  # set and dict-of-set orders differ between the two processes
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        out_dir = str(tmp_path / hash_seed)
        done = subprocess.run(
            [sys.executable, "-c", RUN, out_dir], env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr[-3000:]
        outs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    a, b = ([{k: v for k, v in r.items() if k not in TIMINGS} for r in out] for out in outs)
    assert [r["kind"] for r in a] == ["sft", "eval", "train", "train", "eval"]
    assert not any("infra_errors" in r or r.get("infra_dropped") for r in a), a  # graded for real
    assert a == b
