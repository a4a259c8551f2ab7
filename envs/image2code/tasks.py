"""Image-to-code tasks: the bundled generated set, a user's folder of images, and target caching.

A task holds either ``code`` (a reference program whose render is the target), a
``generator`` + ``seed`` + ``difficulty`` (the bundled index: the program is generated at
load time, see :mod:`.generate`), or ``image`` (a PNG/JPEG file, optionally with reference
``code``). Targets rendered from code are cached on disk under a key made from the
language, the code, the size and :data:`RENDERER_VERSION`, so a task renders once per
machine, not once per reset.
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from codegym.errors import TaskFormatError

from . import generate

#: Bump when a renderer change alters pixels: old cached targets are then ignored.
RENDERER_VERSION = "1"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
CODE_SUFFIXES = {"svg": (".svg",), "tikz": (".tex", ".tikz")}


def default_cache_dir() -> Path:
    """``$CODEGYM_CACHE_DIR/image2code``, else ``~/.cache/codegym/image2code``."""
    root = os.environ.get("CODEGYM_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "codegym")
    return Path(root) / "image2code"


def load_image(path: str | Path, size: tuple[int, int]) -> np.ndarray:
    """An image file as ``(H, W, 3)`` uint8 on white, fitted into ``size`` keeping its aspect ratio."""
    with Image.open(path) as im:
        im.load()
        rgba = im.convert("RGBA")
    canvas = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    canvas.alpha_composite(rgba)
    rgb = canvas.convert("RGB")
    w, h = size
    scale = min(w / rgb.width, h / rgb.height)
    fitted = rgb.resize((max(1, round(rgb.width * scale)), max(1, round(rgb.height * scale))), Image.Resampling.LANCZOS)
    out = Image.new("RGB", (w, h), (255, 255, 255))
    out.paste(fitted, ((w - fitted.width) // 2, (h - fitted.height) // 2))
    return np.asarray(out, dtype=np.uint8).copy()


def is_image_folder(path: Path) -> bool:
    """True when ``path`` is a folder holding image files (and no task folders or JSON)."""
    if not path.is_dir():
        return False
    names = [p for p in path.iterdir() if not p.name.startswith(".")]
    return any(p.suffix.lower() in IMAGE_SUFFIXES for p in names) and not any(
        p.suffix in (".json", ".jsonl") or (p / "task.toml").exists() or (p / "task.json").exists() for p in names
    )


def image_folder_tasks(folder: Path, language: str) -> list[dict[str, Any]]:
    """One task per image in ``folder``; ``name.svg`` / ``name.tex`` next to it is its reference code."""
    tasks = []
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() not in IMAGE_SUFFIXES or p.name.startswith("."):
            continue
        task: dict[str, Any] = {"id": p.stem, "image": str(p)}
        for suffix in CODE_SUFFIXES[language]:
            ref = p.with_suffix(suffix)
            if ref.is_file():
                task["code"] = ref.read_text(encoding="utf-8")
                break
        tasks.append(task)
    return tasks


def complete_task_data(data: dict[str, Any], language: str, source: str, task_id: str) -> dict[str, Any]:
    """Check a task's fields and fill in generated code; raises TaskFormatError naming the field."""
    data = dict(data)
    if "generator" in data or "seed" in data:
        if data.get("generator", "scene-v1") != "scene-v1":
            raise TaskFormatError(source, "generator", f"unknown generator {data['generator']!r}; known: 'scene-v1'")
        seed, difficulty = data.get("seed"), data.get("difficulty")
        if not isinstance(seed, int) or difficulty not in generate.DIFFICULTIES:
            raise TaskFormatError(
                source,
                "seed",
                f"generated task {task_id!r} needs an int seed and a difficulty in {list(generate.DIFFICULTIES)}",
            )
        data.setdefault("code", generate.gold_code(language, seed, difficulty))
    if "code" not in data and "image" not in data:
        raise TaskFormatError(
            source,
            "code",
            f"task {task_id!r} needs 'code' (reference program), 'image' "
            "(a PNG/JPEG path) or 'seed' + 'difficulty' (generated)",
        )
    if "code" in data and not isinstance(data["code"], str):
        raise TaskFormatError(source, "code", f"expected a string, got {type(data['code']).__name__}")
    if "image" in data and not Path(data["image"]).is_file():
        raise TaskFormatError(source, "image", f"no image file at {data['image']!r}")
    return data


class TargetCache:
    """Rendered targets on disk (``.npy``), keyed by a hash of what made them.

    Args:
        folder: where the files go (created on first write).

    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @staticmethod
    def key(language: str, code: str, size: tuple[int, int]) -> str:
        """The cache key of the render of ``code``."""
        blob = f"{RENDERER_VERSION}\0{language}\0{size[0]}x{size[1]}\0{code}".encode()
        return hashlib.sha256(blob).hexdigest()

    def get(self, key: str) -> np.ndarray | None:
        """The cached image, or None."""
        path = self.folder / f"{key}.npy"
        try:
            return np.load(io.BytesIO(path.read_bytes()))
        except (OSError, ValueError):
            return None

    def put(self, key: str, image: np.ndarray) -> None:
        """Store an image (atomically: a reader never sees half a file)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{key}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            np.save(f, image)
        os.replace(tmp, self.folder / f"{key}.npy")
