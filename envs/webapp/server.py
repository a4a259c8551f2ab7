"""A static HTTP server on 127.0.0.1 (ephemeral port) serving one app's files from memory.

One server per grading: the app's origin (``http://127.0.0.1:PORT``) is the only address
the page may reach; the browser context blocks every other request (see ``session.py``). A
pool starts the next grading's server ahead, empty, because the contexts opened ahead with
it must name its port; the grading then gives it the app (:meth:`StaticServer.serve`).
"""

from __future__ import annotations

import mimetypes
import os
import selectors
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path == "/":
            path = "/index.html"
        body = self.server.files.get(path.lstrip("/"))
        if body is None:
            # favicon and friends: an empty answer keeps 404 noise out of the console.
            code, body, ctype = (
                (204, b"", "text/plain") if path == "/favicon.ico" else (404, b"not found", "text/plain")
            )
        else:
            code, ctype = 200, mimetypes.guess_type(path)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith("javascript"):
                ctype += "; charset=utf-8"
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        # Vendor builds (React) may be cached within the grading's context: every item reloads
        # the page, and a cached script also skips V8's re-parse. The app itself never is.
        self.send_header("Cache-Control", "max-age=600" if path.startswith("/vendor/") else "no-store")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_HEAD = do_GET

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet server
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    files: dict[str, bytes]

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The browser drops connections when a flow navigates mid-response: not an error.
        pass


class StaticServer:
    """Serve ``files`` (path -> text or bytes) at ``http://127.0.0.1:<ephemeral port>/``.

    Use as a context manager; ``origin`` is the base URL. ``index.html`` is served at ``/``.
    Without ``files`` every path is 404 until :meth:`serve` gives it some.
    """

    def __init__(self, files: dict[str, str | bytes] | None = None) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self.serve(files or {})
        self.port = self._server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        # close() wakes the loop through this pipe: serve_forever's shutdown() would wait for
        # its next poll (up to poll_interval, ~25 ms per grading on average).
        self._wake_r, self._wake_w = os.pipe()
        self._thread = threading.Thread(target=self._serve, name="codegym-static-server", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        with selectors.DefaultSelector() as sel:
            sel.register(self._server, selectors.EVENT_READ)
            sel.register(self._wake_r, selectors.EVENT_READ)
            while True:
                ready = sel.select()
                if any(key.fileobj == self._wake_r for key, _ in ready):
                    return
                self._server.handle_request()  # the listening socket is readable: no wait

    def serve(self, files: dict[str, str | bytes]) -> None:
        """Serve ``files`` from now on (instead of what was served before)."""
        # "replace": a lone surrogate in an answer becomes U+FFFD, as a browser would show it
        self._server.files = {k: v.encode("utf-8", "replace") if isinstance(v, str) else v for k, v in files.items()}

    def close(self) -> None:
        """Stop serving and free the port; safe to call twice."""
        if self._wake_w >= 0:
            os.write(self._wake_w, b"x")
            self._thread.join(5)
            self._server.server_close()
            os.close(self._wake_r)
            os.close(self._wake_w)
            self._wake_r = self._wake_w = -1

    def __enter__(self) -> StaticServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
