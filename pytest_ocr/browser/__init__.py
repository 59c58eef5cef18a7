"""Headless Chromium: its DevTools driver (``chromium``) and what pytest-ocr renders in it
(``katex``: the equations of math facts). Never imported by ``metrics`` at import time."""
