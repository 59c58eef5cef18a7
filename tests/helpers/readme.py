"""The README and its fenced code blocks."""

from __future__ import annotations

import re

from conftest import REPO

FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)


def readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")
