"""The React path: compile a JSX component with esbuild and mount it in a fixed page.

esbuild, React and ReactDOM (18.x, whose UMD builds run without a bundler) come from npm,
installed by ``scripts/setup.sh`` into ``$CODEGYM_NPM_DIR`` (default
``~/.cache/codegym/npm``) and served from the app's own origin: nothing is fetched from a CDN.

esbuild only *transforms* the component (JSX -> JS, ES modules -> CommonJS); it never bundles,
so an ``import`` of a file on the grading machine cannot pull that file into the page.
``import ... from "react"`` resolves, in the page, to the UMD globals.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from codegym.errors import InfraError

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>App</title>
<link rel="icon" href="data:,"></head>
<body><div id="root"></div>
<script src="/vendor/react.js"></script>
<script src="/vendor/react-dom.js"></script>
<script src="/app.js"></script>
</body></html>
"""

# The compiled component runs inside this wrapper: ``require`` hands out the UMD globals,
# and the component is the default export, else an export named App, else a top-level App.
WRAP_HEAD = """(function () {
var module = { exports: {} }, exports = module.exports;
function require(name) {
  if (name === "react") return window.React;
  if (name === "react-dom" || name === "react-dom/client") return window.ReactDOM;
  throw new Error("Cannot import '" + name + "': only react and react-dom are available");
}
"""
WRAP_TAIL = """
;var __App = module.exports.default || module.exports.App || (typeof App !== "undefined" ? App : null);
if (typeof __App !== "function") throw new Error("no component to mount: export default a component or define function App");
ReactDOM.createRoot(document.getElementById("root")).render(React.createElement(__App));
})();
"""


def npm_dir() -> Path:
    """Where setup.sh installed esbuild and React."""
    return Path(os.environ.get("CODEGYM_NPM_DIR", Path.home() / ".cache" / "codegym" / "npm"))


@dataclass
class CompileResult:
    """What esbuild said about a component.

    Attributes:
        ok: it compiled.
        js: the page script (wrapper included) when ok.
        errors: ``{"line", "column", "text"}`` (1-based line, 0-based column) per error.

    """

    ok: bool
    js: str = ""
    errors: list[dict[str, object]] = field(default_factory=list)


def check_toolchain() -> None:
    """Raise InfraError saying how to install esbuild/React when they are missing."""
    root = npm_dir()
    missing = [
        p
        for p in (
            "node_modules/.bin/esbuild",
            "node_modules/react/umd/react.production.min.js",
            "node_modules/react-dom/umd/react-dom.production.min.js",
        )
        if not (root / p).exists()
    ]
    if missing:
        raise InfraError(
            f"the React toolchain is missing under {root} ({', '.join(missing)}); run scripts/setup.sh "
            "(npm install esbuild react@18 react-dom@18 there) or set CODEGYM_NPM_DIR"
        )


@lru_cache(maxsize=1)
def vendor_files() -> dict[str, bytes]:
    """React and ReactDOM UMD production builds.

    The development builds are 5x larger and re-parsed on every item's page load; the
    production ones' error messages are links to react.dev instead.
    """
    check_toolchain()
    root = npm_dir() / "node_modules"
    return {
        "vendor/react.js": (root / "react/umd/react.production.min.js").read_bytes(),
        "vendor/react-dom.js": (root / "react-dom/umd/react-dom.production.min.js").read_bytes(),
    }


_ERR = re.compile(r"\[ERROR\] (.*?)\n\s*\n\s+<stdin>:(\d+):(\d+):")


def compile_jsx(source: str, timeout_s: float = 20.0) -> CompileResult:
    """Compile one JSX component; errors carry positions in ``source``."""
    check_toolchain()
    exe = npm_dir() / "node_modules" / ".bin" / "esbuild"
    try:
        proc = subprocess.run(
            [
                str(exe),
                "--loader=tsx",  # JSX, and TypeScript's types (a ```tsx answer) are stripped
                "--format=cjs",
                "--target=es2020",
                "--log-level=error",
                "--color=false",
                "--sourcefile=<stdin>",
            ],
            input=source.encode("utf-8", "replace"),  # a lone surrogate is the answer's flaw, not ours
            capture_output=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        # esbuild compiles megabytes in well under a second: this is the machine, not the code
        raise InfraError(f"esbuild did not finish within {timeout_s:.0f}s") from None
    except OSError as exc:
        raise InfraError(f"esbuild could not run: {exc}") from exc
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode < 0:
        raise InfraError(f"esbuild was killed by signal {-proc.returncode}")
    if proc.returncode != 0:
        errors = [{"line": int(m[2]), "column": int(m[3]), "text": m[1].strip()} for m in _ERR.finditer(stderr)]
        if not errors and "[ERROR]" not in stderr:
            raise InfraError(f"esbuild failed without a compile error: {stderr.strip()[:300]}")
        if not errors:
            errors = [{"line": 1, "column": 0, "text": stderr.strip()[:300]}]
        return CompileResult(False, errors=errors[:10])
    return CompileResult(True, WRAP_HEAD + proc.stdout.decode("utf-8") + WRAP_TAIL)


def react_files(compiled_js: str) -> dict[str, str | bytes]:
    """The files served for a compiled component: the fixed page, the vendor builds, app.js."""
    return {"index.html": PAGE, "app.js": compiled_js, **vendor_files()}
