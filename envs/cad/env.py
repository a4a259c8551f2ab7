"""TextToCAD-v0: write cadquery code for a described part; graded by its geometry."""

from __future__ import annotations

import ast
import os
import re
import time
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from codegym.core import CodeEnv, Outcome, Task, extract_code
from codegym.core.spaces import UnicodeText
from codegym.errors import TaskFormatError, did_you_mean

from .families import LEVELS
from .geometry import SCALE_MODES, Mesh, png_bytes, render_views
from .grade import Scorer, comparison_text, describe, step_spans
from .steps import audit_code, split_steps
from .targets import Target, load_target
from .worker import ColdRunner, RawAttempt, WarmWorker, shared_worker

_VERDICT = re.compile(r"^\W*verdict\W*[:\-]\s*(?P<word>done|revise|change)\b(?P<rest>.*)$", re.I)
_OUT_OF_MEMORY = re.compile(r"MemoryError|OutOfMemory|bad_alloc")
#: Audit flags that void an attempt (reward and audit reward go to the floor).
VOIDING_FLAGS = frozenset(
    {
        "process_spawn",
        "network",
        "signal",
        "native_code",
        "write_outside_workdir",
        "read_hidden_files",
        "worker_killed",
        "timeout",
        "memory_limit",
    }
)
RUNTIME_FLAGS = frozenset(
    {"process_spawn", "network", "signal", "native_code", "write_outside_workdir", "read_hidden_files"}
)
TESS_TOL = 1e-3  # tessellation deflection, relative to the part's bounding-box diagonal


class TextToCADEnv(CodeEnv):
    """Text-to-CAD: the model writes cadquery code for a described part.

    ## Description
    Each task is a mechanical part (plates with hole patterns, brackets, flanges, shafts with
    keyways, enclosures with fillets, approximated gears, revolved and lofted parts, ...)
    described in words at one of four levels of detail (``abstract``, ``beginner``,
    ``intermediate``, ``expert``: Text2CAD's levels; ``expert`` gives every dimension). The
    model's code runs in a real CAD kernel (OpenCascade via cadquery) inside the sandbox and
    the solid it leaves in ``result`` is compared with the reference part's geometry.
    On the local sandbox, execution happens in a warm worker: one bubblewrap-sandboxed
    process per env that has cadquery imported and forks a fresh child per attempt (CPU,
    memory and wall-clock limits, an audit hook against process spawning, sockets, signals
    and writes outside the attempt's folder). Envs of one process with the same sandbox and
    limits share that worker. On any other backend (``sandbox="docker"``) each attempt runs
    in a fresh interpreter in that backend's sandbox instead (``pool="cold"``: the same
    server code and limits, a cadquery import per attempt). Only meshes come back;
    everything graded is computed here.

    ## Action
    Text. Code is taken from the last fenced ```python block, else the whole text. With
    ``max_turns > 1`` an action without a fenced block that ends in a ``VERDICT:`` line (or
    does not parse as Python) is a *critique*: ``VERDICT: done`` ends the episode,
    ``VERDICT: revise: <what to change>`` asks for another turn. Code followed by
    ``VERDICT: done`` is run and then ends the episode.

    ## Observation
    ``Dict(text, image)``: ``text`` is the prompt on reset, later the feedback (the error
    trace, or the part's bounding box, volume and B-rep counts against the target's and the
    metrics); ``image`` is three shaded views (front, top, iso) of the last part side by
    side, ``(view_size, 3 * view_size, 3)`` uint8 (blank before the first part). The same
    views are in ``info["views_png"]`` as PNG bytes and come from ``render()``.

    ## Reward
    Per executed attempt, with ``f1``, ``chamfer``, ``hausdorff`` and ``iou`` as in
    :mod:`codegym.envs.cad.geometry` (``n_points`` seeded samples per surface, each one's
    distance to the other part's *triangles*, in units of the target's size;
    ``tau = f1_threshold``; IoU exact along ``128 x 128`` rays)::

        chamfer_score   = 1 / (1 + (chamfer / tau) ** 2)
        hausdorff_score = 1 / (1 + (hausdorff / tau) ** 2)
        score = 0.4 * f1 + 0.1 * chamfer_score + 0.3 * hausdorff_score + 0.2 * iou   (both parts closed)
        score = 0.6 * f1 + 0.1 * chamfer_score + 0.3 * hausdorff_score               (otherwise)

    Neither term depends on how a part was built or tessellated: on the 104 bundled parts an
    exact part built another way (split and fused, a reversed sketch) scores >= 0.997, and
    the part with the dimension that sets its size 5% too large scores <= 0.85.
    No code, a syntax error, an exception, no ``result``, an empty solid, the time or memory
    limit, or a voiding audit flag (process spawning, sockets, signals, native code, writes
    outside the work dir, killing the worker) score the floor, 0, with the reason as feedback.
    Single-turn (``max_turns=1``): ``reward = score``. Multi-turn (Generate, Execute,
    Critique, Rewrite, as RA-CAD): every step before the last earns 0 and the last step
    (a ``done`` critique, or the turn limit) earns the score of the last executed code, so
    the terminal reward is credited to the whole trajectory, critiques included.
    ``reward_components``: ``f1, precision, recall, chamfer, chamfer_score, hausdorff,
    hausdorff_score, iou`` (-1 when not computed), ``executed`` and ``score``.

    Token-level reward (``token_rewards=True``): the code runs statement by statement, each
    call of a cadquery method chain its own step; the geometry is scored after each step
    that changes it, and the step's character span gets ``f1_after - f1_before`` (from 0),
    so the spans of a fully correct part add up to its final F1.

    ## Starting state
    A part drawn with the seed (or ``options["task_id"]``), its description at ``detail``.

    ## Episode end
    Termination: single-turn after the one attempt; multi-turn on a ``VERDICT: done``.
    Truncation: at ``max_turns`` without a done verdict.

    ## Arguments
    tasks, sandbox, render_mode (``"rgb_array"`` or ``"ansi"``), max_turns, record_timing,
    split, difficulty: as :class:`~codegym.core.env.CodeEnv`.
    detail: description level (``abstract`` ... ``expert``); reset option ``detail`` too.
    scale_mode: ``"unit_cube"`` (centre and scale both parts to the unit cube: position and
    size do not count), ``"true"`` (compare in place, in millimetres), or ``"auto"``
    (``true`` at ``expert`` detail, which gives dimensions, else ``unit_cube``); reset option
    ``scale_mode`` too.
    n_points: points sampled per surface (8192). f1_threshold: ``tau`` (0.02 of the part size).
    point_seed: sampling seed. token_rewards: score each step (costs one tessellation each).
    timeout_s, memory_mb: per-attempt limits. pool: ``"auto"`` (warm on the local sandbox,
    else cold), ``"warm"`` (forking worker, local sandbox only) or ``"cold"`` (a fresh
    interpreter per attempt via ``Sandbox.run``, any backend). view_size: pixels per rendered view.

    ## Version history
    v0: initial version. Revised in place (issue 28): distances to triangles instead of to
    samples, IoU exact along rays, a Hausdorff term, an absolute tessellation deflection.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array", "ansi"], "render_fps": 1}
    bundled_tasks: ClassVar[str] = "cad"

    def __init__(
        self,
        tasks: Any = None,
        sandbox: str | dict[str, Any] | None = None,
        render_mode: str | None = None,
        max_turns: int = 1,
        record_timing: bool = False,
        split: str | None = None,
        difficulty: str | None = None,
        detail: str = "expert",
        scale_mode: str = "auto",
        n_points: int = 8192,
        f1_threshold: float = 0.02,
        point_seed: int = 0,
        token_rewards: bool = True,
        timeout_s: float = 30.0,
        memory_mb: int = 2048,
        pool: str = "auto",
        view_size: int = 128,
    ) -> None:
        _check_choice("detail", detail, LEVELS)
        _check_choice("scale_mode", scale_mode, (*SCALE_MODES, "auto"))
        _check_choice("pool", pool, ("auto", "warm", "cold"))
        if n_points < 64 or not 0 < f1_threshold < 1:
            raise ValueError(f"need n_points >= 64 and 0 < f1_threshold < 1, got {n_points} and {f1_threshold}")
        self.detail, self.scale_mode, self.n_points, self.tau = detail, scale_mode, n_points, f1_threshold
        self.point_seed, self.use_token_rewards, self.pool = point_seed, token_rewards, pool
        self.timeout_s, self.memory_mb, self.view_size = timeout_s, memory_mb, view_size
        self.observation_space = spaces.Dict(
            {
                "text": UnicodeText(1_000_000),
                "image": spaces.Box(0, 255, (view_size, 3 * view_size, 3), np.uint8),
            }
        )
        super().__init__(tasks, sandbox, render_mode, max_turns, record_timing, split, difficulty)
        backend = self.sandbox_spec.get("backend") or os.environ.get("CODEGYM_SANDBOX") or "local"
        if pool == "auto":
            self.pool = pool = "warm" if backend == "local" else "cold"
        if pool == "warm" and backend != "local":
            raise ValueError(
                f"pool='warm' runs on the local (bubblewrap) sandbox, got sandbox={self.sandbox_spec!r}; "
                "use pool='cold' for other backends"
            )
        self._worker: WarmWorker | ColdRunner | None = None
        self._scorer: Scorer | None = None
        self._views: dict[str, np.ndarray] = {}
        self.timing: dict[str, float] = {}

    # ------------------------------------------------------------------ tasks
    def parse_task(self, task: Task) -> Task:
        """Check a part: ``gold`` (script) and ``descriptions`` (level -> text) or ``description``."""
        task.require("gold", str)
        desc = task.get("descriptions")
        if desc is None:
            text = task.require("description", str)
            task.data["descriptions"] = {level: text for level in LEVELS}
        elif not isinstance(desc, dict) or not all(isinstance(desc.get(lv), str) for lv in LEVELS):
            raise TaskFormatError(
                task.source, "descriptions", f"expected a text for each of {list(LEVELS)} in task {task.id!r}"
            )
        return task

    def extra_reset_options(self) -> tuple[str, ...]:
        """``detail`` and ``scale_mode`` may be set per episode."""
        return ("detail", "scale_mode")

    # ------------------------------------------------------------------ episode
    def _runner(self) -> WarmWorker | ColdRunner:
        if self._worker is None:
            if self.pool == "warm":
                self._worker = shared_worker(self.sandbox_spec, self.timeout_s, self.memory_mb)
            else:
                self._worker = ColdRunner(self.sandbox_spec, self.timeout_s, self.memory_mb)
        return self._worker

    def target(self, task: Task | None = None) -> Target:
        """The reference geometry of ``task`` (default: the current one), computed once and cached."""
        task = task or self.episode.task  # type: ignore[union-attr]
        return load_target(task["gold"], TESS_TOL, self._runner().execute)

    def _start(self, task: Task) -> dict[str, Any]:
        opts = getattr(self, "_reset_options", {})
        detail = opts.get("detail", self.detail)
        mode = opts.get("scale_mode", self.scale_mode)
        _check_choice("detail", detail, LEVELS)
        _check_choice("scale_mode", mode, (*SCALE_MODES, "auto"))
        if mode == "auto":
            mode = "true" if detail == "expert" else "unit_cube"
        assert self.episode is not None
        self.episode.state.update(detail=detail, scale_mode=mode, score=None, components=None)
        target = self.target(task)
        self._scorer = Scorer(target, mode, self.n_points, self.tau, self.point_seed)
        self._views = {}
        text = (
            "Write cadquery (Python) code that builds this part and leaves it in a variable named `result` "
            "(a cq.Workplane, Shape or Assembly). Units are millimetres.\n\n"
            f"Part: {task['descriptions'][detail]}\n\n"
            + (
                "Only the shape counts: position and size are normalised away.\n"
                if mode == "unit_cube"
                else "Position and size count: build it where and as large as described.\n"
            )
        )
        if self.max_turns > 1:
            text += (
                f"\nYou have {self.max_turns} turns. After each run you see the result (errors, or your part's "
                "size, volume and face count against the target's, and three views). Reply with new code in a "
                "```python block, or with a critique that ends in a line `VERDICT: done` (stop) or "
                "`VERDICT: revise: <what to change>`.\n"
            )
        return {"text": text, "image": self._image()}

    def _image(self) -> np.ndarray:
        s = self.view_size
        if not self._views:
            return np.zeros((s, 3 * s, 3), dtype=np.uint8)
        return np.concatenate([self._views[k] for k in ("front", "top", "iso")], axis=1)

    # ------------------------------------------------------------------ grading
    def _grade(self, action: str) -> Outcome:
        assert self.episode is not None and self._scorer is not None
        st = self.episode.state
        multi = self.max_turns > 1
        last_turn = self.episode.turn >= self.max_turns
        code, verdict = _classify(action, multi)
        if code is None and multi and verdict is not None:
            return self._critique(verdict, last_turn)
        if code is None:
            out = self._floor(
                "no code found: put cadquery code in a ```python block that sets `result`", {"error": "no code"}
            )
        else:
            out = self._run(code.code, code.start)
        score = out.components.get("score", 0.0)
        if not multi:
            return out
        st["score"], st["components"] = score, dict(out.components)
        done = verdict is not None and verdict[0] == "done"
        out.terminated = done
        if not (done or last_turn):
            out.reward = 0.0
            out.audit_reward = 0.0
            out.feedback += "\n\nCritique the part, or write a corrected version."
        out.observation = {"text": out.feedback, "image": self._image()}
        return out

    def _critique(self, verdict: tuple[str, str], last_turn: bool) -> Outcome:
        st = self.episode.state  # type: ignore[union-attr]
        score = st["score"] or 0.0
        comps = dict(st["components"] or {"score": 0.0})
        done = verdict[0] == "done"
        if done:
            feedback = f"Done. Final part score {score:.3f}."
        else:
            feedback = f"Critique noted ({verdict[1].strip() or 'revise'}). Now write the corrected code."
        final = done or last_turn
        return Outcome(
            score if final else 0.0,
            comps,
            feedback,
            verdict={"kind": "critique", "verdict": verdict[0], "final_score": score},
            terminated=done,
            observation={"text": feedback, "image": self._image()},
        )

    def _floor(self, feedback: str, verdict: dict[str, Any], flags: list[str] | None = None) -> Outcome:
        self._views = render_views(None, self.view_size)
        comps = {
            "f1": 0.0,
            "precision": 0.0,
            "recall": 0.0,
            "chamfer": -1.0,
            "chamfer_score": 0.0,
            "hausdorff": -1.0,
            "hausdorff_score": 0.0,
            "iou": -1.0,
            "executed": 0.0,
            "score": 0.0,
        }
        return Outcome(
            self.floor_reward,
            comps,
            feedback,
            verdict={"kind": "code", **verdict},
            audit_flags=list(flags or []),
            audit_reward=self.floor_reward,
            observation={"text": feedback, "image": self._image()},
        )

    def _run(self, code: str, offset: int) -> Outcome:
        scorer = self._scorer
        assert scorer is not None
        flags = audit_code(code)
        try:
            steps = split_steps(code) if self.use_token_rewards else None
        except (SyntaxError, ValueError) as exc:
            msg = f"SyntaxError: {getattr(exc, 'msg', exc)} (line {getattr(exc, 'lineno', '?')})"
            return self._floor(msg, {"error": "syntax"}, flags)
        except (RecursionError, MemoryError):
            return self._floor(_TOO_DEEP, {"error": "syntax"}, flags)
        if steps is None:
            try:
                ast.parse(code)
            except (SyntaxError, ValueError) as exc:
                return self._floor(f"SyntaxError: {getattr(exc, 'msg', exc)}", {"error": "syntax"}, flags)
            except (RecursionError, MemoryError):
                return self._floor(_TOO_DEEP, {"error": "syntax"}, flags)
            req = [{"code": code, "snap": None}]
        else:
            req = [{"code": s.code, "snap": s.snap, "line": s.line} for s in steps]
        t0 = time.perf_counter()
        raw = self._runner().execute(req, code, "result", TESS_TOL)
        self._add_time("execution", time.perf_counter() - t0)
        meta = raw.meta
        events = meta.get("events") if isinstance(meta.get("events"), list) else []
        flags += [e[0] for e in events if isinstance(e, list) and e and e[0] in RUNTIME_FLAGS]
        if raw.timed_out:
            return self._floor(
                f"Time limit: the code ran longer than {self.timeout_s:g} s and was stopped.",
                {"error": "timeout"},
                [*flags, "timeout"],
            )
        err = meta.get("error") if isinstance(meta.get("error"), str) else None
        peak = meta.get("vm_peak_frac")
        near_cap = err is not None and isinstance(peak, (int, float)) and peak > 0.9
        if raw.memory or near_cap or _OUT_OF_MEMORY.search((err or "").strip().rsplit("\n", 1)[-1]):
            return self._floor(
                f"Memory limit: the code used more than {self.memory_mb} MB and was stopped.",
                {"error": "memory"},
                [*flags, "memory_limit"],
            )
        if raw.killed and err is None:
            return self._floor(
                f"The code crashed the CAD kernel ({raw.killed}); OpenCascade does this when an operation runs "
                f"out of memory (limit {self.memory_mb} MB) or gets degenerate input.",
                {"error": "crashed"},
                [*flags, "worker_killed"],
            )
        if err is not None:
            return self._floor(f"The code failed:\n{err}", {"error": "exception"}, flags)
        final = meta.get("final") if isinstance(meta.get("final"), dict) else None
        try:
            mesh = Mesh.checked(raw.arrays["vfinal"], raw.arrays["tfinal"])
        except (KeyError, ValueError) as exc:
            return self._floor(f"No usable geometry came back: {exc}", {"error": "no geometry"}, flags)
        if final is None or mesh.empty or not final.get("solids"):
            return self._floor(
                "`result` holds no solid (empty, or only faces/wires): extrude, revolve or loft it.",
                {"error": "empty solid"},
                flags,
            )
        self._add_time(
            "tessellation",
            sum(
                float(s.get("tess_s", 0))
                for s in [final, *meta.get("snaps", [])]
                if isinstance(s, dict) and isinstance(s.get("tess_s"), (int, float))
            ),
        )
        before = dict(scorer.timing)
        metrics = scorer.score(mesh)
        spans = self._spans(steps or [], meta, raw, offset)
        for k, v in scorer.timing.items():
            self._add_time(k, v - before.get(k, 0.0))
        self._views = render_views(mesh, self.view_size)
        mine, theirs = describe(mesh, final), describe(scorer.target.mesh, scorer.target.stats)
        voided = sorted(set(flags) & VOIDING_FLAGS)
        score = 0.0 if voided else metrics["reward"]
        feedback = "The code ran.\n" + comparison_text(mine, theirs, metrics, self.tau, scorer.scale_mode)
        if voided:
            feedback += f"\nScored 0: the code did {', '.join(voided)}, which CAD code must not do."
        comps = {
            "f1": metrics["f1"],
            "precision": metrics["precision"],
            "recall": metrics["recall"],
            "chamfer": metrics["chamfer"],
            "chamfer_score": metrics["cd_score"],
            "hausdorff": metrics["hausdorff"],
            "hausdorff_score": metrics["hd_score"],
            "iou": -1.0 if metrics["iou"] is None else metrics["iou"],
            "executed": 1.0,
            "score": score,
        }
        verdict = {
            "kind": "code",
            "error": None,
            "part": mine,
            "target": theirs,
            "metrics": {k: (None if v is None else round(float(v), 6)) for k, v in metrics.items()},
        }
        return Outcome(
            score,
            comps,
            feedback,
            token_rewards=[] if voided else spans,
            verdict=verdict,
            audit_flags=flags,
            audit_reward=score,
            observation={"text": feedback, "image": self._image()},
        )

    def _spans(
        self, steps: list[Any], meta: dict[str, Any], raw: RawAttempt, offset: int
    ) -> list[tuple[int, int, float]]:
        scorer = self._scorer
        assert scorer is not None
        scored = []
        for snap in meta.get("snaps", []) if isinstance(meta.get("snaps"), list) else []:
            if (
                not isinstance(snap, dict)
                or not isinstance(snap.get("step"), int)
                or not 0 <= snap["step"] < len(steps)
            ):
                continue
            key = str(snap.get("key"))
            try:
                mesh = Mesh.checked(raw.arrays["v" + key], raw.arrays["t" + key])
            except (KeyError, ValueError):
                continue
            f1 = 0.0 if mesh.empty else scorer.f1(mesh)
            step = steps[snap["step"]]
            scored.append((offset + step.start, offset + step.end, f1))
        return step_spans(scored)

    def _add_time(self, name: str, seconds: float) -> None:
        self.timing[name] = self.timing.get(name, 0.0) + seconds

    def _next_observation(self, outcome: Outcome) -> dict[str, Any]:
        # An action refused before grading (not text, too long): the feedback and the last views.
        return {"text": outcome.feedback, "image": self._image()}

    def step(self, action: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Grade one action (see the class docstring); ``info["views_png"]`` holds the views."""
        self.timing = {}
        obs, reward, terminated, truncated, info = super().step(action)
        info["views_png"] = {k: png_bytes(v) for k, v in self._views.items()}
        if self.record_timing:
            info.setdefault("timing", {}).update({f"{k}_s": v for k, v in self.timing.items()})
        return obs, reward, terminated, truncated, info

    def render(self) -> Any:
        """``rgb_array``: the three views of the last part; ``ansi``: the text."""
        if self.render_mode == "rgb_array":
            return self._image()
        return super().render()

    def gold_action(self) -> str:
        """The reference script in a fenced block, followed by ``VERDICT: done``."""
        assert self.episode is not None
        return f"```python\n{self.episode.task['gold']}```\nVERDICT: done\n"

    # ------------------------------------------------------------------ resources
    def _fork_resources(self, clone: CodeEnv) -> None:
        # The worker keeps no state between attempts, so a fork shares it (no new import).
        # copy.copy went through __getstate__, which drops live attributes: hand it over here.
        if self._worker is not None:
            self._worker.refs += 1
        clone._worker = self._worker  # type: ignore[attr-defined]
        clone._views = dict(self._views)  # type: ignore[attr-defined]
        clone.timing = {}  # type: ignore[attr-defined]

    def _close_resources(self) -> None:
        if self._worker is not None:
            self._worker.release()
            self._worker = None

    def _live_attributes(self) -> tuple[str, ...]:
        return ("_worker",)


def _classify(action: str, multi: bool) -> tuple[Any, tuple[str, str] | None]:
    """(extracted code or None, (verdict word, rest) or None) of an action."""
    verdict = None
    for line in reversed(action.strip().splitlines()):
        if line.strip():
            m = _VERDICT.match(line.strip())
            if m:
                word = m.group("word").lower()
                verdict = ("done" if word == "done" else "revise", m.group("rest").lstrip(" :-"))
            break
    has_fence = "```" in action or "~~~" in action
    code = extract_code(action, "python")
    if not multi or has_fence:
        return code, verdict
    if verdict is not None:
        return None, verdict
    if code is not None:
        try:
            ast.parse(code.code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None, ("revise", action.strip()[:200])
    return code, verdict


#: Feedback for code Python's compiler cannot build (a chain or expression nested too deeply).
_TOO_DEEP = (
    "SyntaxError: the code is nested too deeply for Python to compile (RecursionError or MemoryError); "
    "split long method chains and expressions into several statements."
)


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}.{did_you_mean(str(value), choices)}")
