"""A real SWE-bench-format instance: reset and grading with the cached per-task env vs the harness's way.

The instance is built from a real PyPI sdist (``tests/swebench_real.py``; pluggy by
default). Ours: ``CodeRepair-v0`` with the task's venv built once and cached (a read-only
bind on ``local``, an image layer on ``docker``); reset is ``reset()`` to the first
observation (and to the first command's result); grading is ``step(gold)`` with
leave-one-hunk-out credit off (the harness has none), planted tests included.

Baseline, as the SWE-bench harness evaluates: a fresh container from the instance image
per evaluation (the image emulated here: the cached env layer plus the repository at
``/testbed``, built once and not timed), then ``git apply`` of the patch and the test
patch, the test command, the log read back, the container removed. Without Docker the
baseline is the naive way without a cache: a fresh venv built per evaluation.

Runs are interleaved; each ratio is printed with the load average, and a ratio is refused
when either side's work failed (gold not resolved). The one-off build of the env (a fresh
cache folder) is timed first.

Run: ``.venv/bin/python bench/outside_tasks.py [--library pluggy] [--backend local|docker] [--runs 5]
[--baseline auto|container|venv]``.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import statistics
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from codegym.envs.agentic import CodeRepairEnv  # noqa: E402
from codegym.envs.agentic.repo import prepare_from_mirror  # noqa: E402
from codegym.envs.agentic.taskenv import InstallSpec, ensure_env  # noqa: E402
from swebench_real import DATA, Instance, build_instance  # noqa: E402


def load() -> str:
    """The 1-minute load average, for the record next to each ratio."""
    return f"load {os.getloadavg()[0]:.2f}"


def ratio(name: str, ours: list[float], theirs: list[float], ok: bool) -> None:
    """Print medians and the speed-up, or refuse the ratio when the work failed."""
    o, t = statistics.median(ours), statistics.median(theirs)
    if not ok:
        print(f"{name}: ours {o:.3f} s, baseline {t:.3f} s: NO RATIO (a run failed; see above) [{load()}]")
        return
    print(f"{name}: ours {o:.3f} s, baseline {t:.3f} s, speed-up x{t / o:.1f} [{load()}]")


def one_off_build(instance: Instance) -> float:
    """Seconds to build the instance's env into an empty cache folder."""
    old = os.environ.get("CODEGYM_CACHE")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["CODEGYM_CACHE"] = cache
        try:
            tree = prepare_from_mirror(_mirror(instance), instance.task["base_commit"], "bench")
            started = time.perf_counter()
            env = ensure_env(InstallSpec.of(instance.task), tree, "local")
            elapsed = time.perf_counter() - started
            steps = ", ".join(f"{s['step']} {s['seconds']:.1f} s" for s in env.record["log"])
            print(f"one-off env build: {elapsed:.1f} s ({steps}) [{load()}]")
        finally:
            if old is None:
                os.environ.pop("CODEGYM_CACHE", None)
            else:
                os.environ["CODEGYM_CACHE"] = old
    return elapsed


def _mirror(instance: Instance) -> Path:
    return instance.repo_root / instance.task["repo"].replace("/", "__")


# ---------------------------------------------------------------------------- baselines
class DockerHarness:
    """The SWE-bench harness's way: a fresh container from the instance image per evaluation."""

    def __init__(self, instance: Instance, env: CodeRepairEnv) -> None:
        from codegym.sandbox.docker import _client, runtime_image

        self.client = _client()
        self.instance = instance
        runtime = env._runtime
        assert runtime is not None
        layer = runtime_image(runtime)
        tree = env._tree
        assert tree is not None
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "Dockerfile").write_text(f"FROM {layer}\nCOPY . /testbed\n")
            self.image, _ = self.client.images.build(path=str(tree), dockerfile=f"{tmp}/Dockerfile", rm=True)
        ro = {p: {"bind": p, "mode": "ro"} for p in ("/usr", "/etc")}
        self.create_args = {"volumes": ro, "network_mode": "none", "working_dir": "/testbed"}
        self.run_args = {**self.create_args, "detach": True}
        roots = dict(runtime.env).get("PYTHONPATH", "/sandbox").replace("/sandbox", "/testbed")
        self.env = {"PATH": runtime.search_path(), "PYTHONPATH": roots, "HOME": "/tmp"}

    def _start(self):  # noqa: ANN202 - a docker-py container
        return self.client.containers.run(self.image.id, ["/usr/bin/sleep", "infinity"], **self.run_args)

    def reset(self) -> float:
        """Container start to the first command's result."""
        started = time.perf_counter()
        container = self._start()
        code, _ = container.exec_run(["git", "status", "--short"], environment=self.env)
        elapsed = time.perf_counter() - started
        container.remove(force=True)
        assert code == 0
        return elapsed

    def grade(self, patch: str) -> tuple[float, bool]:
        """As ``run_evaluation.run_instance``: (seconds, resolved).

        Create and start a container; copy the patch in, ``git apply --verbose``; ``git diff``;
        copy ``eval.sh`` in and run it (test files reset, test patch applied, the tests run
        between the output markers, test files reset again); ``git diff``; the container
        removed. The harness stops it with ``docker stop --time=15`` first (up to 15 s when
        its pid 1 ignores SIGTERM); here it is killed, so the baseline is not inflated.
        """
        task = self.instance.task
        tests = json.loads(task["FAIL_TO_PASS"]) + json.loads(task["PASS_TO_PASS"])
        files = sorted({n.split("::")[0] for n in tests})
        touched = " ".join(sorted(re.findall(r"^diff --git a/(\S+)", task["test_patch"], re.M)))
        base = task["base_commit"]
        eval_sh = (
            "#!/bin/bash\nset -uxo pipefail\ncd /testbed\ngit status\ngit -c core.fileMode=false diff HEAD\n"
            f"git checkout {base} {touched}\n"
            f"git apply -v - <<'EOF_114329324912'\n{task['test_patch']}EOF_114329324912\n"
            ": '>>>>> Start Test Output'\n"
            f"python -m pytest --no-header -rA --tb=no -p no:cacheprovider {' '.join(files)}\n"
            ": '>>>>> End Test Output'\n"
            f"git checkout {base} {touched}\n"
        )
        started = time.perf_counter()
        container = self.client.containers.create(self.image.id, ["/usr/bin/sleep", "infinity"], **self.create_args)
        container.start()
        _put(container, "/tmp/patch.diff", patch)
        applied, _ = container.exec_run("git apply --verbose /tmp/patch.diff", environment=self.env)
        container.exec_run("git -c core.fileMode=false diff", environment=self.env)
        _put(container, "/eval.sh", eval_sh)
        _, out = container.exec_run("/bin/bash /eval.sh", environment=self.env)
        container.exec_run("git -c core.fileMode=false diff", environment=self.env)
        container.remove(force=True)
        elapsed = time.perf_counter() - started
        log = out.decode(errors="replace")
        return elapsed, applied == 0 and _resolved(task, log.split(">>>>> Start Test Output")[-1])


def _put(container, path: str, text: str) -> None:  # noqa: ANN001 - a docker-py container
    """``copy_to_container``: one file through a tar archive."""
    data = text.encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(os.path.basename(path))
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    container.put_archive(os.path.dirname(path), buf.getvalue())


def _resolved(task: dict, log: str) -> bool:
    """SWE-bench's pytest parser and resolution rule, on the harness-side log."""
    passed = {line.split()[1] for line in log.splitlines() if line.startswith(("PASSED ", "XFAIL "))}
    tests = json.loads(task["FAIL_TO_PASS"]) + json.loads(task["PASS_TO_PASS"])
    return all(t in passed for t in tests)


class FreshVenv:
    """Without Docker: the naive way without a cache, a new venv built per evaluation."""

    def __init__(self, instance: Instance, env: CodeRepairEnv) -> None:
        self.instance, self.tree = instance, env._tree

    def _fresh(self, patch: str | None) -> tuple[float, bool]:
        from codegym.envs.agentic.patches import apply_patch
        from codegym.envs.agentic.repairtask import run_pytest

        from codegym.sandbox import create

        task = self.instance.task
        tests = json.loads(task["FAIL_TO_PASS"]) + json.loads(task["PASS_TO_PASS"])
        started = time.perf_counter()
        ok = True
        old = os.environ.get("CODEGYM_CACHE")
        with tempfile.TemporaryDirectory() as cache:
            os.chmod(cache, 0o755)  # the sandbox uid reads the venv there
            os.environ["CODEGYM_CACHE"] = cache
            try:
                assert self.tree is not None
                built = ensure_env(InstallSpec.of(task), self.tree, "local")
                with create("local", workdir_from=self.tree, runtime=built.runtime, timeout_s=120) as sb:
                    if patch is None:
                        ok = sb.run("git status --short").ok
                    else:
                        ok = apply_patch(sb, patch)[0] and apply_patch(sb, task["test_patch"])[0]
                        results = run_pytest(sb, sorted({t.split("::")[0] for t in tests}))
                        ok = ok and all(results.outcomes.get(t) in ("passed", "xfailed") for t in tests)
            finally:
                if old is None:
                    os.environ.pop("CODEGYM_CACHE", None)
                else:
                    os.environ["CODEGYM_CACHE"] = old
        return time.perf_counter() - started, ok

    def reset(self) -> float:
        """A fresh venv and sandbox to the first command's result."""
        seconds, ok = self._fresh(None)
        assert ok
        return seconds

    def grade(self, patch: str) -> tuple[float, bool]:
        """A fresh venv, the patches applied, the tests run; (seconds, resolved)."""
        return self._fresh(patch)


# ---------------------------------------------------------------------------- ours
def ours_reset(env: CodeRepairEnv, first_command: bool) -> float:
    started = time.perf_counter()
    _, info = env.reset(seed=0)
    assert "infra_error" not in info, info["infra_error"]
    if first_command:
        env.sandbox.run("git status --short")
    return time.perf_counter() - started


def ours_grade(env: CodeRepairEnv, patch: str) -> tuple[float, bool]:
    env.reset(seed=0)
    env.sandbox.run("true")  # the sandbox is ready: a reset's start-up is not grading time
    started = time.perf_counter()
    _, reward, *_ = env.step(f"```diff\n{patch}```\n")
    return time.perf_counter() - started, reward == 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", default="pluggy", choices=sorted(k for k in DATA if not k.startswith("_")))
    parser.add_argument("--backend", default="docker", choices=["local", "docker"])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", default="auto", choices=["auto", "container", "venv"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        instance = build_instance(args.library, Path(tmp))
        print(f"instance {instance.task['instance_id']} ({DATA[args.library]['sdist']}), backend {args.backend}")
        one_off_build(instance)
        kw = {"tasks": [instance.task], "repo_root": tmp, "sandbox": args.backend}
        env = CodeRepairEnv(**kw, harness="bash")
        grader = CodeRepairEnv(**kw, hunk_credit=False)
        env.reset(seed=0)  # the cached env (built here on first use) and the prepared tree
        try:
            if args.baseline == "venv":
                raise RuntimeError("--baseline venv")
            from codegym.sandbox.docker import _client

            _client()
            baseline: DockerHarness | FreshVenv = DockerHarness(instance, env)
            print("baseline: a fresh container from the instance image per evaluation")
        except Exception as exc:  # noqa: BLE001 - no engine: the no-cache baseline
            if args.baseline == "container":
                raise
            baseline = FreshVenv(instance, env)
            print(f"baseline: a fresh venv per evaluation (no Docker: {exc})")
        gold = instance.diffs["gold"]
        ours_grade(grader, gold)  # warm
        baseline.grade(gold)
        o_obs, o_cmd, b_reset, o_grade, b_grade, ok = [], [], [], [], [], True
        for _ in range(args.runs):  # interleaved
            o_obs.append(ours_reset(env, first_command=False))
            o_cmd.append(ours_reset(env, first_command=True))
            b_reset.append(baseline.reset())
            seconds, resolved = ours_grade(grader, gold)
            o_grade.append(seconds)
            ok &= resolved
            seconds, resolved = baseline.grade(gold)
            b_grade.append(seconds)
            ok &= resolved
        if not ok:
            print("a gold run was not resolved (ours or the baseline): ratios refused")
        ratio("reset to first observation", o_obs, b_reset, ok)
        ratio("reset to first command result", o_cmd, b_reset, ok)
        ratio("grading the gold patch", o_grade, b_grade, ok)
        env.close()
        grader.close()


if __name__ == "__main__":
    main()
