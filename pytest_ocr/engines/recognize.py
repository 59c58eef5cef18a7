"""One recognition: from the output cache when it has this image on this engine, else
from the engine, through ``storable``, the one door engine output comes in by.

An engine's output is untrusted: an HTTP service can answer valid JSON holding a lone
surrogate (``"\\ud800"``), which is a Python ``str`` but not Unicode text, so no UTF-8
writer can store it. ``storable`` turns lone surrogates into U+FFFD (one code point for
one, so alignments and lengths do not move) with a warning on the item, a non-finite
confidence into none, drops a ``raw`` value JSON cannot hold (or too deep, or beyond
``max_output_mb`` of text), and refuses output of the wrong types or whose text, lines or
fields are beyond ``max_output_mb`` of text or ``max_nesting`` levels. Everything downstream (metrics, cache,
reports) sees only what it returned, so no writer has to defend itself.

The image is checked (``media.images.check_image``: a regular file within the size and
pixel limits) before the cache hashes it or the engine sees it, also for recognitions
started ahead of their items (prefetch), whose own check has not run yet.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import limits
from ..media.images import check_image
from ..storable import storable_text
from .base import Engine, EngineError, Recognition
from .cache import OutputCache


@dataclass(frozen=True)
class Timed:
    recognition: Recognition
    seconds: float  # the engine's time in this run; for a cached output, the time recorded when it was made
    cached: bool = False
    stored: bool = False  # made elsewhere and read back (engine.stored): no engine time
    # The sha256 of the image's bytes when the output cache hashed it for its key (None: no
    # cache): carried so that the item's input hash (cases/inputs.py) does not hash it again.
    image_sha256: str | None = None


def recognize(
    engine: Engine,
    name: str,
    image: Path,
    cache: OutputCache | None = None,
    fingerprint: dict | None = None,
    refresh: bool = False,
) -> Timed:
    """The output of engine ``name`` for ``image``: from the cache when it has it (unless
    ``refresh``), else from the engine, and then stored. Raises ImageError for an image
    that is not a regular file or beyond a limit, before anything reads it."""
    image = image if isinstance(image, Path) else Path(image)
    check_image(image)
    key = digest = None
    if cache is not None and fingerprint is not None and engine.cacheable:
        try:
            key = cache.key(image, fingerprint)
        except OSError:
            key = None  # the engine will say what is wrong with the image
        digest = key.partition("-")[0] if key is not None else None
        hit = cache.get(key) if key is not None and not refresh else None
        if hit is not None:
            return Timed(hit.recognition, hit.seconds, cached=True, image_sha256=digest)
    start = time.perf_counter()
    recognition = storable(engine.recognize(image), name, image)
    timed = Timed(recognition, time.perf_counter() - start, image_sha256=digest)
    if key is not None and cache is not None:
        cache.put(key, recognition, timed.seconds)
    return timed


def stored(engine: Any, name: str, document: Path, page: int) -> list[Timed]:
    """Every output an engine of stored outputs (``engine.stored``) holds for the
    document's page, through ``storable`` like any engine's; several are repeats."""
    return [Timed(storable(r, name, document), 0.0, stored=True) for r in engine.outputs(document, page)]


def _storable_value(value: Any, count: list[int]) -> Any:
    if isinstance(value, str):
        text, n = storable_text(value)
        count[0] += n
        return text
    if isinstance(value, dict):
        return {_storable_value(k, count): _storable_value(v, count) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_storable_value(v, count) for v in value]
    return value


def utf8_size(texts: list[str], limit: int) -> tuple[int, bool]:
    """(the UTF-8 size of ``texts`` together in bytes, exact?), computed only as far as
    ``limit`` needs: a code point takes 1 to 4 bytes, so the length bounds the size from
    below and four times the length from above, and an ASCII string (which CPython knows
    without looking at it) takes one byte a code point. Only texts between the bounds
    are encoded. A lone surrogate counts 3 bytes, the size of the U+FFFD it is stored as."""
    length = sum(map(len, texts))
    if all(map(str.isascii, texts)):
        return length, True
    if length > limit:
        return length, False  # at least
    if 4 * length <= limit:
        return 4 * length, False  # at most
    return sum(len(text.encode("utf-8", "surrogatepass")) for text in texts), True


def _strings(value: Any) -> list[str] | None:
    """The strings (keys too) in a structure of dicts and lists, or None when it nests
    deeper than ``max_nesting`` (walked without recursion: the depth is the engine's)."""
    limit = limits.active().max_nesting
    strings: list[str] = []
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            strings.append(item)
        elif isinstance(item, (dict, list, tuple)):
            if depth >= limit:
                return None
            if isinstance(item, dict):
                stack.extend((k, depth) for k in item)
                stack.extend((v, depth + 1) for v in item.values())
            else:
                stack.extend((v, depth + 1) for v in item)
    return strings


def _too_deep() -> str:
    return f"nested more than {limits.active().max_nesting} levels deep ({limits.OPTIONS['max_nesting']})"


def _raw_problem(raw: Any) -> str | None:
    """Why an engine's ``raw`` output (kept for reports, never scored) cannot be kept."""
    if raw is None:
        return None
    strings = _strings(raw)
    if strings is None:
        return f"is {_too_deep()}"
    size, exact = utf8_size(strings, limits.active().max_output_bytes)
    if size > limits.active().max_output_bytes:
        return (
            f"holds {'' if exact else 'at least '}{size / limits.MB:.1f} MB of text; the limit is "
            f"{limits.active().max_output_mb:g} MB ({limits.OPTIONS['max_output_mb']})"
        )
    return None


def _check_size(texts: list[str], what: str, engine: str, image: Path | None) -> None:
    active = limits.active()
    size, exact = utf8_size(texts, active.max_output_bytes)
    if size > active.max_output_bytes:
        where = f" for {image}" if image is not None else ""
        raise EngineError(
            f"engine {engine!r} returned {'' if exact else 'at least '}{size / limits.MB:.1f} MB of {what} "
            f"(UTF-8){where}; the limit is {active.max_output_mb:g} MB ({limits.OPTIONS['max_output_mb']})"
        )


def storable(recognition: object, engine: str, image: Path | None = None) -> Recognition:
    """The engine's output as the run may store it; raises EngineError for output that
    is not a Recognition of the documented types (named ``engine`` in the message) or
    whose text (or lines) is beyond ``max_output_mb`` of UTF-8 (naming ``image``)."""
    if not isinstance(recognition, Recognition):
        raise EngineError(f"engine {engine!r} returned {type(recognition).__name__}, not a Recognition")
    problems = []
    if not isinstance(recognition.text, str):
        problems.append(f"text is {type(recognition.text).__name__}, not str")
    if recognition.lines is not None and not (
        isinstance(recognition.lines, list) and all(isinstance(line, str) for line in recognition.lines)
    ):
        problems.append("lines is not a list of str")
    if recognition.fields is not None and not isinstance(recognition.fields, dict):
        problems.append(f"fields is {type(recognition.fields).__name__}, not a mapping")
    confidence = recognition.confidence
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, (int, float))):
        problems.append(f"confidence is {type(confidence).__name__}, not a number")
    if problems:
        raise EngineError(f"engine {engine!r} returned output of the wrong type: {'; '.join(problems)}")
    # Before anything copies the text: a 1 GB output must cost its item only.
    _check_size([recognition.text], "text", engine, image)
    if recognition.lines:
        _check_size(recognition.lines, "text in its lines", engine, image)
    if recognition.fields is not None:
        strings = _strings(recognition.fields)
        if strings is None:
            raise EngineError(f"engine {engine!r} returned fields {_too_deep()}")
        _check_size(strings, "text in its fields", engine, image)
    raw, raw_problem = recognition.raw, _raw_problem(recognition.raw)
    if raw_problem is not None:
        raw = None

    count = [0]
    stored = dataclasses.replace(
        recognition,
        text=_storable_value(recognition.text, count),
        lines=_storable_value(recognition.lines, count),
        fields=_storable_value(recognition.fields, count),
        raw=_storable_value(raw, count),
        warnings=[_storable_value(str(w), count) for w in recognition.warnings],
    )
    if raw_problem is not None:
        stored.warnings.append(f"the engine's raw output {raw_problem}; left out")
    if count[0]:
        stored.warnings.append(
            f"the output held {count[0]} lone surrogate code point(s) (not Unicode text); stored and scored as U+FFFD"
        )
    if confidence is not None and not math.isfinite(confidence):
        stored.confidence = None
        stored.warnings.append(f"the engine reported a confidence of {confidence!r}; recorded as none")
    if stored.raw is not None:
        try:
            json.dumps(stored.raw, allow_nan=False)
        except (TypeError, ValueError, RecursionError):
            stored.raw = None
            stored.warnings.append("the engine's raw output is not JSON data; left out")
    return stored
