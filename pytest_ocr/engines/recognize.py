"""One recognition: from the output cache when it has this image on this engine, else
from the engine; in both cases through ``storable``, the one door engine output comes in by."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ..storable import storable
from .base import Engine, Recognition
from .cache import OutputCache, cacheable


@dataclass(frozen=True)
class Timed:
    recognition: Recognition
    seconds: float  # the engine's time in this run; for a cached output, the time recorded when it was made
    cached: bool = False


def recognize(
    engine: Engine,
    name: str,
    image: Path,
    cache: OutputCache | None = None,
    fingerprint: dict | None = None,
    refresh: bool = False,
) -> Timed:
    """The output of engine ``name`` for ``image``: from the cache when it has it (unless
    ``refresh``), else from the engine, and then stored."""
    key = None
    if cache is not None and fingerprint is not None and cacheable(engine):
        try:
            key = cache.key(image, fingerprint)
        except OSError:
            key = None  # the engine will say what is wrong with the image
        hit = cache.get(key) if key is not None and not refresh else None
        if hit is not None:
            return Timed(hit.recognition, hit.seconds, cached=True)
    start = time.perf_counter()
    recognition = storable(engine.recognize(image), name)
    timed = Timed(recognition, time.perf_counter() - start)
    if key is not None and cache is not None:
        cache.put(key, recognition, timed.seconds)
    return timed
