"""The project stands on its own: no file points outside it, and the docs' links resolve.

The design contract used to live in a steering repository beside this one, and README and
source files pointed at the page there; users who install or clone codegym do not have
that folder. It is ``docs/contract.md`` now.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {
    ".git",
    ".venv",
    "build",
    "dist",
    "node_modules",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
}
# Built from parts so that this file does not hold the string it looks for.
OUTSIDE = ("..", "/shared/")
_LINK = re.compile(r"\]\((?!https?://|#|mailto:)([^)\s#]+)(?:#[^)]*)?\)")


def project_files() -> list[Path]:
    """Every file of the project's tree, build outputs and environments left out."""
    files = []
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        files += [Path(folder) / n for n in names]
    return files


def test_no_file_points_at_the_steering_folder_outside_the_project() -> None:
    needle = "".join(OUTSIDE).encode()
    offenders = [str(p.relative_to(ROOT)) for p in project_files() if needle in p.read_bytes()]
    assert not offenders, f"these files point outside the project, use docs/contract.md: {offenders}"


def test_no_file_names_the_old_design_page() -> None:
    needle = b"DESIGN" + b".md"
    offenders = [str(p.relative_to(ROOT)) for p in project_files() if needle in p.read_bytes()]
    assert not offenders, f"the design contract is docs/contract.md now; these files name the old page: {offenders}"


def test_relative_links_in_readme_and_docs_resolve() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in pages
        for target in _LINK.findall(page.read_text(encoding="utf-8"))
        if not (page.parent / target).exists()
    ]
    assert not broken, f"links to files that do not exist: {broken}"
