"""ImageToSVG-v0 and ImageToTikZ-v0: draw a target image as code, rewarded by render progress."""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from codegym.core import CodeEnv, Outcome, Task, extract_code
from codegym.core.spaces import UnicodeText
from codegym.core.tasks import TaskSet
from codegym.errors import InfraError
from codegym.sandbox import Sandbox, create

from . import tikz
from .grading import blank_canvas, grade_render
from .render import RenderResult, install_worker, render_svg
from .svgsplit import screen_raster, screen_svg
from .tasks import TargetCache, complete_task_data, default_cache_dir, image_folder_tasks, is_image_folder, load_image

#: Audit flags raised when the renderer was driven into its limits.
LIMIT_FLAGS = {"timed_out": "render_timeout", "oom": "render_memory_limit"}


class ImageToCodeEnv(CodeEnv):
    """Shared machinery of the image-to-code families; see :class:`ImageToSVGEnv` for the contract.

    Args:
        tasks: a folder (of images with optional reference code, or of task files), a
            JSON/JSONL file or a list of task dicts; None: the bundled generated set.
        sandbox: where rendering runs (see :class:`codegym.core.CodeEnv`).
        render_mode: ``"rgb_array"`` or None.
        max_turns: attempts per episode (default 1).
        record_timing: add wall-clock figures to ``info["timing"]``.
        split: default split (``train``/``test``) reset draws from.
        difficulty: default difficulty (``easy``/``medium``/``hard``).
        image_size: ``(width, height)`` of the target and renders, or one int for a square.
        length_weight: weight of the code-length term (0: off).
        fail_penalty: span value of an element that fails to render, in reward units.
        render_timeout_s: wall-clock limit of one grading's render.
        memory_mb: memory limit of the render sandbox.
        cache_dir: where rendered targets are cached (None: :func:`default_cache_dir`).

    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 1}
    language: ClassVar[str] = ""
    solved_threshold: ClassVar[float] = 0.99

    def __init__(
        self,
        tasks: str | Path | list[dict[str, Any]] | None = None,
        sandbox: str | dict[str, Any] | None = None,
        render_mode: str | None = None,
        max_turns: int = 1,
        record_timing: bool = False,
        split: str | None = None,
        difficulty: str | None = None,
        image_size: int | tuple[int, int] = 256,
        length_weight: float = 0.0,
        fail_penalty: float = 0.05,
        render_timeout_s: float = 30.0,
        memory_mb: int = 1024,
        cache_dir: str | Path | None = None,
    ) -> None:
        size = (image_size, image_size) if isinstance(image_size, int) else tuple(image_size)
        if len(size) != 2 or min(size) < 16:
            raise ValueError(f"image_size must be an int or (width, height) of at least 16 pixels, got {image_size!r}")
        if length_weight < 0 or fail_penalty < 0:
            raise ValueError(f"length_weight and fail_penalty must be >= 0, got {length_weight}, {fail_penalty}")
        self.image_size: tuple[int, int] = (int(size[0]), int(size[1]))
        self.length_weight, self.fail_penalty = float(length_weight), float(fail_penalty)
        self.render_timeout_s, self.memory_mb = float(render_timeout_s), int(memory_mb)
        self.cache = TargetCache(Path(cache_dir) if cache_dir else default_cache_dir() / self.language)
        w, h = self.image_size
        self.observation_space = spaces.Dict(
            {"text": UnicodeText(100_000), "image": spaces.Box(0, 255, (h, w, 3), np.uint8)}
        )
        super().__init__(tasks, sandbox, render_mode, max_turns, record_timing, split, difficulty)
        self._sandbox: Sandbox | None = None
        self._targets: OrderedDict[str, np.ndarray] = OrderedDict()

    # ------------------------------------------------------------------ tasks
    def load_tasks(self, tasks: str | Path | list[dict[str, Any]] | None) -> TaskSet:
        """The bundled set, a folder of images (PNG/JPEG + optional reference code), or task files."""
        if isinstance(tasks, (str, Path)) and is_image_folder(Path(tasks)):
            tasks = image_folder_tasks(Path(tasks), self.language)
        elif tasks is None:
            from importlib import resources

            tasks = Path(str(resources.files("codegym.assets").joinpath(self.language, "tasks.jsonl")))
        return TaskSet.load(tasks, parse=self.parse_task)

    def parse_task(self, task: Task) -> Task:
        """Check the task's fields; generated tasks get their gold code here (cheap, no render)."""
        return dataclasses.replace(task, data=complete_task_data(task.data, self.language, task.source, task.id))

    def target(self, task: Task) -> np.ndarray:
        """The target image of ``task`` (rendered from its code once, then cached on disk)."""
        if task.id in self._targets:
            return self._targets[task.id]
        img: np.ndarray | None
        if "image" in task.data:
            img = load_image(task["image"], self.image_size)
        else:
            key = TargetCache.key(self.language, task["code"], self.image_size)
            img = self.cache.get(key)
            if img is None or img.shape != (self.image_size[1], self.image_size[0], 3):
                result = self._render(task["code"], progress=False)
                if result.final is None:
                    raise InfraError(f"the reference code of task {task.id!r} does not render: {result.error}")
                img = result.final
                self.cache.put(key, img)
        self._targets[task.id] = img
        while len(self._targets) > 64:
            self._targets.popitem(last=False)
        return img

    # ------------------------------------------------------------------ episode
    def instruction(self, task: Task) -> str:
        """The prompt shown with the target image."""
        raise NotImplementedError

    def _start(self, task: Task) -> dict[str, Any]:
        target = self.target(task)
        self.episode.state["render"] = None  # type: ignore[union-attr]
        return {"text": self.instruction(task), "image": target.copy()}

    def gold_action(self) -> str:
        """The task's reference program in a fenced block (full reward)."""
        if self.episode is None:
            raise RuntimeError("call reset() first")
        code = self.episode.task.get("code")
        if code is None:
            raise ValueError(f"task {self.episode.task.id!r} has only an image: no reference code to submit")
        return f"```{'svg' if self.language == 'svg' else 'latex'}\n{code.rstrip()}\n```"

    def _grade(self, action: str) -> Outcome:
        assert self.episode is not None
        task = self.episode.task
        target = self.target(task)
        extracted = extract_code(action, self.language)
        if extracted is None:
            return self._final(
                Outcome(
                    self.floor_reward,
                    {"compile": 0.0},
                    f"No code found in the answer: give the {self.language.upper()} program in a fenced block.",
                    verdict={"compiled": False, "error": "no code"},
                )
            )
        code = extracted.code
        blocked = self.screen(code)
        if blocked:
            flags = sorted({f for f, _ in blocked})
            return self._final(
                Outcome(
                    self.floor_reward,
                    {"compile": 0.0},
                    "Not rendered: " + "; ".join(m for _, m in blocked),
                    verdict={"compiled": False, "error": "blocked", "blocked": flags},
                    audit_flags=flags,
                )
            )
        result = self._render(code, progress=True)
        ref = task.get("code")
        outcome, shown = grade_render(
            result,
            target,
            code,
            extracted.start,
            reference_length=len(ref) if isinstance(ref, str) else None,
            length_weight=self.length_weight,
            fail_penalty=self.fail_penalty,
        )
        outcome.audit_flags = [flag for attr, flag in LIMIT_FLAGS.items() if getattr(result, attr)]
        self.episode.state["render"] = shown
        return self._final(outcome)

    def _final(self, outcome: Outcome) -> Outcome:
        assert self.episode is not None
        solved = outcome.reward >= self.solved_threshold
        outcome.terminated = self.max_turns == 1 or solved
        if outcome.terminated:
            # A fresh observation every step: users keep what they were given (check_env).
            outcome.observation = {
                "text": self.instruction(self.episode.task),
                "image": self.target(self.episode.task).copy(),
            }
        return outcome

    def _next_observation(self, outcome: Outcome) -> dict[str, Any]:
        assert self.episode is not None
        text = f"{outcome.feedback}\n\n{self.instruction(self.episode.task)}"
        return {"text": text, "image": self.target(self.episode.task).copy()}

    def render(self) -> np.ndarray | None:  # type: ignore[override]
        """``rgb_array``: the current render (blank before any attempt) beside the target."""
        if self.episode is None:
            return None
        target = self.target(self.episode.task)
        current = self.episode.state.get("render")
        if current is None:
            current = blank_canvas(target.shape)
        gap = np.full((target.shape[0], 4, 3), 128, np.uint8)
        return np.concatenate([current, gap, target], axis=1)

    # ------------------------------------------------------------------ rendering
    def screen(self, code: str) -> list[tuple[str, str]]:
        """Reasons to refuse rendering ``code`` (flag, message); empty when clean."""
        raise NotImplementedError

    def _render(self, code: str, progress: bool) -> RenderResult:
        raise NotImplementedError

    def _sandbox_for(self, **create_kwargs: Any) -> Sandbox:
        if self._sandbox is None:
            spec = {"timeout_s": self.render_timeout_s, "memory_mb": self.memory_mb, **self.sandbox_spec}
            self._sandbox = create(**spec, **create_kwargs)
            self._on_new_sandbox(self._sandbox)
        return self._sandbox

    def _on_new_sandbox(self, sandbox: Sandbox) -> None:
        """Prepare a fresh sandbox (install workers)."""

    def _fork_resources(self, clone: CodeEnv) -> None:
        # Rendering keeps no state between gradings: a fork makes its own sandbox on demand.
        clone._sandbox = None  # type: ignore[attr-defined]
        clone._targets = OrderedDict(self._targets)  # type: ignore[attr-defined]

    def _close_resources(self) -> None:
        if getattr(self, "_sandbox", None) is not None:
            self._sandbox.close()  # type: ignore[union-attr]
            self._sandbox = None

    def _live_attributes(self) -> tuple[str, ...]:
        return ("_sandbox",)


class ImageToSVGEnv(ImageToCodeEnv):
    """Draw a target image as SVG; dense reward from the progress of intermediate renders.

    ## Description
    The observation shows a target image; the agent writes an SVG document that reproduces
    it. The document is rendered with cairosvg on a white background inside the codegym
    sandbox (time and memory limits, no network; file and network references are refused
    before rendering), and compared with the target. Every drawable element's prefix is
    rendered too, in the same single worker process (elements drawn one by one onto one
    cairo surface), which credits each element with how much it moved the picture toward
    the target.

    ## Action
    Text: the model's answer. The SVG is the last fenced block (```svg / ```xml preferred)
    or the whole text when unfenced.

    ## Observation
    ``Dict(text=instruction, image=Box(0, 255, (H, W, 3), uint8))``: the instruction and the
    target at ``image_size`` (default 256 x 256). After a non-final turn, ``text`` is the
    feedback followed by the instruction.

    ## Reward
    See :mod:`codegym.envs.image2code.grading`: ``similarity = 0.5 * SSIM(grey) + 0.5 *
    (1 - RMSE / 255)``; ``progress = (similarity - s_blank) / (1 - s_blank)`` where
    ``s_blank`` is a blank canvas's similarity; ``reward = clip(progress, 0, 1) -
    length_weight * length_term``; a document that does not render (parse error, an
    element raising, blocked reference, time or memory limit) earns 0 with the renderer's
    error (line and message) as feedback. ``info["token_rewards"]`` gives each drawable
    element ``(s_k - s_{k-1}) / (1 - s_blank)`` (failed elements: ``-fail_penalty``); the
    spans sum to ``progress - fail_penalty * n_failed``.
    ``reward_components``: compile, render_similarity, ssim, l2_similarity, progress,
    length_penalty.

    ## Starting state
    A task drawn with the seed among the matching split/difficulty; its target rendered
    (cached on disk) from the reference program, or loaded from the task's image.

    ## Episode end
    Termination: after the graded attempt when ``max_turns == 1``; otherwise when the reward
    reaches 0.99. Truncation: at ``max_turns`` attempts.

    ## Arguments
    See :class:`ImageToCodeEnv`.

    ## Version history
    * v0: initial version.
    """

    language: ClassVar[str] = "svg"

    def instruction(self, task: Task) -> str:
        """The prompt."""
        w, h = self.image_size
        return (
            f"Write an SVG document that reproduces the target image ({w}x{h} pixels, white background). "
            f'Use viewBox="0 0 {w} {h}"; draw with rect, circle, ellipse, line, polyline, polygon, path '
            "and text elements. External files, URLs and embedded pictures are not available. "
            "Answer with the SVG in a ```svg fenced block."
        )

    def screen(self, code: str) -> list[tuple[str, str]]:
        """Blocked constructs: entities/DTDs, external references and raster pictures.

        A picture (``<image>``, ``<foreignObject>``, ``<feImage>``, ``data:`` URLs) would let
        the answer paste the target's pixels instead of drawing it: flagged ``raster_image``,
        floor reward.
        """
        return screen_svg(code) + screen_raster(code)

    def _on_new_sandbox(self, sandbox: Sandbox) -> None:
        install_worker(sandbox)

    def _render(self, code: str, progress: bool) -> RenderResult:
        sandbox = self._sandbox_for()
        return render_svg(sandbox, code, self.image_size, progress=progress, timeout=self.render_timeout_s)


class ImageToTikZEnv(ImageToCodeEnv):
    r"""Draw a target image as TikZ; dense reward from the progress of intermediate renders.

    ## Description
    The observation shows a target image; the agent writes a TikZ picture reproducing it on
    a fixed canvas: ``(0,0)`` to ``(8,8)`` cm, y up, clipped to it. The picture is compiled
    with pdflatex (``standalone`` class, ``-no-shell-escape``, ``openin_any=p`` /
    ``openout_any=p``: nothing outside the job folder is read or written) and rasterised
    with pdftoppm, inside the codegym sandbox with time and memory limits. Shell escape,
    file access, macro definitions and ``^^`` escapes are refused before compiling. Every
    drawing command (up to its ``;``) gets a prefix page in the SAME LaTeX run, rasterised
    by ONE pdftoppm call, which credits each command with its progress.

    ## Action
    Text: a ``tikzpicture`` environment (or a whole document, or bare commands) in a fenced
    block (```latex / ```tex / ```tikz) or unfenced. Only the picture, its options and
    ``\usetikzlibrary`` names are used.

    ## Observation
    ``Dict(text=instruction, image=Box(0, 255, (H, W, 3), uint8))`` as in ImageToSVG-v0.

    ## Reward
    As in ImageToSVG-v0 (:mod:`codegym.envs.image2code.grading`), with elements = drawing
    commands. A LaTeX error in the program is a compile failure (reward 0, the error's line
    in the answer and TeX's message as feedback); commands that fail are left out of the
    later prefixes, so those still render.

    ## Starting state
    As in ImageToSVG-v0.

    ## Episode end
    As in ImageToSVG-v0.

    ## Arguments
    See :class:`ImageToCodeEnv`.

    ## Version history
    * v0: initial version.
    """

    language: ClassVar[str] = "tikz"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("render_timeout_s", 30.0)
        super().__init__(*args, **kwargs)
        self._stage = tikz.tex_stage(self.cache.folder.parent)

    def instruction(self, task: Task) -> str:
        """The prompt."""
        c = f"{tikz.CANVAS_CM:g}"
        return (
            "Write a TikZ picture that reproduces the target image (white background). The canvas is "
            f"(0,0) to ({c},{c}) in cm with y pointing up; anything outside is clipped. Colours can be given "
            "as {rgb,255:red,R;green,G;blue,B}. Files, packages and macro definitions are not available. "
            "Answer with \\begin{tikzpicture} ... \\end{tikzpicture} in a ```latex fenced block."
        )

    def screen(self, code: str) -> list[tuple[str, str]]:
        """Blocked constructs: shell escape, file access, macro definitions, ``^^`` escapes."""
        return tikz.screen_tikz(code)

    def _render(self, code: str, progress: bool) -> RenderResult:
        sandbox = self._sandbox_for(workdir_from=self._stage)
        return tikz.render_tikz(sandbox, code, self.image_size, progress=progress, timeout=self.render_timeout_s)
