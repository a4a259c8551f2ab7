"""WebApp-v0: build a web app from a request; graded by executable flows in headless Chromium."""

from .env import WebAppEnv
from .pool import BrowserPool

__all__ = ["BrowserPool", "WebAppEnv"]
