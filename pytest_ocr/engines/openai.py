"""A vision language model behind an OpenAI-compatible chat-completions endpoint
(vLLM, SGLang, Ollama, llama.cpp's server, hosted APIs) as an OCR engine.

The image goes as a data URL in the user message, followed by the prompt; the text is
the first choice's message content. PNG, JPEG and WebP are sent as they are; other
formats (TIFF above all, which vision APIs refuse) are converted to PNG with Pillow.
"""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path
from typing import Any

from ..imports import load_failure
from . import _http, _options
from .base import EngineBase, EngineError, EngineSpec, Recognition

DEFAULT_PROMPT = (
    "Transcribe all text in this image exactly as it appears, in reading order, keeping line breaks. "
    "Output only the transcribed text: no commentary, no translation, no markdown formatting."
)

SCHEMA = {
    "base_url": (str, _options.REQUIRED),
    "model": (str, _options.REQUIRED),
    "prompt": (str, DEFAULT_PROMPT),
    "system": (str, None),
    "max_tokens": (int, 4096),
    "temperature": (float, 0.0),
    "extra_body": (dict[str, Any], {}),
    "timeout": (float, 120),
    **_http.COMMON_SCHEMA,
}

SENT_AS_IS = ("image/png", "image/jpeg", "image/webp")
# Modes a PNG can hold; anything else (CMYK, YCbCr, float) is converted to RGB(A).
PNG_MODES = ("1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16")
# The body keys the options set; extra_body must not silently replace them.
OWN_KEYS = {"model": "model", "messages": "prompt", "max_tokens": "max_tokens", "temperature": "temperature"}

# Chat models wrap answers in a markdown code fence out of habit. A fence opening on the
# first line (and closing on the last) is packaging, not text on the page.
FENCE = re.compile(r"\A\s*(```[\w+.-]*)[ \t]*\n(.*?)(?:\n```[ \t]*)?\s*\Z", re.DOTALL)


def data_url(image: Path) -> tuple[str, list[str]]:
    """The image as a ``data:`` URL, and warnings about what was lost converting it."""
    try:
        data = image.read_bytes()
    except OSError as exc:
        raise EngineError(f"cannot read image {image}: {exc.strerror}") from None
    mime = _http.image_mime(data)
    warnings = []
    if mime not in SENT_AS_IS:
        try:
            from PIL import Image
        except ImportError as exc:
            if not isinstance(exc, ModuleNotFoundError):  # installed, not loadable (out of memory)
                raise EngineError(f"converting {image.name} to PNG: {load_failure('Pillow', exc)}") from None
            raise EngineError(
                f"{image.name} is {mime or 'not PNG, JPEG or WebP'}, which vision APIs do not take; converting it "
                "to PNG needs Pillow: pip install pillow"
            ) from None
        try:
            with Image.open(io.BytesIO(data)) as opened:
                pages = getattr(opened, "n_frames", 1)
                picture = opened
                if opened.mode not in PNG_MODES:
                    picture = opened.convert("RGBA" if "A" in opened.getbands() else "RGB")
                out = io.BytesIO()
                # Kept: OCR models scale by it (Tesseract does), and scans carry it.
                resolution = {"dpi": opened.info["dpi"]} if "dpi" in opened.info else {}
                picture.save(out, format="PNG", **resolution)
        except (OSError, ValueError, Image.DecompressionBombError) as exc:  # OSError: also UnidentifiedImageError
            raise EngineError(f"cannot convert {image} to PNG: {exc}") from None
        data, mime = out.getvalue(), "image/png"
        if pages > 1:
            warnings.append(f"{image.name} has {pages} pages; only the first was sent")
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}", warnings


def strip_fence(text: str) -> tuple[str, str | None]:
    """The text without a code fence enclosing all of it, and the opening fence if there was one."""
    found = FENCE.match(text)
    return (found[2], found[1]) if found else (text, None)


class OpenAIEngine(EngineBase):
    def __init__(self, spec: EngineSpec) -> None:
        options = _options.check_options(spec, SCHEMA)
        _http.check_common(spec, options)
        base_url = _http.check_url(spec, "base_url", options["base_url"]).rstrip("/")
        self.url = f"{base_url}/chat/completions"
        if options["max_tokens"] < 1:
            raise _options.error(spec, f"option 'max_tokens' must be 1 or more, got {options['max_tokens']}")
        clash = next((key for key in OWN_KEYS if key in options["extra_body"]), None)
        if clash:
            raise _options.error(
                spec, f"option 'extra_body' sets {clash!r}; set it with option {OWN_KEYS[clash]!r} instead"
            )
        self.model, self.prompt, self.system = options["model"], options["prompt"], options["system"]
        self.max_tokens = options["max_tokens"]
        self.body = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": options["temperature"],
            **options["extra_body"],
        }
        self.concurrency = options["concurrency"]

        timeout = _options.check_timeout(spec, options["timeout"])
        key = _http.read_api_key(spec, options["api_key_env"])
        self.client = _http.Client(spec, options, timeout=timeout, key=key)
        # The engine sets Content-Type, and Authorization when there is a key.
        headers = _http.sent_headers(
            options["headers"], "Content-Type", *(["Authorization"] if key is not None else [])
        )
        self.headers = {**headers, "Content-Type": "application/json"}
        if key is not None:
            self.headers["Authorization"] = f"Bearer {key}"
        self.config = {
            "base_url": _http.public_url(base_url),
            "model": self.model,
            "prompt": self.prompt,
            "system": self.system,
            "max_tokens": self.max_tokens,
            "temperature": options["temperature"],
            "extra_body": options["extra_body"],
            "headers": _http.fingerprint_headers(headers),  # values hashed; the key is not in it
            "api_key_env": options["api_key_env"],
        }

    def request(self, image_url: str) -> dict:
        """The chat-completions request body for one image."""
        messages = [{"role": "system", "content": self.system}] if self.system else []
        content = [{"type": "image_url", "image_url": {"url": image_url}}, {"type": "text", "text": self.prompt}]
        return {**self.body, "messages": [*messages, {"role": "user", "content": content}]}

    def recognize(self, image: Path) -> Recognition:
        image = Path(image)
        try:
            url, warnings = data_url(image)
        except EngineError as exc:
            raise self.client.error(str(exc)) from None
        body = json.dumps(self.request(url), ensure_ascii=False).encode("utf-8")
        document = self.client.post(self.url, body, self.headers, image)
        try:
            recognition = self._parse(document, warnings)
        except EngineError as exc:
            raise self.client.error(f"POST {_http.public_url(self.url)} for {image.name}: {exc}") from None
        return self.client.finish(recognition)

    def _parse(self, document: Any, warnings: list[str]) -> Recognition:
        if isinstance(document, dict) and "choices" not in document and "error" in document:
            raise EngineError(f"the server answered with an error: {_http.shorten(str(document['error']))}")
        choice = _http.lookup(document, "choices.0", "a chat completion's choices.0")
        finish_reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        text = _http.lookup(choice, "message.content", "a chat completion's choices.0.message.content")
        if not isinstance(text, str):
            raise EngineError(
                f"choices.0.message.content is {'null' if text is None else type(text).__name__}, not text "
                f"(finish_reason={finish_reason}); the model gave no answer to transcribe"
            )
        text, fence = strip_fence(text)
        raw: dict[str, Any] = {"finish_reason": finish_reason}
        usage = document.get("usage")
        if isinstance(usage, dict):
            raw["usage"] = {key: usage.get(key) for key in ("prompt_tokens", "completion_tokens")}
        if fence:
            raw["stripped_fence"] = fence
        if finish_reason == "length":
            warnings = [*warnings, f"output cut off at max_tokens={self.max_tokens} (finish_reason=length)"]
        # A repetition loop is detected for every engine's output when it is scored.
        return Recognition(text=text, raw=raw, warnings=warnings)

    def fingerprint(self) -> dict:
        return {"type": "openai", "version": None, "config": self.config}

    def close(self) -> None:
        self.client.close()
