r"""TikZ: split a picture into drawing commands, screen it, render every prefix in ONE LaTeX run.

The action may be a whole LaTeX document, a ``tikzpicture`` environment, or bare commands;
only the picture's body, its options and ``\usetikzlibrary`` names are used. The renderer
writes one document with a page per prefix (commands ``1..k``, failed ones left out,
open scopes and braces closed) and a last page holding the program as written; pdflatex
compiles it once and pdftoppm rasterises every page in one call. The canvas is fixed:
``(0,0)`` to ``(CANVAS_CM, CANVAS_CM)`` centimetres, y pointing up, clipped to it.

Sandboxing: pdflatex runs in the codegym sandbox with ``-no-shell-escape`` and kpathsea's
``openin_any=p`` / ``openout_any=p`` (no reading or writing outside the job folder). On top
of that :func:`screen_tikz` blocks, before anything runs, what has no place in a drawing:
shell escape, file access, macro definitions (endless loops) and ``^^`` escapes that
would smuggle any of these past the screen.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from codegym.sandbox import Sandbox

from .render import RenderResult

#: Width and height of the canvas in cm.
CANVAS_CM = 8.0
#: The most LaTeX runs one grading makes (each failing run drops the commands it blamed).
MAX_RUNS = 4

_BEGIN = re.compile(r"\\begin\s*\{tikzpicture\}")
_END = re.compile(r"\\end\s*\{tikzpicture\}")
_LIBS = re.compile(r"\\usetikzlibrary\s*\{([\w.,\s-]*)\}")


@dataclass(frozen=True)
class Picture:
    r"""What the renderer takes from an action.

    Attributes:
        options: the picture's options (text inside ``[...]``), or "".
        body_start: offset of the body in the code.
        body: the text between ``\begin{tikzpicture}[...]`` and ``\end{tikzpicture}``.
        libraries: ``\usetikzlibrary`` names.

    """

    options: str
    body_start: int
    body: str
    libraries: tuple[str, ...]


@dataclass(frozen=True)
class Command:
    r"""One drawing command.

    Attributes:
        start: offset of its first character in the code.
        end: offset just past its ``;`` (or its ``\foreach`` body).
        closers: what closes it when it was cut off (braces, ``;``), else "".
        open_at: the scopes still open after it, as an index into ``open_scopes`` (-1: none).
        open_scopes: ``(name, parent index)`` of every scope that was ever open, shared by the
            commands of one split (a persistent stack: linear memory however deep they nest).

    """

    start: int
    end: int
    closers: str
    open_at: int = -1
    open_scopes: list[tuple[str, int]] = field(default_factory=list, compare=False, repr=False)

    @property
    def scopes(self) -> str:
        r"""``\end{...}`` of the scopes still open after it."""
        out, at = [], self.open_at
        while at >= 0:
            name, at = self.open_scopes[at]
            out.append(f"\\end{{{name}}}")
        return "".join(out)


def parse_picture(code: str) -> Picture:
    """Find the picture in ``code`` (a document, an environment, or bare commands)."""
    libs = tuple(n.strip() for m in _LIBS.finditer(code) for n in m.group(1).split(",") if n.strip())
    m = _BEGIN.search(code)
    if m is None:
        body = _LIBS.sub(lambda x: " " * len(x.group(0)), code)
        return Picture("", 0, body, libs)
    i = j = m.end()
    options = ""
    while j < len(code) and code[j] in " \t\r\n":
        j += 1
    if j < len(code) and code[j] == "[":
        close = _match(code, j, "[", "]")
        options = code[j + 1 : close]
        i = min(len(code), close + 1)
    e = _END.search(code, i)
    return Picture(options, i, code[i : e.start() if e else len(code)], libs)


def _match(text: str, i: int, open_: str, close: str) -> int:
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return j
    return len(text)


_STRUCT = re.compile(r"\\(begin|end)\s*\{(\w+)\}")


def split_tikz(code: str, picture: Picture | None = None) -> list[Command]:
    r"""The drawing commands of the picture in ``code``, each up to its ``;`` at brace depth 0.

    ``\foreach`` ends with its body group; ``\begin{scope}``/``\end{scope}`` are structure
    (closed in prefixes); comments are skipped; a command cut off at the end of the text
    gets its braces and ``;`` closed.
    """
    pic = picture or parse_picture(code)
    text, base = pic.body, pic.body_start
    out: list[Command] = []
    scopes: list[tuple[str, int]] = []  # (name, index into open_scopes)
    open_scopes: list[tuple[str, int]] = []

    def top() -> int:
        return scopes[-1][1] if scopes else -1

    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
            continue
        if c == "%":
            nl = text.find("\n", i)
            i = n if nl < 0 else nl + 1
            continue
        m = _STRUCT.match(text, i)
        if m:
            if m.group(1) == "begin":
                open_scopes.append((m.group(2), top()))
                scopes.append((m.group(2), len(open_scopes) - 1))
                i = m.end()
                while i < n and text[i] in " \t":
                    i += 1
                if i < n and text[i] == "[":
                    i = min(n, _match(text, i, "[", "]") + 1)
            else:
                if scopes and scopes[-1][0] == m.group(2):
                    scopes.pop()
                i = m.end()
            continue
        start, depth, groups = i, 0, 0
        foreach = text.startswith("\\foreach", i)
        ended = False
        while i < n:
            c = text[i]
            if c == "\\":
                i += 2
                continue
            if c == "%":
                nl = text.find("\n", i)
                i = n if nl < 0 else nl
                continue
            i += 1
            if c == "{":
                depth += 1
            elif c == "}":
                depth = max(0, depth - 1)
                if depth == 0:
                    groups += 1
                    if foreach and groups == 2:
                        ended = True
                        break
            elif c == ";" and depth == 0:
                ended = True
                break
        end = min(i, n)
        closers = "" if ended else "}" * depth + ";"  # cut off at the end of the text: close what is open
        out.append(Command(base + start, base + end, closers, top(), open_scopes))
    return out


#: Most prefix pages of one grading (each page holds the picture up to a command).
MAX_PAGES = 256
#: Most characters of picture text all prefix pages of one grading hold together.
MAX_PREFIX_TEXT = 2_000_000


def progress_commands(cmds: list[Command], body_length: int) -> list[Command]:
    """The commands credited one by one: ``cmds``, or runs of them merged when there are many.

    Every prefix page repeats the picture up to its command, so a page per command would
    make the LaTeX job (and the host's work writing it) quadratic in the action's length.
    At most ``min(MAX_PAGES, MAX_PREFIX_TEXT // body_length)`` pages are made (at least
    one): consecutive commands are merged into that many runs, each credited as one
    element spanning its commands. The bundled tasks have a few dozen commands at most.
    """
    pages = max(1, min(MAX_PAGES, MAX_PREFIX_TEXT // max(1, body_length)))
    if len(cmds) <= pages:
        return cmds
    n = len(cmds)
    out, first = [], 0
    for g in range(pages):
        last = (g + 1) * n // pages - 1
        out.append(replace(cmds[last], start=cmds[first].start))
        first = last + 1
    return out


# --------------------------------------------------------------------------- screening
_BLOCKED = [
    ("shell_escape", re.compile(r"\\(?:write18|immediate|ShellEscape|directlua|luaexec|pdfshellescape)(?![A-Za-z])")),
    (
        "external_reference",
        re.compile(
            r"\\(?:input|include|InputIfFileExists|openin|openout|read|readline|write|newread|newwrite|"
            r"includegraphics|pgfimage|pgfdeclareimage|lstinputlisting|verbatiminput|special|pdfobj|"
            r"pdfximage|pdffiledump|pdfmdfivesum|pdffilesize|usepackage|RequirePackage|documentclass)(?![A-Za-z])"
            r"|file://|https?://"
        ),
    ),
    (
        "macro_definition",
        re.compile(
            r"\\(?:def|edef|gdef|xdef|let|futurelet|newcommand|renewcommand|providecommand|"
            r"DeclareRobustCommand|csname|expandafter|loop|catcode|uccode|lccode|afterassignment|"
            r"everypar|everyjob|pgfkeys|newenvironment|scantokens)(?![A-Za-z])"
            r"|/\.(?:code|ecode|estyle|expand once|expanded)\b"
        ),
    ),
    ("caret_escape", re.compile(r"\^\^")),
    (
        "document_structure",
        re.compile(r"\\(?:begin|end)\s*\{document\}|\\(?:endinput|dump|batchmode|errorstopmode|end)(?![A-Za-z{\s])"),
    ),
]


def screen_tikz(code: str) -> list[tuple[str, str]]:
    r"""Reasons to refuse compiling the picture: ``(flag, message)`` pairs; empty when clean.

    Only the parts the renderer uses are screened (the picture body, its options and the
    ``\usetikzlibrary`` lines); a preamble the renderer drops cannot do anything.
    """
    pic = parse_picture(code)
    text = pic.options + "\n" + pic.body
    found: list[tuple[str, str]] = []
    for flag, pattern in _BLOCKED:
        m = pattern.search(text)
        if m:
            found.append((flag, f"{m.group(0)!r} is not allowed in a drawing ({flag.replace('_', ' ')})"))
    return found


# --------------------------------------------------------------------------- rendering
_ERROR = re.compile(r"^\./job\.tex:(\d+): (.*)$", re.M)


def _scrub(text: str) -> str:
    # A blank line is a \par; inside a command it would end it early. A comment line keeps
    # the line numbers (for error attribution) and is not a \par.
    return re.sub(r"\n[ \t]*(?=\n)", "\n%", text)


class _Doc:
    """The LaTeX job: lines plus who owns each (page, element) for error attribution."""

    def __init__(self, libraries: tuple[str, ...]) -> None:
        libs = [x for x in libraries if re.fullmatch(r"[\w.-]+", x)]
        self.lines = ["\\documentclass[tikz,border=0pt]{standalone}"]
        if libs:
            self.lines.append("\\usetikzlibrary{" + ",".join(libs) + "}")
        self.lines.append("\\begin{document}")
        self.owner: list[tuple[int, int | None]] = [(-1, None)] * len(self.lines)
        self.pages = 0

    def add(self, text: str, page: int, element: int | None) -> None:
        for line in text.split("\n"):
            self.lines.append(line)
            self.owner.append((page, element))

    def page(self, options: str, parts: list[tuple[str, int | None]]) -> int:
        """Add a page; returns the line number (1-based) where its first part starts."""
        p, c = self.pages, f"{CANVAS_CM:g}"
        self.add(
            f"\\begin{{tikzpicture}}[x=1cm,y=1cm]\n\\useasboundingbox (0,0) rectangle ({c},{c});\n"
            f"\\clip (0,0) rectangle ({c},{c});\n\\begin{{scope}}[{options}]",
            p,
            None,
        )
        first = len(self.lines) + 1
        for text, element in parts:
            # The empty line after each command is a \par: a command that runs away
            # (an unclosed parenthesis) stops there instead of eating the later pages.
            self.add(text + "\n", p, element)
        self.add("\\end{scope}\n\\end{tikzpicture}", p, None)
        self.pages += 1
        return first

    def text(self) -> str:
        return "\n".join([*self.lines, "\\end{document}", ""])


def _prefix_parts(
    code: str, pic: Picture, cmds: list[Command], k: int, failed: dict[int, str]
) -> list[tuple[str, int | None]]:
    """The picture up to command ``k`` (failed commands left out, the rest closed) as owned parts."""
    parts: list[tuple[str, int | None]] = []
    last = pic.body_start
    for i in range(k + 1):
        c = cmds[i]
        if code[last : c.start].strip():
            parts.append((_scrub(code[last : c.start]), None))  # scopes, comments
        if i not in failed:
            parts.append((_scrub(code[c.start : c.end] + c.closers), i))
        last = c.end
    parts.append((cmds[k].scopes, None))
    return parts


def render_tikz(
    sandbox: Sandbox, code: str, size: tuple[int, int], *, progress: bool = True, timeout: float | None = None
) -> RenderResult:
    """Render the picture in ``code`` and (with ``progress``) every command prefix.

    One pdflatex run makes every page and one pdftoppm call rasterises them; when commands
    fail, the run is repeated without them (at most ``MAX_RUNS`` runs) so that later
    prefixes still render. The last page is the program as written: its errors are the
    program's compile errors, reported with the line in ``code``.
    """
    pic = parse_picture(code)
    cmds = progress_commands(split_tikz(code, pic), len(pic.body)) if progress else []
    spans = [(c.start, c.end) for c in cmds]
    failed: dict[int, str] = {}
    frames: list[np.ndarray | None] = [None] * len(cmds)
    final: np.ndarray | None = None
    final_error, runs = "", 0
    body_line0 = code.count("\n", 0, pic.body_start)
    include_final = True
    while True:
        runs += 1
        doc = _Doc(pic.libraries)
        kept = [k for k in range(len(cmds)) if k not in failed] if progress else []
        for k in kept:
            doc.page(pic.options, _prefix_parts(code, pic, cmds, k, failed))
        final_first = doc.page(pic.options, [(pic.body, -2)]) if include_final else -1
        res = _compile(sandbox, doc, size, timeout)
        if res["limit"]:
            return RenderResult(
                spans,
                [None] * len(cmds),
                None,
                res["limit"],
                dict(failed),
                timed_out=res["timed_out"],
                oom=res["oom"],
                mode="killed",
            )
        blamed: dict[int, str] = {}
        final_page = doc.pages - 1 if include_final else -2
        for lineno, msg in res["errors"]:
            page, element = doc.owner[lineno - 1] if 0 < lineno <= len(doc.owner) else (-1, None)
            if page == final_page:
                if not final_error:
                    user_line = body_line0 + (lineno - final_first) + 1
                    final_error = f"line {max(1, user_line)}: {msg}"
            elif element is not None and element >= 0 and element not in failed:
                blamed.setdefault(element, msg)
        pages = res["pages"]
        complete = len(pages) == doc.pages
        for j, k in enumerate(kept):
            frames[k] = pages[j] if complete and k not in blamed else None
        if include_final:
            if complete and not final_error:
                final = pages[-1]
            elif not final_error:
                final_error = res["fatal"] or "LaTeX produced no output"
        failed.update(blamed)
        retry = bool(blamed)
        if include_final and final_error and not complete and kept:
            # The program as written stopped LaTeX and took the prefix pages with it: the
            # program's error is known, so compile the prefixes without it.
            include_final, retry = False, True
        if not retry or runs >= MAX_RUNS:
            break
    for k in range(len(cmds)) if progress else ():
        if k not in failed and frames[k] is None:
            failed[k] = res["fatal"] or "not rendered (an earlier error stopped LaTeX)"
    if failed and not final_error.startswith("line "):
        # The program stopped LaTeX before its own page: name the first failing command.
        k = min(failed)
        final_error = f"line {code.count(chr(10), 0, cmds[k].start) + 1}: {failed[k]}"
    if final_error:
        final = None
    return RenderResult(
        spans if progress else [], frames if progress else [], final, final_error, failed, mode=f"pages x{runs}"
    )


#: Where TeX keeps generated files (formats, font maps); the sandbox does not show /var.
TEXMF_SYSVAR = Path("/var/lib/texmf")
_TEX_FILES = ("web2c/pdftex/pdflatex.fmt", "fonts/map/pdftex/updmap/pdftex.map")
TEX_ENV = {
    "TEXMFSYSVAR": "/sandbox/texmf-var",
    "TEXMFVAR": "/tmp/texmf-var",
    "TEXMFCACHE": "/tmp/texmf-var",
    "TEXMFDIST": "/sandbox/texmf-dist",
    "TEXMFDEBIAN": "/sandbox/texmf-debian",
}


def tex_stage(cache_dir: Path) -> Path:
    """A host folder holding ``texmf-var`` (pdflatex's format and font map) for sandbox work dirs.

    The local sandbox binds ``/usr`` and ``/etc`` but not ``/var/lib/texmf``, where Debian's
    TeX keeps ``pdflatex.fmt``; a sandbox made with ``workdir_from`` this folder finds them
    through ``TEXMFSYSVAR`` (see :data:`TEX_ENV`).

    Raises:
        FileNotFoundError: TeX Live is not installed (the message says how to fix it).

    """
    stage = cache_dir / "tex-stage"
    if all((stage / "texmf-var" / f).is_file() for f in _TEX_FILES) and (stage / "texmf-dist" / "ls-R").is_file():
        return stage
    missing = [f for f in _TEX_FILES if not (TEXMF_SYSVAR / f).is_file()]
    if missing or shutil.which("pdflatex") is None or shutil.which("pdftoppm") is None:
        raise FileNotFoundError(
            "ImageToTikZ needs pdflatex (with its format in /var/lib/texmf) and pdftoppm; "
            "install texlive-latex-extra texlive-pictures poppler-utils (scripts/setup.sh)"
        )
    tmp = cache_dir / f"tex-stage.{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    for f in _TEX_FILES:
        (tmp / "texmf-var" / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(TEXMF_SYSVAR / f, tmp / "texmf-var" / f)
    _write_ls_r(tmp / "texmf-var")
    _stage_trees(tmp)
    os.chmod(tmp, 0o755)
    for root, dirs, files in os.walk(tmp):
        for name in dirs + files:
            path = os.path.join(root, name)
            if not os.path.islink(path):  # chmod would follow a link into the system tree
                os.chmod(path, 0o755 if name in dirs else 0o644)
    try:
        tmp.rename(stage)
    except OSError:  # another process staged it first
        shutil.rmtree(tmp, ignore_errors=True)
    return stage


#: Debian keeps the ls-R databases of its TeX trees in /var/lib/texmf too (each tree's own
#: ls-R is a link there), and kpathsea looks up those trees ("!!" in texmf.cnf) only through
#: ls-R. Each tree is staged as a folder of links to its parts plus a copy of its database.
_TREES = {
    "texmf-dist": ("TEXMFDIST", "/usr/share/texlive/texmf-dist", "ls-R-TEXLIVEDIST"),
    "texmf-debian": ("TEXMFDEBIAN", "/usr/share/texmf", "ls-R-TEXMFMAIN"),
}


def _stage_trees(stage: Path) -> None:
    for name, (_var, tree, db) in _TREES.items():
        folder = stage / name
        folder.mkdir(parents=True, exist_ok=True)
        for part in os.listdir(tree):
            if part != "ls-R":
                os.symlink(os.path.join(tree, part), folder / part)
        if (TEXMF_SYSVAR / db).is_file():
            shutil.copy2(TEXMF_SYSVAR / db, folder / "ls-R")


def _write_ls_r(root: Path) -> None:
    lines = ["% ls-R -- filename database for kpathsea; do not change this line."]
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        rel = os.path.relpath(dirpath, root)
        lines += ["", "./:" if rel == "." else f"./{rel}:", *sorted(dirnames + filenames)]
    (root / "ls-R").write_text("\n".join(lines) + "\n", encoding="utf-8")


_SCRIPT = (
    "rm -f pg-*.ppm job.pdf job.log pages.bin; "
    "openin_any=p openout_any=p shell_escape=f pdflatex -no-shell-escape -interaction=nonstopmode "
    "-file-line-error job.tex >/dev/null 2>&1; "
    "if [ -f job.pdf ]; then pdftoppm -scale-to-x {w} -scale-to-y {h} job.pdf pg && cat pg-*.ppm > pages.bin; fi; "
    "true"
)


def _compile(sandbox: Sandbox, doc: _Doc, size: tuple[int, int], timeout: float | None) -> dict[str, Any]:
    sandbox.write_file("job.tex", doc.text())
    res = sandbox.run(["/bin/sh", "-c", _SCRIPT.format(w=size[0], h=size[1])], timeout=timeout, env=TEX_ENV)
    out: dict[str, Any] = {
        "limit": "",
        "timed_out": res.timed_out,
        "oom": res.oom_killed,
        "errors": [],
        "pages": [],
        "fatal": "",
    }
    if res.timed_out or res.oom_killed:
        out["limit"] = "the TikZ render hit the " + ("time" if res.timed_out else "memory") + " limit"
        return out
    try:
        log = sandbox.read_file("job.log").decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - no log: pdflatex did not even start
        log = ""
    out["errors"] = [
        (int(m.group(1)), m.group(2).strip()) for m in _ERROR.finditer(log) if "==> Fatal error" not in m.group(2)
    ]
    if "Emergency stop" in log or "Fatal error occurred" in log:
        out["fatal"] = next(
            (msg for _, msg in out["errors"] if msg != "Emergency stop."), "LaTeX stopped (fatal error)"
        )
    try:
        out["pages"] = _read_ppms(sandbox.read_file("pages.bin"))
    except Exception:  # noqa: BLE001 - no PDF was produced
        out["pages"] = []
    return out


def _read_ppms(data: bytes) -> list[np.ndarray]:
    """Parse concatenated binary PPM (P6) images."""
    pages, i = [], 0
    while i < len(data):
        fields: list[bytes] = []
        while len(fields) < 4:
            while data[i : i + 1].isspace():
                i += 1
            j = i
            while not data[j : j + 1].isspace():
                j += 1
            fields.append(data[i:j])
            i = j
        i += 1  # the single whitespace byte after maxval
        w, h = int(fields[1]), int(fields[2])
        pages.append(np.frombuffer(data[i : i + w * h * 3], np.uint8).reshape(h, w, 3))
        i += w * h * 3
    return pages


def render_tikz_naive(
    sandbox: Sandbox, code: str, size: tuple[int, int], timeout: float | None = None
) -> list[np.ndarray | None]:
    """Baseline: one LaTeX run and one pdftoppm call per prefix, each from scratch."""
    pic = parse_picture(code)
    out: list[np.ndarray | None] = []
    cmds = split_tikz(code, pic)
    for k in range(len(cmds)):
        doc = _Doc(pic.libraries)
        doc.page(pic.options, _prefix_parts(code, pic, cmds, k, {}))
        res = _compile(sandbox, doc, size, timeout)
        out.append(res["pages"][0] if res["pages"] and not res["errors"] else None)
    return out
