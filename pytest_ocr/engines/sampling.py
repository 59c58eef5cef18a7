"""Whether an engine may answer differently each time it reads the same page, as far as
its fingerprint tells: what a cached output hides, since one earlier draw then stands
for every run (the summary says so, run/record.py).

- ``http``: the service behind the URL may sample, or change, out of the fingerprint's
  sight; unless it is a ``pytest-ocr serve`` worker (``info_url``) whose own engine's
  fingerprint (``config.remote``) says it does not.
- ``openai``: a ``temperature`` above 0 samples; at 0, a model named without a pinned
  version is an alias that the provider may move to another model (``gpt-4o``, not the
  dated snapshot ``gpt-4o-2024-08-06``; ``claude-3-5-sonnet-20241022`` is pinned). Pinned
  means a date in the name, the form snapshots take (an Ollama tag or a Hugging Face
  repository name pins nothing).
- any other engine: nothing in its type says so. Its history can (repeats whose outputs
  differed, run/record.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# a snapshot's date: 2024-08-06 or 20241022, not part of a longer number
PINNED = re.compile(r"(?<!\d)(?:\d{4}-\d{2}-\d{2}|\d{8})(?!\d)")


def may_sample(fingerprint: Mapping[str, Any] | None) -> str | None:
    """Why an engine with this fingerprint may answer differently from one call to the
    next (a phrase: "its model 'gpt-4o' names no dated snapshot"), or None."""
    if not fingerprint:
        return None
    config = fingerprint.get("config")
    config = config if isinstance(config, Mapping) else {}
    kind = fingerprint.get("type")
    if kind == "http":
        remote = config.get("remote")
        if isinstance(remote, Mapping):
            why = may_sample(remote)
            return None if why is None else f"the engine behind its pytest-ocr serve worker may sample: {why}"
        return "it is an http service, which may sample or change behind its URL"
    if kind == "openai":
        temperature = config.get("temperature")
        if isinstance(temperature, (int, float)) and temperature > 0:
            return f"it samples at temperature {temperature:g}"
        model = str(config.get("model"))
        if PINNED.search(model) is None:
            return f"its model {model!r} names no dated snapshot, so the provider may serve another model under it"
    return None
