"""Image-to-code families: ImageToSVG-v0 and ImageToTikZ-v0 (render-progress token rewards)."""

from .env import ImageToCodeEnv, ImageToSVGEnv, ImageToTikZEnv

__all__ = ["ImageToCodeEnv", "ImageToSVGEnv", "ImageToTikZEnv"]
