"""Any OCR service over HTTP: the image is POSTed, the text is read from the JSON answer.

The image goes as a multipart file upload (``mode: multipart``, the default) or as
base64 in a JSON body (``mode: base64``); the text, and optionally lines, confidence
and key fields, are taken from the response JSON at dotted paths. ``pytest-ocr serve``
is such a worker for any engine pytest-ocr can run.
"""

from __future__ import annotations

import base64
import json
import mimetypes
from pathlib import Path
from typing import Any

import urllib3

from . import _http, _options
from .base import EngineBase, EngineError, EngineSpec, Recognition

SCHEMA = {
    "url": (str, _options.REQUIRED),
    "mode": (str, "multipart"),
    "field": (str, "image"),
    "json_key": (str, "image"),
    "form": (dict[str, Any], {}),
    "api_key_header": (str, "Authorization"),
    "text_path": (str, "text"),
    "lines_path": (str, None),
    "confidence_path": (str, None),
    "fields_path": (str, None),
    "info_url": (str, None),
    "timeout": (float, 60),
    **_http.COMMON_SCHEMA,
}
MODES = ("multipart", "base64")
# What each path in the response must lead to.
RESULT_TYPES = {
    "text_path": (str, "a string"),
    "lines_path": (list[str], "a list of strings"),
    "confidence_path": (float, "a number"),
    "fields_path": (dict[str, Any], "an object"),
}


class HttpEngine(EngineBase):
    def __init__(self, spec: EngineSpec) -> None:
        options = _options.check_options(spec, SCHEMA)
        _http.check_common(spec, options)
        self.url = _http.check_url(spec, "url", options["url"])
        self.mode = options["mode"]
        if self.mode not in MODES:
            raise _options.error(spec, f"option 'mode' must be one of {', '.join(MODES)}, got {self.mode!r}")
        self.form = options["form"]
        name_key = "field" if self.mode == "multipart" else "json_key"
        self.image_key = options[name_key]
        if self.image_key in self.form:
            raise _options.error(
                spec, f"option 'form' has key {self.image_key!r}, which is where the image goes (option {name_key!r})"
            )
        if self.mode == "multipart":
            nested = [key for key, value in self.form.items() if isinstance(value, (dict, list)) or value is None]
            if nested:
                raise _options.error(
                    spec, f"option 'form': multipart form fields must be strings or numbers, {nested[0]!r} is not"
                )
        self.paths = {key: options[key] for key in RESULT_TYPES}
        self.concurrency = options["concurrency"]

        timeout = _options.check_timeout(spec, options["timeout"])
        key = _http.read_api_key(spec, options["api_key_env"])
        self.client = _http.Client(spec, options, timeout=timeout, key=key)
        header = options["api_key_header"]
        # The engine sets Content-Type, and the key's header when there is a key.
        headers = _http.sent_headers(options["headers"], "Content-Type", *([header] if key is not None else []))
        self.headers = dict(headers)
        if key is not None:
            self.headers[header] = f"Bearer {key}" if header.lower() == "authorization" else key

        # Header values may be secrets: they go into the fingerprint hashed, the key not at
        # all (it is read from the environment); the URL loses its query string, which may
        # hold a key too.
        self.config = {
            "url": _http.public_url(self.url),
            "mode": self.mode,
            name_key: self.image_key,
            "form": self.form,
            "headers": _http.fingerprint_headers(headers),
            "api_key_env": options["api_key_env"],
            **({"api_key_header": header} if key is not None else {}),
            **{key: path for key, path in self.paths.items() if path is not None},
        }
        self.version = None
        if options["info_url"] is not None:
            info_url = _http.check_url(spec, "info_url", options["info_url"])
            self.config["info_url"] = _http.public_url(info_url)
            self.version, self.config["remote"] = self._remote_fingerprint(info_url)

    def _remote_fingerprint(self, info_url: str) -> tuple[str | None, dict]:
        """The fingerprint of the engine behind a ``pytest-ocr serve`` worker (its /info)."""
        info = self.client.get(info_url, self.headers)
        fingerprint = info.get("fingerprint") if isinstance(info, dict) else None
        if not isinstance(fingerprint, dict) or not isinstance(fingerprint.get("type"), str):
            raise self.client.error(
                f"GET {_http.public_url(info_url)} (option 'info_url') did not answer with a pytest-ocr serve "
                f'/info document ({{"engine", "fingerprint": {{"type", "version", "config"}}}}); '
                f"remove the option for other servers"
            )
        version = fingerprint.get("version")
        return version if isinstance(version, str) else None, fingerprint

    def _body(self, image: Path) -> tuple[bytes, str]:
        try:
            data = image.read_bytes()
        except OSError as exc:
            raise EngineError(f"{self.client.what}: cannot read image {image}: {exc.strerror}") from None
        if self.mode == "base64":
            document = {**self.form, self.image_key: base64.b64encode(data).decode("ascii")}
            return json.dumps(document).encode(), "application/json"
        mime = mimetypes.guess_type(image.name)[0] or "application/octet-stream"
        fields = {key: value if isinstance(value, str) else json.dumps(value) for key, value in self.form.items()}
        return urllib3.encode_multipart_formdata({**fields, self.image_key: (image.name, data, mime)})

    def recognize(self, image: Path) -> Recognition:
        image = Path(image)
        body, content_type = self._body(image)
        document = self.client.post(self.url, body, {**self.headers, "Content-Type": content_type}, image)
        try:
            recognition = self._parse(document)
        except EngineError as exc:
            raise self.client.error(f"POST {_http.public_url(self.url)} for {image.name}: {exc}") from None
        return self.client.finish(recognition)

    def _parse(self, document: Any) -> Recognition:
        values: dict[str, Any] = {}
        for key, (kind, expected) in RESULT_TYPES.items():
            path = self.paths[key]
            value = None if path is None else _http.lookup(document, path, f"option {key} {path!r}")
            # null at an optional path means "not given"; the text must be there
            if (value is not None or key == "text_path") and not _options.matches(value, kind):
                raise EngineError(f"the value at {key} {path!r} is {_kind(value)}, not {expected}")
            values[key] = value
        text, confidence = values["text_path"], values["confidence_path"]
        if confidence is not None and not 0 <= confidence <= 1:
            path = self.paths["confidence_path"]
            raise EngineError(f"the confidence at {path!r} is {confidence}, not between 0 and 1")
        # `pytest-ocr serve` passes on what its engine warned about.
        warnings = document.get("warnings") if isinstance(document, dict) else None
        warnings = [w for w in warnings if isinstance(w, str)] if isinstance(warnings, list) else []
        return Recognition(
            text=text,
            lines=values["lines_path"],
            confidence=None if confidence is None else float(confidence),
            fields=values["fields_path"],
            warnings=warnings,
        )

    def fingerprint(self) -> dict:
        return {"type": "http", "version": self.version, "config": self.config}

    def close(self) -> None:
        self.client.close()


def _kind(value: Any) -> str:
    """A JSON value's type in JSON's words."""
    if isinstance(value, list):
        return f"a list of {len(value)}"
    names = {
        type(None): "null",
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        dict: "an object",
    }
    return names.get(type(value), type(value).__name__)
