"""A pool of one headless Chromium, reused across episodes (docs/contract.md: Chromium via Playwright).

Launching Chromium costs seconds; a browser context costs milliseconds. The pool keeps one
browser process alive and gives every grading fresh contexts (cookies, storage, cache and
service workers are per context), so episodes never see each other's state. Playwright's
async API runs on a private event-loop thread, which lets a hung page be abandoned by
timeout (``asyncio.wait_for``) instead of blocking the caller, and lets envs in several
threads share the pool.

The browser is restarted when it crashed (disconnected, or Playwright's driver died: then
the driver is started again too) or hung (a grading overran its budget, or a context would
not close); a crash in the middle of a grading is retried once on the new browser, and only
then reported as an :class:`~codegym.errors.InfraError`.

Memory: every renderer and GPU process gets a cap on its data size (``RLIMIT_DATA``, which
counts the private writable memory a process maps: V8's heap, typed arrays, WebAssembly
memory, canvases): Chromium's zygotes, which start them, are started under util-linux's
``prlimit`` (``--zygote-cmd-prefix``). Over the cap an allocation fails: ``new ArrayBuffer``
throws a ``RangeError``, and a full V8 heap or a GPU process out of memory crashes that
process (the page's ``crash`` event: ``renderer_crash``). A GPU process that crashed is
replaced by Chromium, which turns WebGL off for good after a few crashes, so the pool
restarts the browser before its next grading once the first GPU process is gone or a
replacement, and counts the crash (``gpu_crashes``; ``run_gpu_checked`` says whether one
happened while a grading ran: the env grades such an app again, alone). The
browser process itself is not capped (an allocation failing there ends every grading): it
holds Blob data and queued IndexedDB writes up to Chromium's own Blob limit (2 GB per context
on a 24 GB machine), freed when the grading's contexts close.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import os
import shutil
import signal
import tempfile
import threading
import uuid
import weakref
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from codegym.errors import InfraError

log = logging.getLogger(__name__)
T = TypeVar("T")

# Debian's chromium-headless-shell is the same Chromium build without the browser's own UI:
# the full browser, even headless, builds a window per page (toolbar, tab strip, omnibox,
# profile services) and lays it out and paints it on every navigation. Measured on one
# grading of a 5-item app: about half the CPU of a context and of a page load. The full
# browser stays the fallback where the shell package is not installed.
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
FULL_BROWSER = "/usr/bin/chromium"


def default_chromium() -> str:
    """``CODEGYM_CHROMIUM`` if set, else the headless shell if installed, else ``/usr/bin/chromium``."""
    chosen = os.environ.get("CODEGYM_CHROMIUM")
    if chosen:
        return chosen
    return HEADLESS_SHELL if Path(HEADLESS_SHELL).exists() else FULL_BROWSER


CHROMIUM = default_chromium()
#: The default cap on the data size of each renderer and GPU process (MiB). An app's page
#: needs about 100-300 MiB (Chromium's own, V8's heap, the DOM).
MEMORY_LIMIT_MB = 1024
# Without the background-networking switches Chromium keeps dialling Google services,
# which on these machines (no network) only burns CPU and fills logs.
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--disable-breakpad",
    "--metrics-recording-only",
    "--dns-prefetch-disable",
    # The headless shell opens no window for an app (window.open returns null, a link or form
    # with a target opens nothing); the attempt is still counted (session.py). An app opening
    # windows in a loop, each of which loaded the app and opened more, kept the browser and
    # the driver busy for half a minute on 2 cores. The full browser ignores the switch: its
    # popups open and are closed at once.
    "--block-new-web-contents",
    # The headless shell logs every console message of every page to stderr, and Playwright's
    # driver keeps the browser's last lines of stderr, however long, for as long as the browser
    # lives: an app logging 10 MB strings grew the driver by 100 MB a grading, until it died
    # joining them when the browser closed. Only fatal errors are logged now.
    "--enable-logging=stderr",
    "--log-level=3",
    # Defence in depth behind the per-context request blocking (session.py): WebRTC's UDP is
    # not seen by request interception, and a dead proxy catches anything that slips past
    # it. (Each grading's contexts override it with one that takes loopback too, all but the
    # app's own port: session.proxy_for.)
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--proxy-server=http://127.0.0.1:9",
    # A SharedWorker's requests pass neither the context's request routing nor its WebSocket
    # mock, and loopback bypasses the dead proxy: it could reach other localhost ports.
    "--disable-blink-features=SharedWorker",
    # Chromium keeps only the last --disable-features, so this one repeats Playwright's own list
    # (playwright-core's chromiumSwitches.ts) and adds two that cost CPU on every grading:
    # a spare renderer process is pre-started for the next navigation of the same context,
    # and ours open one context per grading, so each spare was launched and never used (about
    # half of all renderer launches); RenderDocument swaps the frame host on every same-site
    # navigation, and every rubric item is one (about 20% of a page load's CPU). Headless
    # Chromium still builds a browser window per page, and its omnibox popup is a WebUI page in
    # a renderer process of its own (chrome://omnibox-popup.top-chrome/): one more renderer
    # launched per context, and synced with the address bar on every navigation (about a
    # third of a context's setup and a fifth of a page load's CPU). Nothing here types into
    # an omnibox, so those two WebUI popups are switched off. The full browser runs a sandboxed
    # frame in a process of its own, out of reach of the session that counts the windows an
    # app asks for (session.py): it stays in the app's.
    "--disable-features="
    + ",".join(
        [
            "AvoidUnnecessaryBeforeUnloadCheckSync",
            "DestroyProfileOnBrowserClose",
            "HttpsUpgrades",
            "HttpsFirstBalancedModeAutoEnable",
            "LensOverlay",
            "MediaRouter",
            "PaintHolding",
            "ThirdPartyStoragePartitioning",
            "AvoidCorsURLLoaderRestartOnRedirect",
            "TcpPortRandomizationWin",
            "OptimizationHints",
            "NetworkTimeServiceQuerying",
            "AimEnabled",
            "PreconnectToSearch",
            "SpareRendererForSitePerProcess",
            "RenderDocument",
            "WebUIOmniboxPopup",
            "WebUIOmniboxAimPopup",
            "IsolateSandboxedIframes",
        ]
    ),
]


def launch_args(memory_limit_mb: int | None = MEMORY_LIMIT_MB) -> list[str]:
    """Chromium's switches: :data:`LAUNCH_ARGS`, and the memory cap on renderers and GPU processes."""
    if memory_limit_mb is None:
        return list(LAUNCH_ARGS)
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        log.warning("util-linux's prlimit not found: renderers run without a memory cap")
        return list(LAUNCH_ARGS)
    limit = memory_limit_mb << 20
    return [*LAUNCH_ARGS, f"--zygote-cmd-prefix={prlimit} --data={limit}:{limit}"]


class BrowserPool:
    """One Chromium process shared by every grading; restarted on crash or hang.

    Args:
        executable: the Chromium binary (default: :func:`default_chromium`, Debian's
            chromium-headless-shell or chromium); never downloaded.
        launch_timeout_s: how long a launch may take before it counts as an infra failure.
        memory_limit_mb: the cap on each renderer's and GPU process's data size (see the
            module docstring); None: no cap.

    """

    _shared: BrowserPool | None = None
    _shared_lock = threading.Lock()
    _closed = False  # (a class default: close() may run on a pool whose __init__ raised)
    _users = 0  # envs holding the shared pool (shared() and release())
    _exit_hook = False  # the shared pool's close is registered to run at exit

    def __init__(
        self, executable: str = CHROMIUM, launch_timeout_s: float = 60.0, memory_limit_mb: int | None = MEMORY_LIMIT_MB
    ) -> None:
        if not Path(executable).exists():
            raise InfraError(
                f"Chromium not found at {executable}; expected Debian's chromium-headless-shell or "
                "chromium package (run scripts/setup.sh or apt-get install chromium-headless-shell) "
                "or set CODEGYM_CHROMIUM"
            )
        self.executable = executable
        self.launch_timeout_s = launch_timeout_s
        self.memory_limit_mb = memory_limit_mb
        # Chromium ignores switches it does not know: this one tags our processes so that
        # a hung browser can be killed by pid without touching anyone else's Chromium.
        self._marker = f"--codegym-pool={uuid.uuid4().hex}"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pw: Any = None
        self._browser: Any = None
        # pids of the browser, Playwright's driver (its parent) and the GPU process (0: unknown,
        # -1: it crashed), read from /proc once: a scan of every process costs milliseconds
        self._browser_pid = self._driver = self._gpu = 0
        self._profile: str | None = None  # the browser's profile directory (Playwright's temporary one)
        # Playwright's driver makes a temporary directory for downloads and traces per browser
        # and removes it when the browser closes, unless the driver died. The pool's own is
        # removed when the pool is closed or collected or the process exits; one whose process
        # was killed, or exited without cleaning up (a forked worker), by the next pool made.
        _remove_orphaned_artifacts()
        self._artifacts = tempfile.mkdtemp(prefix=f"{ARTIFACTS_PREFIX}{os.getpid()}-")
        self._remove_artifacts = weakref.finalize(self, _remove_in, os.getpid(), self._artifacts)
        self._suspect = False
        self._lock = threading.Lock()
        # Gradings from several threads share the loop: one launch (or restart) at a time.
        self._launching = asyncio.Lock()
        # How many gradings run now, and whether one that must run alone waits or runs.
        self._gate = asyncio.Condition()
        self._running = 0
        self._alone = False
        # Every run in flight or waiting at the gate: closing the pool ends them at once.
        self._runs: set[concurrent.futures.Future[Any]] = set()
        # The loop thread and the browser belong to this process: a fork (gymnasium's
        # AsyncVectorEnv workers) inherits the object but neither of them.
        self._pid = os.getpid()
        #: How many times a browser process was launched (restarts included).
        self.launches = 0
        #: How many times the browser was found dead or hung and restarted.
        self.restarts = 0
        #: How many times a grading ended with the browser's GPU process crashed (once per browser).
        self.gpu_crashes = 0

    @classmethod
    def shared(cls) -> BrowserPool:
        """The process-wide pool, for one more user until it calls :meth:`release`.

        Made on first use; closed when its last user releases it, or at exit. A forked
        process (gymnasium's AsyncVectorEnv workers) gets its own.
        """
        with cls._shared_lock:
            if not cls._exit_hook:
                atexit.register(cls._close_shared)
                cls._exit_hook = True
            if cls._shared is None or cls._shared._closed or not cls._shared.usable_here():
                cls._shared = cls()
            cls._shared._users += 1
            return cls._shared

    @classmethod
    def _close_shared(cls) -> None:
        if cls._shared is not None:
            cls._shared.close()

    def release(self) -> None:
        """Give back what :meth:`shared` gave: the last user's release closes the pool."""
        with self._shared_lock:
            self._users -= 1
            last = self._users == 0
            if last and type(self)._shared is self:  # the next shared() makes a new pool
                type(self)._shared = None
        if last:
            self.close()

    # ------------------------------------------------------------------ public API
    def usable_here(self) -> bool:
        """False in a process forked from the one that made the pool."""
        return self._pid == os.getpid()

    def run(self, fn: Callable[[Any], Awaitable[T]], timeout_s: float) -> T:
        """Run ``fn(browser)`` on the pool's loop and return its result.

        A browser that crashed during ``fn`` is restarted and ``fn`` is retried once. If
        ``fn`` overruns ``timeout_s`` the browser is presumed hung: :class:`InfraError` is
        raised, and the next run stops it (killing what is left) and starts a new one.
        """
        return self.run_gpu_checked(fn, timeout_s)[0]

    def run_gpu_checked(
        self, fn: Callable[[Any], Awaitable[T]], timeout_s: float, alone: bool = False
    ) -> tuple[T, bool]:
        """:meth:`run`, and whether Chromium's GPU process crashed meanwhile.

        The GPU process serves every page, so a crash tells whose app caused it only when
        ``fn`` ran ``alone``: on a fresh browser, after every other ``fn`` ended, holding new
        ones back. Waiting for that (or for a run alone to end) does not count against
        ``timeout_s``.
        """
        if self._closed:
            raise InfraError("the browser pool was closed; make a new BrowserPool")
        if not self.usable_here():
            raise InfraError("this BrowserPool was made in another process (before a fork); make one here")
        loop = self._ensure_loop()
        entered = threading.Event()
        with self._lock:
            if self._closed:  # (closed meanwhile)
                raise InfraError("the browser pool was closed; make a new BrowserPool")
            fut = asyncio.run_coroutine_threadsafe(self._run_in_turn(fn, timeout_s, alone, entered), loop)
            self._runs.add(fut)
        fut.add_done_callback(lambda _: entered.set())  # (it may end before it got in: cancelled)
        limit = timeout_s * 2 + self.launch_timeout_s * 2 + 30  # (fn's own timeout acts first)
        try:
            if not entered.wait(limit):  # the others' runs, each within its own limit
                raise TimeoutError
            return fut.result(limit)
        except TimeoutError:
            fut.cancel()
            raise InfraError(f"the browser pool did not answer within {limit:.0f}s") from None
        except concurrent.futures.CancelledError:
            raise InfraError("the browser pool was closed while this run waited or ran") from None
        finally:
            with self._lock:
                self._runs.discard(fut)

    def mark_suspect(self) -> None:
        """Restart the browser before its next use (something in it would not close)."""
        self._suspect = True

    def browser_pids(self) -> list[int]:
        """Pids of this pool's Chromium processes (found by their marker switch)."""
        pids = []
        needle = self._marker.encode()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if needle in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                pass
        return pids

    def kill_browser(self) -> None:
        """SIGKILL this pool's Chromium processes (tests use it to simulate a crash)."""
        for pid in self.browser_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def close(self) -> None:
        """Close the browser, Playwright and the loop thread; safe to call twice.

        Runs still in flight or waiting for their turn end with :class:`InfraError`.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            loop, thread, runs = self._loop, self._thread, list(self._runs)
        if loop is None or not self.usable_here():
            self._remove_artifacts()  # (a no-op in a forked process, like the rest)
            return  # (a forked process must not stop, or kill by marker, its parent's browser)
        for fut in runs:
            fut.cancel()
        try:
            asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(20)
        except Exception:  # noqa: BLE001 - closing must not raise; kill what is left
            self.kill_browser()
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(10)
        if thread is None or not thread.is_alive():  # (a loop still running cannot be closed)
            loop.close()
        self._remove_artifacts()

    # ------------------------------------------------------------------ internals
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                loop.set_exception_handler(_unless_driver_gone)
                self._thread = threading.Thread(target=loop.run_forever, name="codegym-browser-pool", daemon=True)
                self._thread.start()
                self._loop = loop
            return self._loop

    async def _run_in_turn(
        self, fn: Callable[[Any], Awaitable[T]], timeout_s: float, alone: bool, entered: threading.Event
    ) -> tuple[T, bool]:
        """``_run`` once the others let it (see :meth:`run_gpu_checked`), and whether the GPU crashed."""
        async with self._gate:
            await self._gate.wait_for(lambda: not self._alone)
            if alone:
                self._alone = True  # new runs wait from here on
                try:
                    await self._gate.wait_for(lambda: self._running == 0)
                except BaseException:  # cancelled while waiting: let the others in again
                    self._alone = False
                    self._gate.notify_all()
                    raise
                self._suspect = True  # a fresh browser: no crash of another run's can surface in this one
            self._running += 1
        entered.set()
        crashes = self.gpu_crashes
        try:
            return await self._run(fn, timeout_s), self.gpu_crashes != crashes
        finally:
            async with self._gate:
                self._running -= 1
                if alone:
                    self._alone = False
                self._gate.notify_all()

    async def _run(self, fn: Callable[[Any], Awaitable[T]], timeout_s: float) -> T:
        for attempt in range(2):
            browser = await self._ensure_browser()
            try:
                result = await asyncio.wait_for(fn(browser), timeout_s)
            except TimeoutError:
                self._suspect = True
                raise InfraError(
                    f"grading overran {timeout_s:.0f}s; the browser was presumed hung and restarted"
                ) from None
            except Exception as exc:
                if self._alive(browser):
                    self._check_gpu()
                    raise
                error: BaseException = exc
            else:
                # A grading reports a closed page as the app's failure: a browser that died (or
                # was restarted for another thread) under it makes the result worthless.
                if self._alive(browser):
                    self._check_gpu()
                    return result
                error = RuntimeError("the browser went away while the grading ran")
            log.warning("browser died during grading (%s); restarting", error)
            if browser is self._browser:
                self._suspect = True
            if attempt == 1:
                raise InfraError(f"the browser crashed twice during one grading: {error}") from error
        raise AssertionError("unreachable")

    def _alive(self, browser: Any) -> bool:
        """Whether ``browser`` is still the pool's browser, and alive."""
        return browser is self._browser and browser.is_connected() and not self._browser_died()

    def _browser_died(self) -> bool:
        """The browser process is gone, or Playwright's driver, its parent, is.

        (Without its driver the browser's connection fails every call, yet still says it is
        connected; the orphaned browser has another parent.)
        """
        return _parent(self._browser_pid) != self._driver  # (0 when it is gone)

    def chromium_processes(self) -> dict[int, str]:
        """This pool's Chromium processes (the browser and all it started) by pid, with their ``--type``."""
        found: dict[int, str] = {}
        tree = _process_tree()
        todo = self.browser_pids()
        while todo:
            pid = todo.pop()
            if pid in found:
                continue
            found[pid] = _switch(pid, "type") or "browser"
            todo += tree.get(pid, [])
        return found

    def _check_gpu(self) -> None:
        """Restart the browser before its next use if its GPU process crashed, and count the crash.

        Crashed: the first GPU process is gone, or a replacement runs (it says how many crashed).
        """
        if self._gpu < 0 or (self._gpu and _switch(self._gpu, "gpu-recent-crash-count") == "0"):
            return  # counted already, or the first GPU process still runs
        crashes = {
            pid: _switch(pid, "gpu-recent-crash-count")
            for pid, kind in self.chromium_processes().items()
            if kind == "gpu-process"
        }
        if self._gpu or any(n != "0" for n in crashes.values()):
            log.warning("Chromium's GPU process crashed (out of memory?); restarting the browser before next use")
            self._suspect = True
            self.gpu_crashes += 1
            self._gpu = -1  # (until the next launch)
        else:
            self._gpu = next(iter(crashes), 0)  # (none yet: it starts with the first page)

    async def _ensure_browser(self) -> Any:
        async with self._launching:
            if self._browser is not None and (self._suspect or not self._alive(self._browser)):
                self.restarts += 1
                await self._stop_browser()
            self._suspect = False
            if self._browser is None:
                try:
                    await asyncio.wait_for(self._launch(), self.launch_timeout_s)
                except TimeoutError:
                    self.kill_browser()
                    raise InfraError(f"Chromium did not start within {self.launch_timeout_s:.0f}s") from None
            return self._browser

    async def _launch(self) -> None:
        os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        for attempt in range(2):
            if self._pw is None:
                from playwright.async_api import async_playwright

                self._pw = await async_playwright().start()
            try:
                self._browser = await self._pw.chromium.launch(
                    executable_path=self.executable,
                    headless=True,
                    args=[*launch_args(self.memory_limit_mb), self._marker],
                    handle_sigint=False,
                    handle_sigterm=False,
                    handle_sighup=False,
                    artifacts_dir=self._artifacts,
                )
                break
            except Exception as exc:
                if attempt == 1:
                    raise InfraError(f"Chromium at {self.executable} failed to launch: {exc}") from exc
                # Playwright's driver itself may have died with the old browser: a new one
                await self._stop_playwright()
        self._browser_pid = next(iter(self.browser_pids()), 0)
        self._profile = _switch(self._browser_pid, "user-data-dir")
        self._driver, self._gpu = _parent(self._browser_pid), 0
        from .session import mark_pooled  # a long-lived browser: worth contexts opened ahead

        mark_pooled(self._browser)
        self.launches += 1

    async def _stop_browser(self) -> None:
        browser, self._browser = self._browser, None
        if browser is None:
            return
        from .session import drop_spare  # contexts opened ahead for this browser

        try:
            await asyncio.wait_for(drop_spare(browser), 5)
        except Exception:  # noqa: BLE001
            pass
        try:
            await asyncio.wait_for(browser.close(), 5)
        except Exception:  # noqa: BLE001 - a hung or dead browser: kill it by pid
            pass
        self.kill_browser()
        await self._remove_profile()

    async def _remove_profile(self) -> None:
        """Remove the stopped browser's profile directory, which its driver removes unless it died."""
        profile, self._profile = self._profile, None
        if profile is None or not Path(profile).name.startswith("playwright_chromiumdev_profile-"):
            return
        for _ in range(40):  # (the killed processes may still be exiting)
            if not self.browser_pids():
                break
            await asyncio.sleep(0.05)
        shutil.rmtree(profile, ignore_errors=True)

    async def _shutdown(self) -> None:
        await self._stop_browser()
        await self._stop_playwright()

    async def _stop_playwright(self) -> None:
        pw, self._pw = self._pw, None
        if pw is not None:
            try:
                await asyncio.wait_for(pw.stop(), 10)
            except Exception:  # noqa: BLE001 - a driver that died already
                pass


def _unless_driver_gone(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The pool's loop's error handler: asyncio's own, less one error the pool has handled.

    When Playwright's driver dies, its connection keeps the error in a future nobody awaits,
    which asyncio logs as "Future exception was never retrieved" once it is collected, at the
    latest when the process exits. The pool has seen the browser die and launched another.
    The error is the read that found the pipe closed, or a write to it (``BrokenPipeError``):
    which one comes first depends on timing. Only the driver's pipe runs on this loop.
    """
    exc = context.get("exception")
    if context.get("message") == "Future exception was never retrieved" and (
        isinstance(exc, BrokenPipeError) or str(exc) == "Connection closed while reading from the driver"
    ):
        log.debug("the dead Playwright driver's connection error was not awaited (the pool restarted it)")
        return
    loop.default_exception_handler(context)


ARTIFACTS_PREFIX = "codegym-browser-artifacts-"  # then the pid of the process that made the pool


def _remove_in(pid: int, directory: str) -> None:
    """Remove ``directory`` if this is process ``pid``: a forked copy of a pool leaves it to its maker."""
    if os.getpid() == pid:
        shutil.rmtree(directory, ignore_errors=True)


def _remove_orphaned_artifacts() -> None:
    """Remove the pools' artifact directories whose process is gone."""
    for directory in Path(tempfile.gettempdir()).glob(ARTIFACTS_PREFIX + "*-*"):
        try:
            os.kill(int(directory.name[len(ARTIFACTS_PREFIX) :].split("-")[0]), 0)
        except ProcessLookupError:
            shutil.rmtree(directory, ignore_errors=True)
        except (ValueError, OSError):  # not one of ours, or a process of another user's
            pass


def _process_tree() -> dict[int, list[int]]:
    """Every process's children (by the parent pid each one's ``/proc/PID/stat`` names)."""
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            tree.setdefault(_parent(int(entry.name)), []).append(int(entry.name))
    return tree


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _switch(pid: int, name: str) -> str | None:
    """The value of Chromium's ``--name=`` switch in the command line of ``pid`` (None: absent or gone)."""
    try:
        # (processes a zygote started rewrite their title: one string, spaces between)
        args = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split()
    except OSError:
        return None
    prefix = f"--{name}=".encode()
    return next((a[len(prefix) :].decode(errors="replace") for a in args if a.startswith(prefix)), None)


async def launch_once(fn: Callable[[Any], Awaitable[T]], executable: str = CHROMIUM) -> T:
    """Baseline for the benchmark: start Playwright and Chromium (the pool's switches), run ``fn``, stop both."""
    from playwright.async_api import async_playwright

    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=executable, headless=True, args=launch_args())
        try:
            return await fn(browser)
        finally:
            await browser.close()
