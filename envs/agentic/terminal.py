"""Terminal-v0: Harbor / Terminal-Bench task folders, run unchanged."""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
import shlex
import shutil
import tarfile
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from codegym.core import Outcome, Task, TaskSet
from codegym.core.extract import Extracted
from codegym.errors import InfraError, SandboxError
from codegym.sandbox import Sandbox, check_aliases, create

from . import dockerfile as df
from .base import AgenticEnv
from .harbor import (
    Layout,
    fetches,
    layout,
    normalise,
    offline_failure,
    parse_pytest_summary,
    read_reward,
    read_tb1_folder,
    tb1_folders,
)
from .repo import STATE_DIR, cached_tree, tree_key

#: Folders Harbor's harness uses besides the Dockerfile's own: always aliases of work-dir folders.
HARBOR_DIRS = ("/tests", "/logs", "/solution")
#: Bump when prepared trees change shape: old cached trees are then not reused.
PREPARE_VERSION = "harbor-1"


class TerminalEnv(AgenticEnv):
    """Do a job in a shell (files, text, git, builds, configs, packaging, data wrangling).

    ## Description
    Harbor task folders (Terminal-Bench 2: ``task.toml``, ``instruction.md``,
    ``environment/Dockerfile``, ``tests/test.sh``, ``solution/solve.sh``) and the older
    Terminal-Bench layout (``task.yaml``, ``Dockerfile``, ``run-tests.sh``, ``solution.sh``),
    as their own harnesses run them (:mod:`.harbor`). The Dockerfile is applied
    (:mod:`.dockerfile`), once per task and cached: with the docker backend and its base
    image loaded, by ``docker build`` (the episode then runs on the image's own system);
    otherwise map the image to the sandbox's own system with ``CODEGYM_BASE_IMAGES`` or
    ``base_images=``, and its ``WORKDIR``, ``COPY``, ``ADD``, ``ENV`` and ``RUN`` steps run in
    order in a sandbox (either backend). Bundled: 22 Harbor tasks written for codegym
    in ``assets/terminal`` (``FROM codegym/sandbox``).

    ## Action
    ``harness="bash"`` (default): one command per step, ``submit`` to finish.
    ``"editor"``: JSON tool calls (view / create / str_replace / insert / undo_edit / bash / submit).

    ## Observation
    The instruction, the working directory and the harness help; then each command's output.

    ## Reward
    After the episode, with every process the agent started ended, ``/tests`` and ``/logs``
    are emptied (nothing the agent left there counts), the task's ``tests/`` is copied to
    ``/tests`` and the verifier runs in the Dockerfile's ``WORKDIR`` with its ``ENV``::

        Harbor:          reward = /logs/verifier/reward.json["reward"]
                                  (no "reward" key: reward.txt, else the mean of its numbers)
                                  or the number in /logs/verifier/reward.txt, clipped to [0, 1]
        Terminal-Bench:  reward = 1 if pytest's short summary lists >= 1 test and all passed, else 0
        reward = 0 if info["audit"]["flags"] is not empty

    A verifier that writes no reward (and did not time out) is ``info["infra_error"]``, as is a
    Dockerfile step that fails.

    ## Starting state
    The applied Dockerfile's files; the shell starts in its ``WORKDIR`` (``/app``) with its
    ``ENV``. Top-level folders (``/app``, ``/tests``, ``/logs``, ``/solution``) are links to
    folders of the work dir ``/sandbox``.

    ## Episode end
    Termination: ``submit``, or the task's agent time (``[agent].timeout_sec``) spent in
    commands. Truncation: ``max_turns`` reached (the work is graded as it is).

    ## Arguments
    See :class:`AgenticEnv` (``harness`` is ``bash`` or ``editor`` here), and
    ``base_images``: ``{FROM image (glob): "sandbox" or a local image}``, over the
    ``CODEGYM_BASE_IMAGES`` setting. A task's ``[environment]`` ``memory_mb`` and
    ``storage_mb`` set the sandbox's ``memory_mb`` and ``disk_mb`` unless ``sandbox=`` names them.

    ## Version history
    * v0: Harbor / Terminal-Bench task folders run unchanged (Dockerfile applied, /app,
      /tests, /logs/verifier rewards, task.toml timeouts and resources).
    """

    bundled_tasks = "terminal"
    default_harness = "bash"
    supported_harnesses = ("bash", "editor")

    def __init__(self, *args: Any, base_images: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        if base_images is not None and (
            not isinstance(base_images, Mapping)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in base_images.items())
        ):
            raise TypeError(
                f"base_images must map FROM image names to 'sandbox' or a local image, got {base_images!r}; "
                "e.g. base_images={'python:3.13-slim': 'sandbox'}"
            )
        self.base_images = dict(base_images or {})
        sandbox = kwargs.get("sandbox", args[1] if len(args) > 1 else None)
        self._user_limits = set(sandbox) - {"backend"} if isinstance(sandbox, dict) else set()
        super().__init__(*args, **kwargs)
        self._prepared: dict[Path, dict[str, Any]] = {}

    # ------------------------------------------------------------------ tasks
    def load_tasks(self, tasks: str | Path | list[dict[str, Any]] | None) -> TaskSet:
        """Harbor folders through the shared loader; Terminal-Bench 1 folders (``task.yaml``) here."""
        if isinstance(tasks, (str, Path)) and Path(tasks).is_dir():
            old = tb1_folders(Path(tasks))
            if old:
                others = [p for p in Path(tasks).iterdir() if p.is_dir() and (p / "task.toml").is_file()]
                loaded = [read_tb1_folder(p) for p in old] + [t for p in sorted(others) for t in TaskSet.load(p)]
                return TaskSet(self.parse_task(t) for t in loaded)
        return super().load_tasks(tasks)

    def parse_task(self, task: Task) -> Task:
        """Check the folder's layout (see :mod:`.harbor`); lift ``[metadata] difficulty``."""
        return normalise(task)

    # ------------------------------------------------------------------ preparing
    def _prepare(self, task: Task) -> Path:
        lay = layout(task)
        backend = self.sandbox_spec.get("backend") or _default_backend()
        if lay.dockerfile is not None:
            dockerfile = df.parse(lay.dockerfile.read_text(encoding="utf-8"), str(lay.dockerfile))
        else:
            dockerfile = df.Dockerfile(f"{lay.root}/task.toml", str(lay.docker_image), [])
        base = df.choose_base(dockerfile.base, df.base_mapping(self.base_images), backend, _image_loaded)
        key = tree_key(PREPARE_VERSION, task.id, backend, base, lay.context, str(lay.dockerfile or ""))
        if base == df.SANDBOX_BASE:
            tree = cached_tree(f"terminal-{key}", lambda t: self._build(t, lay, dockerfile, backend))
        else:
            tree = cached_tree(f"terminal-{key}", lambda t: self._docker_build(t, lay, dockerfile, base, key))
        meta = json.loads((tree.parent / "image.json").read_text())
        if meta.get("image") and not _image_loaded(meta["image"]):  # removed since: build it again
            shutil.rmtree(tree.parent, ignore_errors=True)
            return self._prepare(task)
        aliases = tuple(sorted({*meta["aliases"], *HARBOR_DIRS}))
        limits = dict(self.sandbox_spec)
        for field, value in (("memory_mb", lay.memory_mb), ("disk_mb", lay.storage_mb)):
            if value is not None and field not in self._user_limits:
                limits[field] = value
        self._prepared[tree] = {**meta, "aliases": aliases, "limits": limits}
        return tree

    def _docker_build(self, tree: Path, lay: Layout, dockerfile: df.Dockerfile, base: str, key: str) -> None:
        """``docker build`` the task image; ``tree`` gets its ``WORKDIR`` (the rest stays in the image)."""
        if lay.dockerfile is None:  # [environment].docker_image: the image as it is
            built = df.image_as_is(base)
        else:
            built = df.docker_build(
                dockerfile, lay.dockerfile, lay.context, base, f"codegym-task:{key}", lay.build_timeout_s
            )
        built.env.setdefault("PATH", df.IMAGE_PATH)
        if built.workdir.strip("/") == "":
            raise InfraError(f"{dockerfile.source}: the image's WORKDIR is /; give the task a WORKDIR such as /app")
        df.export_folder(built.tag, built.workdir, tree)
        self._write_state(tree, built.workdir, built.env, built.log, image=built.tag)

    def _build(self, tree: Path, lay: Layout, dockerfile: df.Dockerfile, backend: str) -> None:
        """Apply the Dockerfile in a sandbox; ``tree`` becomes its work dir, with the shell's start state."""
        # A folder the sandbox binds from the host (its Python's) cannot be a link too: a step that
        # writes there fails with its own error.
        taken = {p.strip("/").split("/")[0] for p in _bound_paths()}
        names = {n for n in df.top_folders(dockerfile) if n not in taken}
        aliases = list(check_aliases([f"/{n}" for n in names] + list(HARBOR_DIRS), _bound_paths()))
        # Scratch beside the cache: a snapshot of the build context (steps read one state of it,
        # and a full disk shows here, before any sandbox starts) and the work dir's first state.
        with tempfile.TemporaryDirectory(dir=tree.parent) as scratch:
            context, start = Path(scratch, "context"), Path(scratch, "start")
            if lay.context.is_dir():
                shutil.copytree(lay.context, context, symlinks=True)
            else:  # [environment].docker_image mapped to the sandbox: no build context
                context.mkdir()
            for alias in aliases:
                (start / alias.strip("/")).mkdir(parents=True)
            limits = {**self.sandbox_spec, "backend": backend, "timeout_s": lay.build_timeout_s}
            limits["max_output_bytes"] = 4 * 2**20
            with create(**limits, workdir_from=start, aliases=aliases) as sb:
                applied = df.apply_steps(dockerfile, context, sb, lay.build_timeout_s)
                shutil.copytree(_host_path(sb), tree, symlinks=True, dirs_exist_ok=True)
        self._write_state(tree, applied.workdir, applied.env, applied.log)

    @staticmethod
    def _write_state(tree: Path, workdir: str, env: dict[str, str], log: list[str], image: str | None = None) -> None:
        """The shell's start (``WORKDIR``, ``ENV``) and what the env needs to know, beside the tree."""
        for name in ("tests", "logs", "solution"):  # never part of the image: the harness fills them
            shutil.rmtree(tree / name, ignore_errors=True)
            (tree / name).mkdir()
        state = tree / STATE_DIR
        state.mkdir(exist_ok=True)
        (state / "cwd").write_text(workdir + "\n")
        (state / "vars").write_text("".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items()))
        present = sorted(f"/{p.name}" for p in tree.iterdir() if p.is_dir() and not p.name.startswith("."))
        meta = {"workdir": workdir, "env": env, "aliases": present, "log": log, "image": image}
        (tree.parent / "image.json").write_text(json.dumps(meta, indent=1))

    def new_sandbox(self, tree: Path | None) -> Sandbox:
        """A sandbox on ``tree`` with the task's aliases (``/app``, ``/tests``, ...) and limits."""
        meta = self._prepared.get(tree) if tree is not None else None
        if meta is None:
            return super().new_sandbox(tree)
        return create(**meta["limits"], workdir_from=tree, aliases=meta["aliases"], system_image=meta.get("image"))

    def _meta(self) -> tuple[Task, Layout, dict[str, Any]]:
        task = self.episode.task if self.episode else None
        if task is None or self._tree is None:
            raise RuntimeError("call reset() first")
        if self._tree not in self._prepared:  # an unpickled env: prepare again (cached, cheap)
            self._tree = self._prepare(task)
        return task, layout(task), self._prepared[self._tree]

    # ------------------------------------------------------------------ episode
    def _prompt(self, task: Task) -> str:
        return str(task["instruction"]).strip()

    def _first_observation(self, task: Task, preface: str = "") -> str:
        obs = super()._first_observation(task, preface)
        workdir = self._prepared.get(self._tree, {}).get("workdir", "/") if self._tree else "/"
        return obs.replace(
            "The repository is at /sandbox (your working directory).", f"Your working directory is {workdir}."
        )

    def _grade_harness(self, action: str) -> Outcome:
        """The bash/editor loop, within the task's agent time (``[agent].timeout_sec``)."""
        assert self.episode is not None
        state = self.episode.state
        _, lay, _ = self._meta()
        budget = lay.agent_timeout_s
        used = float(state.get("agent_s", 0.0))
        if budget is not None and used >= budget:
            outcome = self._submit("", None)
            outcome.feedback = (
                f"[agent time limit of {budget:g} s reached: the work was graded as it is]\n{outcome.feedback}"
            )
            return outcome
        saved = self.command_timeout
        if budget is not None:
            self.command_timeout = max(0.1, min(saved, budget - used))
        self._grading_s = 0.0
        started = time.monotonic()
        try:
            outcome = super()._grade_harness(action)
        finally:
            self.command_timeout = saved
        state["agent_s"] = used + time.monotonic() - started - self._grading_s
        if budget is not None and state["agent_s"] >= budget and not outcome.terminated:
            final = self._submit("", None)
            final.feedback = (
                f"{outcome.feedback}\n[agent time limit of {budget:g} s reached: the work was graded as it is]\n"
                f"{final.feedback}"
            )
            return final
        return outcome

    # ------------------------------------------------------------------ grading
    def _evaluate(self, action: str, code: Extracted | None) -> Outcome:
        started = time.monotonic()
        try:
            return self._verify()
        finally:
            self._grading_s = getattr(self, "_grading_s", 0.0) + time.monotonic() - started

    def _verify(self) -> Outcome:
        task, lay, meta = self._meta()
        sb = self.sandbox
        # The agent's processes are gone (nothing outlives a run). What it left in /tests or
        # /logs is removed (a pre-written reward.txt must not count), even as links or
        # read-only folders, and the task's tests are copied in fresh.
        reset = "chmod -R u+w /sandbox/tests /sandbox/logs 2>/dev/null; rm -rf /sandbox/tests /sandbox/logs"
        res = sb.run(["/bin/sh", "-c", f"{reset}; mkdir -p /sandbox/logs/verifier /sandbox/logs/agent"], timeout=60)
        if not res.ok:
            raise InfraError(f"could not empty /tests and /logs before the verifier: {res.stderr[-500:]}")
        sb.copy_in(str(lay.tests) if lay.tests.is_dir() else _empty_dir(), "tests")
        for extra in lay.extra_test_files:
            sb.copy_in(str(extra), f"tests/{extra.name}")
        workdir = meta["workdir"]
        # A fresh HOME under the emptied /logs: dot-files the agent left in its HOME (a git
        # config with hooks, a Python user site) do not run inside the verifier.
        env = {"HOME": "/logs/verifier/home", **meta["env"], **lay.verifier_env}
        env |= {"PWD": workdir, "TEST_DIR": "/tests", "PYTHONNOUSERSITE": "1"}
        # cd inside, not as the run's folder: a WORKDIR the agent removed fails the checks, not the run.
        script = 'mkdir -p "$HOME"; cd "$1" 2>/dev/null || cd /; exec bash "$2"'
        argv = ["/bin/sh", "-c", script, "sh", workdir, f"/tests/{lay.test_script}"]
        res = sb.run(argv, timeout=lay.verifier_timeout_s, env=env)
        output = _steady(res.stdout + res.stderr)[-1500:]
        scripts = [*sorted(lay.tests.glob("*.sh")), *lay.extra_test_files] if lay.tests.is_dir() else []
        offline = offline_failure(res.stdout + res.stderr) if fetches(scripts) else None
        if offline is not None:
            # The task's verifier downloads its tools (Harbor's usual 'curl ... uv | sh'); with
            # no network here it cannot grade anything: the machine's limit, not the attempt's.
            return Outcome(
                0.0,
                {},
                feedback=f"the task's verifier needs the network, which the sandbox does not have: {offline}",
                verdict={"exit_code": res.exit_code, "error": "verifier_needs_network"},
                infra_error=f"the task's verifier needs the network (no network in the sandbox): {offline}",
            )
        if lay.kind == "terminal-bench":
            return _tb1_outcome(res.stdout + res.stderr, res.timed_out, lay.verifier_timeout_s)
        files = {name: _read(sb, f"logs/verifier/{name}") for name in ("reward.json", "reward.txt")}
        if res.timed_out and files["reward.json"] is None and files["reward.txt"] is None:
            return Outcome(
                0.0,
                {"reward": 0.0},
                feedback=f"the verifier timed out after {lay.verifier_timeout_s:g} s\n{output}",
                verdict={"verifier_timed_out": True, "exit_code": res.exit_code, "solved": False},
            )
        try:
            raw, metrics = read_reward(files["reward.json"], files["reward.txt"])
        except ValueError as exc:
            return Outcome(
                0.0,
                {},
                feedback=f"{exc}\n{output}",
                verdict={"exit_code": res.exit_code, "error": str(exc)},
                infra_error=f"the task's verifier gave no reward: {exc} (exit {res.exit_code})",
            )
        reward = min(1.0, max(0.0, raw))
        return Outcome(
            reward,
            {**{f"metric_{k}": v for k, v in metrics.items() if k != "reward"}, "reward": reward},
            feedback=f"verifier reward {raw:g}\n{output}",
            verdict={
                "reward": raw,
                "metrics": metrics,
                "exit_code": res.exit_code,
                "solved": reward >= 1.0,
                "source": "reward.json" if files["reward.json"] is not None else "reward.txt",
            },
        )

    def _evaluate_with_audit(self, action: str, code: Extracted | None) -> Outcome:
        # The gold's own upload to /solution (Harbor's oracle path) is not an attempt to read it.
        assert self.episode is not None
        state = self.episode.state
        commands = state.get("commands", [])
        gold = self._gold_script()
        state["commands"] = [c for c in commands if c.strip() != gold]
        try:
            return super()._evaluate_with_audit(action, code)
        finally:
            state["commands"] = commands

    def gold_action(self) -> str:
        """Uploads the solution folder to ``/solution`` and runs its script from ``WORKDIR``, then submits."""
        script = self._gold_script()
        if self.harness == "bash":
            return f"````bash\n{script}\nsubmit\n````\n"
        return json.dumps([{"tool": "bash", "command": script}, {"tool": "submit"}])

    def _gold_script(self) -> str:
        _, lay, meta = self._meta()
        buf = io.BytesIO()

        def plain(info: tarfile.TarInfo) -> tarfile.TarInfo:
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            return info

        # The same bytes every time (no gzip time stamp): the gold action is deterministic.
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
            if lay.kind == "harbor":
                tar.add(lay.solution, arcname=".", filter=plain)
            else:
                tar.add(lay.solution / lay.solve_script, arcname=lay.solve_script, filter=plain)
        blob = base64.b64encode(buf.getvalue()).decode()
        exports = "".join(f"export {k}={shlex.quote(v)}; " for k, v in lay.solution_env.items())
        return (
            f"mkdir -p /solution && printf %s '{blob}' | base64 -d | tar -xzf - -C /solution && "
            f"cd {shlex.quote(meta['workdir'])} && {exports}bash /solution/{lay.solve_script}"
        )


def _tb1_outcome(output: str, timed_out: bool, timeout: float) -> Outcome:
    results = parse_pytest_summary(output)
    passed = sum(results.values()) if results else 0
    total = len(results or {})
    solved = bool(results) and passed == total
    lines = [f"tests: {passed}/{total} pass" if results is not None else "no pytest short summary in the output"]
    if timed_out:
        lines.append(f"the tests timed out after {timeout:g} s")
    failing = [n for n, ok in (results or {}).items() if not ok]
    if failing:
        lines.append("failing: " + ", ".join(failing[:10]))
    return Outcome(
        1.0 if solved else 0.0,
        {"checks": passed / total if total else 0.0, "solved": 1.0 if solved else 0.0},
        feedback="\n".join(lines) + "\n" + _steady(output)[-1500:],
        verdict={"tests": results, "passed": passed, "total": total, "solved": solved, "parse_error": results is None},
    )


def _steady(output: str) -> str:
    """The verifier's output without its run times (``2 passed in 0.05s``): ``info`` holds no wall-clock figures."""
    return _DURATION.sub("in <time>", output)


_DURATION = re.compile(r"\bin \d+(?:\.\d+)?s\b(?: \(\d+:\d\d:\d\d\))?")


def _read(sb: Sandbox, path: str) -> bytes | None:
    try:
        return sb.read_file(path)
    except (SandboxError, OSError):
        return None


def _host_path(sb: Sandbox) -> Path:
    path = getattr(sb, "host_path", None)
    if path is None:
        raise InfraError(f"the {sb.backend} sandbox does not expose its work dir to the host")
    return Path(path)


def _empty_dir() -> str:
    return tempfile.mkdtemp(prefix="codegym-empty-tests-")


def _bound_paths() -> list[str]:
    from codegym.sandbox.local import _system_paths

    return _system_paths()


def _default_backend() -> str:
    import os

    return os.environ.get("CODEGYM_SANDBOX") or "local"


def _image_loaded(name: str) -> bool:
    try:
        from codegym.sandbox.docker import _client

        return bool(_client().images.list(name=name))
    except Exception:  # noqa: BLE001 - no engine: no image
        return False
