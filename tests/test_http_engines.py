"""The http and openai engines against real HTTP servers on 127.0.0.1 (engine_helpers/servers.py):
what they send, what they read back, every way a server can fail, one deadline per recognition
(a trickled answer, a Retry-After of an hour), thread safety, header values in the fingerprint
(hashed), and an API key that never shows up in a message while what the server returned is
scored as returned."""

from __future__ import annotations

import base64
import datetime
import email.utils
import hashlib
import io
import json
import re
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import urllib3
from conftest import DATA
from engine_helpers.servers import FakeServer, completion
from PIL import Image

from pytest_ocr import limits
from pytest_ocr.engines import EngineError, EngineRegistry, EngineSpec
from pytest_ocr.engines.base import fingerprint_id
from pytest_ocr.engines.http import HttpEngine
from pytest_ocr.engines.openai import DEFAULT_PROMPT, OpenAIEngine, strip_fence

pytest_plugins = ["pytester"]

SENTINEL = "sk-test-SENTINEL-7f3a9c1e5b2d4e6f"
FAST = {"timeout": 0.5, "retries": 2, "backoff": 0.05}
TIFF = DATA / "pages" / "tess_phototest.tif"
PNG = DATA / "lines" / "archiscribe_homerswerke06vossgoog_6390c50e.png"
JPEG = DATA / "lines" / "rapidocr_en_rec.jpg"


@pytest.fixture
def fake():
    """Start FakeServers for one test; all are stopped afterwards."""
    started = []

    def start(**kwargs) -> FakeServer:
        server = FakeServer(**kwargs).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def spec(type_: str, **options) -> EngineSpec:
    return EngineSpec(name=f"my-{type_}", type=type_, options=options, source="ocr.yaml:3")


def http_engine(url: str, **options) -> HttpEngine:
    return EngineRegistry().create(spec("http", url=url, **{**FAST, **options}))


def openai_engine(server: FakeServer, **options) -> OpenAIEngine:
    return EngineRegistry().create(spec("openai", base_url=server.base_url, model="fake-vlm", **{**FAST, **options}))


def free_port() -> int:
    """A port nothing listens on (bound once by the OS, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- http: what is sent and what is read ------------------------------------------------


def test_http_multipart_sends_the_file_the_form_and_the_headers(fake):
    answer = {"result": {"text": "Hello", "lines": ["Hello"], "score": 0.93, "kv": {"total": "5.00"}}, "status": "done"}
    server = fake(reply=lambda request: answer)
    engine = http_engine(
        server.ocr_url,
        form={"lang": "deu", "dpi": 300},
        headers={"X-Tenant": "ci"},
        text_path="result.text",
        lines_path="result.lines",
        confidence_path="result.score",
        fields_path="result.kv",
    )
    result = engine.recognize(TIFF)
    assert (result.text, result.lines, result.confidence, result.fields) == (
        "Hello",
        ["Hello"],
        0.93,
        {"total": "5.00"},
    )
    assert result.warnings == []
    (request,) = server.requests
    assert (request.method, request.path) == ("POST", "/ocr")
    assert request.headers["Content-Type"].startswith("multipart/form-data; boundary=")
    form = request.form()
    assert set(form) == {"image", "lang", "dpi"}
    assert form["image"].data == TIFF.read_bytes()
    assert (form["image"].filename, form["image"].content_type) == ("tess_phototest.tif", "image/tiff")
    assert (form["lang"].data, form["dpi"].data) == (b"deu", b"300")
    assert request.headers["X-Tenant"] == "ci"
    assert request.headers["Authorization"] is None
    assert request.headers["User-Agent"].startswith("pytest-ocr/")


def test_http_multipart_field_name_is_configurable(fake):
    server = fake()
    http_engine(server.ocr_url, field="file").recognize(PNG)
    form = server.requests[0].form()
    assert set(form) == {"file"} and form["file"].content_type == "image/png"


def test_http_base64_mode_sends_json(fake):
    server = fake()
    engine = http_engine(server.ocr_url, mode="base64", json_key="img", form={"lang": "deu", "options": {"psm": 6}})
    assert engine.recognize(JPEG).text == "hello world"
    request = server.requests[0]
    assert request.headers["Content-Type"] == "application/json"
    body = request.json()
    assert set(body) == {"img", "lang", "options"}
    assert base64.b64decode(body["img"]) == JPEG.read_bytes()
    assert (body["lang"], body["options"]) == ("deu", {"psm": 6})


def test_http_lists_index_into_arrays(fake):
    server = fake(reply=lambda request: {"pages": [{"text": "page one"}, {"text": "page two"}]})
    assert http_engine(server.ocr_url, text_path="pages.1.text").recognize(PNG).text == "page two"


def test_http_passes_on_the_warnings_of_a_serve_worker(fake):
    server = fake(reply=lambda request: {"text": "x", "warnings": ["low contrast"]})
    assert http_engine(server.ocr_url).recognize(PNG).warnings == ["low contrast"]


def test_http_null_at_an_optional_path_means_not_given(fake):
    server = fake(reply=lambda request: {"text": "x", "lines": None, "confidence": None})
    result = http_engine(server.ocr_url, lines_path="lines", confidence_path="confidence").recognize(PNG)
    assert (result.lines, result.confidence) == (None, None)


@pytest.mark.parametrize(
    ("answer", "options", "expected"),
    [
        (
            {"result": {"pages": []}, "status": "done"},
            {},
            "the response has no 'text' (option text_path 'text'); at the top level it has the keys 'result', 'status'",
        ),
        (
            {"result": {"pages": []}},
            {"text_path": "result.pages.0.text"},
            "the response has no '0' (option text_path 'result.pages.0.text'); "
            "at 'result.pages' it has a list of 0 items",
        ),
        (
            {"text": "x", "meta": {}},
            {"fields_path": "meta.fields"},
            "the response has no 'fields' (option fields_path 'meta.fields'); "
            "at 'meta' it has no keys (an empty object)",
        ),
        (
            ["not", "an", "object"],
            {},
            "the response has no 'text' (option text_path 'text'); at the top level it has a list of 3 items",
        ),
        ({"text": 42}, {}, "the value at text_path 'text' is a number, not a string"),
        ({"text": None}, {}, "the value at text_path 'text' is null, not a string"),
        (
            {"text": "x", "lines": ["a", 5]},
            {"lines_path": "lines"},
            "the value at lines_path 'lines' is a list of 2, not a list of strings",
        ),
        (
            {"text": "x", "lines": "a\nb"},
            {"lines_path": "lines"},
            "the value at lines_path 'lines' is a string, not a list of strings",
        ),
        ({"text": "x", "c": 87.5}, {"confidence_path": "c"}, "the confidence at 'c' is 87.5, not between 0 and 1"),
        (
            {"text": "x", "c": True},
            {"confidence_path": "c"},
            "the value at confidence_path 'c' is a boolean, not a number",
        ),
    ],
)
def test_http_unexpected_responses_say_what_is_there(fake, answer, options, expected):
    server = fake(reply=lambda request: answer)
    with pytest.raises(EngineError) as info:
        http_engine(server.ocr_url, **options).recognize(PNG)
    assert str(info.value) == f"http engine 'my-http': POST {server.ocr_url} for {PNG.name}: {expected}"


def test_http_info_url_takes_the_remote_engines_fingerprint(fake):
    server = fake()
    fingerprint = http_engine(server.ocr_url, info_url=f"{server.url}/info").fingerprint()
    assert fingerprint["version"] == "1.0"
    assert fingerprint["config"]["remote"] == {"type": "fake", "version": "1.0", "config": {"x": 1}}
    assert fingerprint["config"]["info_url"] == f"{server.url}/info"
    assert http_engine(server.ocr_url).fingerprint()["version"] is None


def test_http_info_url_of_another_server_is_a_clear_error(fake):
    server = fake(reply=lambda request: {"status": "ok"})
    with pytest.raises(
        EngineError,
        match=r"GET http://127\.0\.0\.1:\d+/health \(option 'info_url'\) did not answer "
        r"with a pytest-ocr serve /info document",
    ):
        http_engine(server.ocr_url, info_url=f"{server.url}/health")


def test_http_fingerprint_has_the_options_that_shape_the_output_and_no_secrets(fake, monkeypatch):
    monkeypatch.setenv("OCR_KEY", SENTINEL)
    server = fake()
    engine = http_engine(
        f"{server.ocr_url}?token={SENTINEL}",
        mode="base64",
        form={"lang": "deu"},
        headers={"X-Tenant": "ci"},
        api_key_env="OCR_KEY",
        api_key_header="X-API-Key",
        text_path="result.text",
        timeout=9,
    )
    assert engine.fingerprint() == {
        "type": "http",
        "version": None,
        "config": {
            "url": server.ocr_url,
            "mode": "base64",
            "json_key": "image",
            "form": {"lang": "deu"},
            "headers": {"X-Tenant": "sha256:" + hashlib.sha256(b"ci").hexdigest()},  # never the value in clear
            "api_key_env": "OCR_KEY",
            "api_key_header": "X-API-Key",  # the key itself: not even hashed
            "text_path": "result.text",
        },
    }
    assert SENTINEL not in json.dumps(engine.fingerprint())
    assert engine.concurrency == 4


@pytest.mark.parametrize("type_", ["http", "openai"])
def test_engines_differing_only_in_a_header_value_have_different_fingerprints(fake, type_):
    server = fake()

    def engine(**headers):
        where = {"url": server.ocr_url} if type_ == "http" else {"base_url": server.base_url, "model": "m"}
        return EngineRegistry().create(spec(type_, **where, headers=headers))

    tenant_a, tenant_b = engine(**{"X-Tenant": "tenant-a"}), engine(**{"X-Tenant": "tenant-b"})
    assert fingerprint_id(tenant_a.fingerprint()) != fingerprint_id(tenant_b.fingerprint())
    assert fingerprint_id(tenant_a.fingerprint()) == fingerprint_id(engine(**{"X-Tenant": "tenant-a"}).fingerprint())
    for value in ("tenant-a", "tenant-b"):
        assert value not in json.dumps([tenant_a.fingerprint(), tenant_b.fingerprint()])


# --- http: API keys ---------------------------------------------------------------------------


def test_http_api_key_goes_in_the_named_header(fake, monkeypatch):
    monkeypatch.setenv("OCR_KEY", SENTINEL)
    server = fake()
    http_engine(server.ocr_url, api_key_env="OCR_KEY").recognize(PNG)
    http_engine(server.ocr_url, api_key_env="OCR_KEY", api_key_header="X-API-Key").recognize(PNG)
    bearer, bare = server.requests
    assert bearer.headers["Authorization"] == f"Bearer {SENTINEL}" and bearer.headers["X-API-Key"] is None
    assert bare.headers["X-API-Key"] == SENTINEL and bare.headers["Authorization"] is None


def test_http_missing_key_variable_names_it(monkeypatch):
    monkeypatch.delenv("OCR_KEY_UNSET", raising=False)
    with pytest.raises(EngineError) as info:
        http_engine("http://127.0.0.1:9/ocr", api_key_env="OCR_KEY_UNSET")
    assert str(info.value) == (
        "http engine 'my-http' (declared at ocr.yaml:3): environment variable OCR_KEY_UNSET (option 'api_key_env') "
        "is not set; set it to the API key before running"
    )
    monkeypatch.setenv("OCR_KEY_UNSET", "")
    with pytest.raises(EngineError, match=r"OCR_KEY_UNSET \(option 'api_key_env'\) is empty"):
        http_engine("http://127.0.0.1:9/ocr", api_key_env="OCR_KEY_UNSET")


def test_a_key_given_instead_of_a_variable_name_is_refused_without_echoing_it():
    with pytest.raises(EngineError) as info:
        http_engine("http://127.0.0.1:9/ocr", api_key_env=SENTINEL)
    assert "must be the NAME of an environment variable" in str(info.value)
    assert SENTINEL not in str(info.value)


def test_a_key_echoed_by_the_server_is_redacted_everywhere(fake, monkeypatch):
    monkeypatch.setenv("OCR_KEY", SENTINEL)
    echo = fake(default="echo_auth")
    with pytest.raises(EngineError) as info:
        http_engine(echo.ocr_url, api_key_env="OCR_KEY").recognize(PNG)
    message = str(info.value)
    assert echo.requests[0].headers["Authorization"] == f"Bearer {SENTINEL}"  # it was sent, and echoed
    assert SENTINEL not in message
    assert "HTTP 401 Unauthorized" in message and "invalid credentials: Bearer ***" in message
    assert "check the key in $OCR_KEY" in message

    # The recognition is what the server returned (it is scored so; reports replace the key, as
    # test_a_key_in_the_recognised_text_is_scored_as_returned_and_reported_redacted shows); a key
    # in what is scored gets a warning, which does not show it.
    in_text = fake(
        reply=lambda r: {
            "text": f"key {r.headers['Authorization']}",
            "fields": {"k": r.headers["Authorization"]},
            "warnings": [f"echo {r.headers['Authorization']}"],
        }
    )
    result = http_engine(in_text.ocr_url, api_key_env="OCR_KEY", fields_path="fields").recognize(PNG)
    assert (result.text, result.fields) == (f"key Bearer {SENTINEL}", {"k": f"Bearer {SENTINEL}"})
    assert result.warnings == [
        f"echo Bearer {SENTINEL}",
        "the recognised output contains the value of $OCR_KEY (the API key): it is scored as the server "
        "returned it and reported as ***; check what the server answers",
    ]

    with pytest.raises(EngineError) as info:
        http_engine(f"{fake(default='500').ocr_url}?key={SENTINEL}", retries=0).recognize(PNG)
    assert SENTINEL not in str(info.value) and "key=" not in str(info.value)


# --- http: faults --------------------------------------------------------------------------------


def test_500_then_ok_succeeds_after_retries(fake):
    server = fake(faults=["500", "500"], text="third time lucky")
    assert http_engine(server.ocr_url, retries=2).recognize(PNG).text == "third time lucky"
    assert len(server.requests) == 3


def test_always_500_names_the_status_the_body_and_the_attempts(fake):
    body = '{"error": "' + "E" * 290 + " BEYOND-300-CHARACTERS " + "x" * 500 + '"}'
    server = fake(default="500", error_body=body)
    with pytest.raises(EngineError) as info:
        http_engine(server.ocr_url, retries=2).recognize(PNG)
    message = str(info.value)
    assert message.startswith(
        f"http engine 'my-http': POST {server.ocr_url} for {PNG.name} failed after 3 attempts: "
        "HTTP 500 Internal Server Error; "
        f"response: '{body[:300]}...(shortened)'"
    )
    assert "BEYOND-300" not in message
    assert message.endswith("the server failed; check its log")
    assert len(server.requests) == 3


@pytest.mark.slow
@pytest.mark.parametrize("status", ["429", "503"])
def test_retry_after_within_the_budget_is_honoured(fake, status):
    server = fake(faults=[status], retry_after="1")
    start = time.perf_counter()
    assert http_engine(server.ocr_url, backoff=0.05, timeout=5).recognize(PNG).text == "hello world"
    assert time.perf_counter() - start >= 1.0  # the first retry would be at once without it
    assert len(server.requests) == 2


RAN_OUT_HINT = (
    "the server may be overloaded or the model slow: raise option 'timeout' (it covers the whole recognition, "
    "retries included) or lower 'concurrency'"
)


@pytest.mark.slow
def test_slow_server_times_out(fake):
    server = fake(default="slow", slow_s=3)
    start = time.perf_counter()
    with pytest.raises(EngineError) as info:
        http_engine(server.ocr_url, retries=1).recognize(PNG)
    assert 0.5 <= time.perf_counter() - start < 0.8  # timeout 0.5: the budget of the call, not of each attempt
    assert str(info.value) == (
        f"http engine 'my-http': POST {server.ocr_url} for {PNG.name} failed after 1 attempt: "
        f"the 0.5 s budget (option 'timeout') ran out while waiting for the response; {RAN_OUT_HINT}"
    )
    assert len(server.requests) == 1  # no time was left for the retry


def test_malformed_json_shows_the_parse_error_and_the_body(fake):
    server = fake(default="malformed")
    with pytest.raises(EngineError) as info:
        http_engine(server.ocr_url).recognize(PNG)
    assert str(info.value) == (
        f"http engine 'my-http': POST {server.ocr_url} for {PNG.name}: the response (HTTP 200) is not valid JSON "
        '(Unterminated string starting at: line 1 column 10 (char 9)); response: \'{"text": "unterminated\'; '
        "check that the URL is the endpoint that answers in JSON"
    )
    assert len(server.requests) == 1  # a 200 is not retried


def test_dropped_connection(fake):
    server = fake(default="drop")
    with pytest.raises(EngineError) as info:
        http_engine(server.ocr_url).recognize(PNG)
    assert str(info.value) == (
        f"http engine 'my-http': POST {server.ocr_url} for {PNG.name} failed after 3 attempts: "
        "the connection was closed "
        "without a complete response (Remote end closed connection without response); check the server's log "
        "(a crash, an out-of-memory kill, or a proxy's size or time limit)"
    )
    assert len(server.requests) == 3


def test_connection_refused():
    port = free_port()
    with pytest.raises(EngineError) as info:
        http_engine(f"http://127.0.0.1:{port}/ocr", retries=1).recognize(PNG)
    assert str(info.value) == (
        f"http engine 'my-http': POST http://127.0.0.1:{port}/ocr for {PNG.name} failed after 2 attempts: "
        "could not connect "
        f"to 127.0.0.1:{port} (Connection refused); is the server running and listening there? check the URL"
    )


def test_a_4xx_is_not_retried(fake):
    server = fake(default="400")
    with pytest.raises(EngineError) as info:
        http_engine(server.ocr_url).recognize(PNG)
    assert str(info.value) == (
        f"http engine 'my-http': POST {server.ocr_url} for {PNG.name} failed after 1 attempt: HTTP 400 Bad Request; "
        'response: \'{"error": {"message": "unsupported image"}}\'; '
        "the server rejected the request; check the engine's options against what the server expects"
    )
    assert len(server.requests) == 1


def test_redirects_are_not_followed(fake, monkeypatch):
    monkeypatch.setenv("OCR_KEY", SENTINEL)
    server = fake(default="redirect")
    with pytest.raises(EngineError) as info:
        http_engine(server.ocr_url, api_key_env="OCR_KEY", api_key_header="X-API-Key").recognize(PNG)
    assert str(info.value) == (
        f"http engine 'my-http': POST {server.ocr_url} for {PNG.name} failed after 1 attempt: "
        "HTTP 307 Temporary Redirect; "
        f"response: '{{}}'; the server redirects (to {server.url}/elsewhere); redirects are not followed: "
        "point the URL at the final address"
    )
    assert [r.path for r in server.requests] == ["/ocr"]  # the key's header went nowhere else


# --- http: concurrency ----------------------------------------------------------------------------


@pytest.mark.slow
def test_concurrent_calls_never_exceed_the_engines_concurrency(fake):
    def digest(request):
        return {"text": hashlib.sha256(request.form()["image"].data).hexdigest()}

    server = fake(delay=0.2, reply=digest)
    engine = http_engine(server.ocr_url, concurrency=3, timeout=5)
    images = [TIFF, PNG, JPEG, DATA / "lines" / "rapidocr_el_rec.jpg"] * 3
    with ThreadPoolExecutor(len(images)) as pool:
        texts = [r.text for r in pool.map(engine.recognize, images)]
    assert texts == [hashlib.sha256(image.read_bytes()).hexdigest() for image in images]  # no answer mixed up
    assert len(server.requests) == 12
    assert server.max_in_flight == 3


# --- openai: what is sent and what is read -------------------------------------------------------


def data_url_of(request) -> str:
    (image_part,) = [p for p in request.json()["messages"][-1]["content"] if p["type"] == "image_url"]
    return image_part["image_url"]["url"]


def test_openai_sends_model_prompt_system_parameters_and_the_image(fake, monkeypatch):
    monkeypatch.setenv("OCR_KEY", SENTINEL)
    server = fake(text="Hello")
    engine = openai_engine(
        server,
        prompt="Read it.",
        system="You are an OCR engine.",
        max_tokens=512,
        temperature=0.2,
        extra_body={"repetition_penalty": 1.05, "skip_special_tokens": False},
        headers={"X-Org": "qa"},
        api_key_env="OCR_KEY",
    )
    result = engine.recognize(JPEG)
    (request,) = server.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["Authorization"] == f"Bearer {SENTINEL}" and request.headers["X-Org"] == "qa"
    assert request.headers["Content-Type"] == "application/json"
    assert request.json() == {
        "model": "fake-vlm",
        "max_tokens": 512,
        "temperature": 0.2,
        "repetition_penalty": 1.05,
        "skip_special_tokens": False,
        "messages": [
            {"role": "system", "content": "You are an OCR engine."},
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {"url": "data:image/jpeg;base64," + base64.b64encode(JPEG.read_bytes()).decode()},
                    },
                    {"type": "text", "text": "Read it."},
                ],
            },
        ],
    }
    assert result.text == "Hello"
    assert result.raw == {"finish_reason": "stop", "usage": {"prompt_tokens": 1234, "completion_tokens": 56}}
    assert result.warnings == []


def test_openai_defaults(fake):
    server = fake()
    openai_engine(server, timeout=None, retries=None, backoff=None).recognize(PNG)
    body = server.requests[0].json()
    assert set(body) == {"model", "messages", "max_tokens", "temperature"}
    assert (body["max_tokens"], body["temperature"]) == (4096, 0.0)
    (user,) = body["messages"]
    assert user["content"][1] == {"type": "text", "text": DEFAULT_PROMPT}
    assert data_url_of(server.requests[0]) == "data:image/png;base64," + base64.b64encode(PNG.read_bytes()).decode()
    assert server.requests[0].headers["Authorization"] is None


def test_openai_converts_tiff_to_png_losslessly_keeping_the_resolution(fake):
    server = fake()
    openai_engine(server).recognize(TIFF)
    url = data_url_of(server.requests[0])
    assert url.startswith("data:image/png;base64,")
    sent = Image.open(io.BytesIO(base64.b64decode(url.partition(",")[2])))
    original = Image.open(TIFF)
    assert sent.format == "PNG"
    assert (sent.mode, sent.size) == (original.mode, original.size) == ("1", (640, 480))
    assert sent.tobytes() == original.tobytes()
    assert sent.info["dpi"] == pytest.approx(original.info["dpi"], abs=0.01)


def test_openai_multipage_tiff_sends_the_first_page_and_says_so(fake, tmp_path):
    pages = [Image.new("L", (60, 20), shade) for shade in (0, 128, 255)]
    pages[0].save(tmp_path / "three.tif", save_all=True, append_images=pages[1:])
    server = fake()
    result = openai_engine(server).recognize(tmp_path / "three.tif")
    assert result.warnings == ["three.tif has 3 pages; only the first was sent"]
    sent = Image.open(io.BytesIO(base64.b64decode(data_url_of(server.requests[0]).partition(",")[2])))
    assert sent.tobytes() == pages[0].tobytes()


def test_openai_cmyk_is_converted_to_rgb(fake, tmp_path):
    Image.new("CMYK", (8, 8), (0, 255, 255, 0)).save(tmp_path / "red.tif")
    server = fake()
    openai_engine(server).recognize(tmp_path / "red.tif")
    sent = Image.open(io.BytesIO(base64.b64decode(data_url_of(server.requests[0]).partition(",")[2])))
    assert sent.mode == "RGB" and sent.getpixel((0, 0)) == (255, 0, 0)  # no cyan, full magenta and yellow: red


def test_openai_unreadable_image_is_an_engine_error(fake, tmp_path):
    (tmp_path / "scan.tif").write_bytes(b"II*\x00\x08\x00\x00\x00" + bytes(8))  # a TIFF header, then no image
    server = fake()
    with pytest.raises(EngineError, match=r"^openai engine 'my-openai': cannot convert .*scan\.tif to PNG: "):
        openai_engine(server).recognize(tmp_path / "scan.tif")
    assert server.requests == []


@pytest.mark.parametrize(
    ("content", "text", "fence"),
    [
        ("```\nHello\nWorld\n```", "Hello\nWorld", "```"),
        ("```markdown\nHello\n```\n", "Hello", "```markdown"),
        ("  ```text\nHello\n```  ", "Hello", "```text"),
        ("```\nLine one\n```\nLine two\n```", "Line one\n```\nLine two", "```"),  # only the enclosing pair goes
        ("```text\nHello, cut off at the token li", "Hello, cut off at the token li", "```text"),  # never closed
        ("Hello\n```\ncode\n```", "Hello\n```\ncode\n```", None),  # not at the start: page content
        ("Use ``` for code", "Use ``` for code", None),
        ("```python", "```python", None),  # nothing after the fence line
    ],
)
def test_strip_fence(content, text, fence):
    assert strip_fence(content) == (text, fence)


def test_openai_strips_an_enclosing_fence_and_records_it(fake):
    server = fake(text="```markdown\nINVOICE 42\nTotal: 5.00\n```")
    result = openai_engine(server).recognize(PNG)
    assert result.text == "INVOICE 42\nTotal: 5.00"
    assert result.raw["stripped_fence"] == "```markdown"


def test_openai_truncation_is_a_warning(fake):
    looping = "Invoice 42\n" + "Total: 0.00\n" * 37
    server = fake(text=looping, finish_reason="length")
    result = openai_engine(server, max_tokens=450).recognize(PNG)
    assert result.text == looping  # reported as read: the metrics judge it (and flag the loop)
    assert result.raw["finish_reason"] == "length"
    assert result.warnings == ["output cut off at max_tokens=450 (finish_reason=length)"]
    assert openai_engine(fake(text="Total: 0.00\n" * 2)).recognize(PNG).warnings == []


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            completion(None, "content_filter"),
            "choices.0.message.content is null, not text (finish_reason=content_filter); "
            "the model gave no answer to transcribe",
        ),
        (
            {"id": "x", "object": "chat.completion"},
            "the response has no 'choices' (a chat completion's choices.0); "
            "at the top level it has the keys 'id', 'object'",
        ),
        (
            {"id": "x", "choices": []},
            "the response has no '0' (a chat completion's choices.0); at 'choices' it has a list of 0 items",
        ),
        (
            {"error": {"message": "model not loaded"}},
            "the server answered with an error: {'message': 'model not loaded'}",
        ),
    ],
)
def test_openai_unexpected_responses(fake, answer, expected):
    server = fake(reply=lambda request: answer)
    with pytest.raises(EngineError) as info:
        openai_engine(server).recognize(PNG)
    assert (
        str(info.value)
        == f"openai engine 'my-openai': POST {server.base_url}/chat/completions for {PNG.name}: {expected}"
    )


def test_openai_faults_name_the_endpoint(fake):
    server = fake(faults=["500"], default="drop")
    with pytest.raises(EngineError) as info:
        openai_engine(server).recognize(PNG)
    assert str(info.value).startswith(
        f"openai engine 'my-openai': POST {server.base_url}/chat/completions for {PNG.name} failed after 3 attempts: "
        "the connection was closed without a complete response"
    )
    assert len(server.requests) == 3


def test_openai_fingerprint_and_key(fake, monkeypatch):
    monkeypatch.setenv("OCR_KEY", SENTINEL)
    echo = fake(default="echo_auth")
    engine = openai_engine(
        echo, system="Be exact.", extra_body={"top_k": 1}, headers={"X-Org": "qa"}, api_key_env="OCR_KEY"
    )
    assert engine.fingerprint() == {
        "type": "openai",
        "version": None,
        "config": {
            "base_url": echo.base_url,
            "model": "fake-vlm",
            "prompt": DEFAULT_PROMPT,
            "system": "Be exact.",
            "max_tokens": 4096,
            "temperature": 0.0,
            "extra_body": {"top_k": 1},
            "headers": {"X-Org": "sha256:" + hashlib.sha256(b"qa").hexdigest()},
            "api_key_env": "OCR_KEY",
        },
    }
    with pytest.raises(EngineError) as info:
        engine.recognize(PNG)
    assert SENTINEL not in str(info.value) and "Bearer ***" in str(info.value)
    assert echo.requests[0].headers["Authorization"] == f"Bearer {SENTINEL}"


@pytest.mark.slow
def test_openai_concurrent_calls(fake):
    def digest(request):
        return completion(hashlib.sha256(base64.b64decode(data_url_of(request).partition(",")[2])).hexdigest())

    server = fake(delay=0.2, reply=digest)
    engine = openai_engine(server, concurrency=2, timeout=5)
    images = [PNG, JPEG] * 3
    with ThreadPoolExecutor(len(images)) as pool:
        results = list(pool.map(engine.recognize, images))
    assert [r.text for r in results] == [hashlib.sha256(image.read_bytes()).hexdigest() for image in images]
    assert server.max_in_flight == 2


# --- option errors ------------------------------------------------------------------------------------

URL = "http://127.0.0.1:9/ocr"


@pytest.mark.parametrize(
    ("type_", "options", "expected"),
    [
        ("http", {}, ["'url'", "is required"]),
        (
            "http",
            {"url": "ftp://host/ocr"},
            ["option 'url' must be an http:// or https:// URL with a host, got 'ftp://host/ocr'"],
        ),
        ("http", {"url": URL, "mode": "form"}, ["option 'mode' must be one of multipart, base64, got 'form'"]),
        (
            "http",
            {"url": URL, "form": {"image": "x"}},
            ["option 'form' has key 'image', which is where the image goes (option 'field')"],
        ),
        (
            "http",
            {"url": URL, "form": {"meta": {"a": 1}}},
            ["multipart form fields must be strings or numbers, 'meta' is not"],
        ),
        ("http", {"url": URL, "headers": {"X-N": 1}}, ["option 'headers' must be dict[str, str]"]),
        ("http", {"url": URL, "concurrency": 0}, ["option 'concurrency' must be 1 or more, got 0"]),
        ("http", {"url": URL, "retries": -1}, ["option 'retries' must be 0 or more, got -1"]),
        ("http", {"url": URL, "timeout": 0}, ["'timeout' must be a positive number of seconds"]),
        ("http", {"url": URL, "info_url": "/info"}, ["option 'info_url' must be an http:// or https:// URL"]),
        ("http", {"url": URL, "txt_path": "x"}, ["unknown option 'txt_path'", "text_path (str)"]),
        ("openai", {"base_url": URL}, ["option 'model' (str) is required"]),
        ("openai", {"model": "m"}, ["option 'base_url' (str) is required"]),
        (
            "openai",
            {"base_url": URL, "model": "m", "extra_body": {"messages": []}},
            ["option 'extra_body' sets 'messages'; set it with option 'prompt' instead"],
        ),
        ("openai", {"base_url": URL, "model": "m", "max_tokens": 0}, ["option 'max_tokens' must be 1 or more, got 0"]),
        ("openai", {"base_url": URL, "model": "m", "temperature": "0"}, ["option 'temperature' must be number"]),
    ],
)
def test_bad_options_name_the_engine_and_the_key(type_, options, expected):
    with pytest.raises(EngineError) as info:
        EngineRegistry().create(spec(type_, **options))
    message = str(info.value)
    assert message.startswith(f"{type_} engine 'my-{type_}' (declared at ocr.yaml:3): ")
    for part in expected:
        assert part in message


# --- through the plugin ---------------------------------------------------------------------------------


def write_suite(pytester, engines: dict[str, dict], cases: list[str], **case_options) -> None:
    pytester.makeini("[pytest]\nocr_config = ocr-config.yaml\n")
    pytester.makefile(".yaml", **{"ocr-config": json.dumps({"engines": engines})})
    (pytester.path / "scan.png").write_bytes(PNG.read_bytes())
    suite = {
        "defaults": {"engine": list(engines), **case_options},
        "cases": [{"id": case, "image": "scan.png", "expected": {"text": "hello world"}} for case in cases],
    }
    pytester.makefile(".ocr.yaml", suite=json.dumps(suite))


@pytest.mark.slow
def test_faulty_servers_are_errors_for_their_items_and_the_rest_passes(pytester, fake):
    fast = {"timeout": 0.5, "retries": 1, "backoff": 0.05}
    ok, vlm = fake(), fake()
    engines = {
        "ok": {"type": "http", "url": ok.ocr_url, **fast},
        "vlm": {"type": "openai", "base_url": vlm.base_url, "model": "fake-vlm", **fast},
        "broken": {"type": "http", "url": fake(default="500").ocr_url, **fast},
        "dropping": {"type": "http", "url": fake(default="drop").ocr_url, **fast},
        "slow": {"type": "http", "url": fake(default="slow", slow_s=2).ocr_url, **fast},
        "malformed": {"type": "openai", "base_url": fake(default="malformed").base_url, "model": "m", **fast},
        "no-text": {"type": "openai", "base_url": fake(default="missing").base_url, "model": "m", **fast},
    }
    write_suite(pytester, engines, ["inv-001", "inv-002"], thresholds={"cer": "< 0.01"})
    result = pytester.runpytest("-p", "no:cacheprovider", "--ocr-report", "report.json")
    result.assert_outcomes(passed=4, errors=10)
    assert result.ret == 1
    report = json.loads((pytester.path / "report.json").read_text())
    records = {(r["case"], r["engine"]): r for r in report["results"]}
    assert len(records) == len(report["results"]) == 14  # every item, once
    for case in ("inv-001", "inv-002"):
        for engine in ("ok", "vlm"):
            assert records[case, engine]["outcome"] == "passed" and records[case, engine]["metrics"]["cer"] == 0
        errors = {engine: records[case, engine]["error"] for engine in engines if engine not in ("ok", "vlm")}
        assert all(records[case, engine]["outcome"] == "error" for engine in errors)
        assert "failed after 2 attempts: HTTP 500 Internal Server Error" in errors["broken"]
        assert "failed after 2 attempts: the connection was closed without a complete response" in errors["dropping"]
        assert "failed after 1 attempt: the 0.5 s budget (option 'timeout') ran out while waiting" in errors["slow"]
        assert "is not valid JSON" in errors["malformed"]
        assert "the response has no 'choices'" in errors["no-text"]
    out = result.stdout.str()
    for message in (
        "HTTP 500 Internal Server Error",
        "the 0.5 s budget (option 'timeout') ran out",
        "is not valid JSON",
    ):
        assert message in out
    assert "Traceback" not in out
    assert len(ok.requests) == len(vlm.requests) == 2


@pytest.mark.slow
def test_the_api_key_appears_in_no_error_message_output_or_report(pytester, fake, monkeypatch):
    monkeypatch.setenv("OCR_TEST_KEY", SENTINEL)
    fast = {"timeout": 0.5, "retries": 0, "api_key_env": "OCR_TEST_KEY"}
    echo_error = fake(default="echo_auth")
    engines = {
        "echo-error": {"type": "http", "url": echo_error.ocr_url, **fast},
        "echo-error-vlm": {"type": "openai", "base_url": fake(default="echo_auth").base_url, "model": "m", **fast},
        "query": {"type": "http", "url": f"{fake(default='500').ocr_url}?api_key={SENTINEL}", **fast},
        "trickle": {"type": "http", "url": f"{fake(default='trickle').ocr_url}?api_key={SENTINEL}", **fast},
    }
    write_suite(pytester, engines, ["inv-001"], thresholds={"cer": "< 0.01"})
    result = pytester.runpytest("-p", "no:cacheprovider", "-v", "-rA", "--ocr-report", "report.json")
    result.assert_outcomes(errors=4)
    assert echo_error.requests[0].headers["Authorization"] == f"Bearer {SENTINEL}"  # the key was sent and echoed
    report = (pytester.path / "report.json").read_text()
    assert "Bearer ***" in result.stdout.str() and "Bearer ***" in report
    for text in (result.stdout.str(), result.stderr.str(), report):
        assert SENTINEL not in text


@pytest.mark.slow
def test_a_key_in_the_recognised_text_is_scored_as_returned_and_reported_redacted(pytester, fake, monkeypatch):
    """The page may hold the key's value (a test key): redacting it before scoring would change
    the scores. Metrics are on the text as returned; every report shows the key as ***."""
    monkeypatch.setenv("OCR_TEST_KEY", SENTINEL)
    answer = f"hello world {SENTINEL}"
    with_key, without_key = fake(text=answer), fake(text=answer)
    keyed = {"timeout": 5, "retries": 0, "api_key_env": "OCR_TEST_KEY"}
    engines = {
        "vlm-with-key": {"type": "openai", "base_url": with_key.base_url, "model": "m", **keyed},
        "vlm-without-key": {"type": "openai", "base_url": without_key.base_url, "model": "m", "timeout": 5},
        "http-with-key": {"type": "http", "url": with_key.ocr_url, **keyed},
        "refused": {"type": "http", "url": fake(default="echo_auth").ocr_url, **keyed},
    }
    write_suite(pytester, engines, ["inv-001"])
    result = pytester.runpytest("-p", "no:cacheprovider", "--ocr-report", "report.json")
    result.assert_outcomes(passed=3, errors=1)
    records = {r["engine"]: r for r in json.loads((pytester.path / "report.json").read_text())["results"]}
    raw_cer = (len(answer) - len("hello world")) / len("hello world")  # what was returned: 1 + 33 inserted
    for engine in ("vlm-with-key", "vlm-without-key", "http-with-key"):
        assert records[engine]["prediction"] == "hello world ***"  # the key is a secret of the run
        assert records[engine]["metrics"]["cer"] == pytest.approx(raw_cer)  # not 4/11, the redacted text's
    for engine in ("vlm-with-key", "http-with-key"):
        assert any("contains the value of $OCR_TEST_KEY (the API key)" in w for w in records[engine]["warnings"])
    assert with_key.requests[0].headers["Authorization"] == f"Bearer {SENTINEL}"
    error = records["refused"]["error"]
    assert "HTTP 401 Unauthorized" in error and "Bearer ***" in error
    assert "Bearer ***" in result.stdout.str()
    assert SENTINEL not in result.stdout.str() + (pytester.path / "report.json").read_text()


# --- one deadline per recognition -------------------------------------------------------------


@pytest.mark.parametrize("type_", ["http", "openai"])
@pytest.mark.parametrize("status", ["429", "503"])
def test_a_retry_after_beyond_the_budget_ends_the_call_at_once(fake, type_, status):
    server = fake(default=status, retry_after="3600")
    engine = http_engine(server.ocr_url, timeout=3) if type_ == "http" else openai_engine(server, timeout=3)
    start = time.perf_counter()
    with pytest.raises(EngineError) as info:
        engine.recognize(PNG)
    # waiting could not help: it does not wait (a wait would last the 3 s budget; the first call
    # of a process, which loads the client, took 0.51 s on a loaded machine)
    assert time.perf_counter() - start < 1.5
    message = str(info.value)
    assert f"failed after 1 attempt: HTTP {status} " in message
    assert re.search(
        r"the server asks to wait 3600 s \(Retry-After\), more than the [23]\.\d s left of the 3 s budget "
        r"\(option 'timeout'\)",
        message,
    )
    assert len(server.requests) == 1


@pytest.mark.slow
def test_retry_after_as_an_http_date_is_honoured(fake):
    when = email.utils.format_datetime(datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=2))
    server = fake(faults=["503"], retry_after=when)
    start = time.perf_counter()
    assert http_engine(server.ocr_url, timeout=6).recognize(PNG).text == "hello world"
    assert time.perf_counter() - start >= 0.9  # the date has whole seconds: at least 1 s ahead


@pytest.mark.slow
@pytest.mark.parametrize("type_", ["http", "openai"])
def test_a_body_trickled_for_ever_ends_at_the_deadline(fake, type_):
    server = fake(default="trickle", trickle_s=0.2)  # one byte every 0.2 s, never the end
    engine = http_engine(server.ocr_url, timeout=2, retries=3) if type_ == "http" else openai_engine(server, timeout=2)
    start = time.perf_counter()
    with pytest.raises(EngineError) as info:
        engine.recognize(PNG)
    elapsed = time.perf_counter() - start
    assert 2.0 <= elapsed < 2.4
    found = re.search(
        r"failed after 1 attempt: the 2 s budget \(option 'timeout'\) ran out while reading the response body "
        r"\((\d+) bytes received\); ",
        str(info.value),
    )
    assert found, str(info.value)
    if hasattr(urllib3.response.HTTPResponse, "read1"):  # urllib3 2.1+: bytes are counted as they come
        assert 5 <= int(found[1]) <= 11  # about 2 s / 0.2 s
    assert len(server.requests) == 1


@pytest.mark.slow
def test_headers_trickled_for_ever_end_at_the_deadline(fake):
    server = fake(default="trickle_head", trickle_s=0.01)
    start = time.perf_counter()
    with pytest.raises(EngineError) as info:
        http_engine(server.ocr_url, timeout=1.5).recognize(PNG)
    assert 1.5 <= time.perf_counter() - start < 1.9
    assert "the 1.5 s budget (option 'timeout') ran out while waiting for the response; " in str(info.value)


@pytest.mark.slow
def test_retries_and_their_backoff_share_the_budget(fake):
    server = fake(default="500")
    start = time.perf_counter()
    with pytest.raises(EngineError) as info:
        # waits 0, 0.4, 0.8, 1.6, ... s: after the third (1.2 s in all) 1.3 s of the 2.5 s budget are
        # left, so the fourth wait does not fit, while a loaded machine's slow requests (0.3 s of them
        # made a 1.5 s budget end a wait early) still leave room for the third
        http_engine(server.ocr_url, timeout=2.5, retries=10, backoff=0.2).recognize(PNG)
    assert time.perf_counter() - start < 2.5
    assert len(server.requests) == 4
    assert re.search(
        r"failed after 4 attempts: HTTP 500 Internal Server Error; .*; the backoff before the next attempt is 1\.6 s "
        r"\(backoff\), more than the [01]\.\d s left of the 2\.5 s budget \(option 'timeout'\)",
        str(info.value),
    )


@pytest.mark.slow
def test_a_slow_answer_after_a_failure_names_both(fake):
    server = fake(faults=["500"], default="slow", slow_s=3)
    with pytest.raises(EngineError) as info:
        http_engine(server.ocr_url, timeout=1, retries=2).recognize(PNG)
    assert str(info.value).startswith(
        f"http engine 'my-http': POST {server.ocr_url} for {PNG.name} failed after 2 attempts: the 1 s budget "
        "(option 'timeout') ran out while waiting for the response (the attempt before: HTTP 500 Internal Server "
        "Error; response: "
    )


@pytest.mark.slow
def test_a_trickling_server_does_not_hold_other_calls(fake):
    """Calls in other threads on the same engine keep their own deadlines and connections."""
    slow, fast = fake(default="trickle", trickle_s=0.2), fake()
    trickling = http_engine(slow.ocr_url, timeout=1.5, concurrency=2)
    quick = http_engine(fast.ocr_url, timeout=1.5, concurrency=2)
    with ThreadPoolExecutor(4) as pool:
        stuck = [pool.submit(trickling.recognize, PNG) for _ in range(2)]
        answers = [pool.submit(quick.recognize, PNG) for _ in range(2)]
        assert [a.result(timeout=5).text for a in answers] == ["hello world"] * 2
        for future in stuck:
            with pytest.raises(EngineError, match="ran out while reading the response body"):
                future.result(timeout=5)
    # and the connection pool is usable afterwards
    assert quick.recognize(PNG).text == "hello world"


@pytest.mark.slow
def test_waiting_for_a_free_connection_is_within_the_budget(fake):
    server = fake(default="trickle", trickle_s=0.2)
    engine = http_engine(server.ocr_url, timeout=1.5, concurrency=1)
    with ThreadPoolExecutor(1) as pool:
        holding = pool.submit(engine.recognize, PNG)  # holds the one connection for 1.5 s
        time.sleep(0.3)
        # A call with a shorter budget on the same connection pool (one engine's calls all have
        # the same budget, so the one waiting would otherwise get the connection first).
        waiting = http_engine(server.ocr_url, timeout=1.0, concurrency=1)
        waiting.client.pool = engine.client.pool
        start = time.perf_counter()
        with pytest.raises(EngineError) as info:
            waiting.recognize(PNG)
        assert 1.0 <= time.perf_counter() - start < 1.3
        assert "the 1 s budget (option 'timeout') ran out while waiting for a free connection (option " in str(
            info.value
        )
        with pytest.raises(EngineError, match="ran out while reading the response body"):
            holding.result(timeout=5)
    assert len(server.requests) == 1


@pytest.fixture
def small_outputs():
    """--ocr-max-output-mb 0.25 for this test (limits are process-wide, as the plugin sets them)."""
    previous = limits.active()
    limits.use(limits.Limits(max_output_mb=0.25))
    yield
    limits.use(previous)


@pytest.mark.parametrize("type_", ["http", "openai"])
def test_a_response_body_without_end_is_cut_at_a_bound(fake, small_outputs, type_):
    server = fake(default="flood")
    engine = http_engine(server.ocr_url, timeout=30) if type_ == "http" else openai_engine(server, timeout=30)
    start = time.perf_counter()
    with pytest.raises(EngineError) as info:
        engine.recognize(PNG)
    assert time.perf_counter() - start < 10  # bounded by the size, long before the 30 s budget
    assert "failed after 1 attempt: the response body is over 5 MB, 16 times the largest output a recognition " in (
        str(info.value)
    )
    assert "(--ocr-max-output-mb) and 1 MB; check that the URL is the OCR endpoint" in str(info.value)
    assert len(server.requests) == 1  # not retried


def test_a_large_answer_within_the_bound_is_read(fake, small_outputs):
    text = "é" * 120_000  # 240 KB of UTF-8 text: within 0.25 MB; JSON-escaped twice (text and lines): 1.4 MB
    server = fake(reply=lambda request: {"text": text, "lines": [text]})
    result = http_engine(server.ocr_url, timeout=10, lines_path="lines").recognize(PNG)
    assert (result.text, result.lines) == (text, [text])


# --- header values in the fingerprint, through the cache -------------------------------------------


@pytest.mark.slow
def test_engines_differing_only_in_header_values_do_not_share_cached_outputs(pytester, fake):
    """A header can choose what the server does (a model, a tenant): its value is part of the
    engine's identity, hashed."""
    texts = {"secret-model-a": "output of the first model", "secret-model-b": "output of the second model"}
    server = fake(reply=lambda r: {"text": texts[r.headers["X-Model"]]})
    cache = pytester.path / "ocr-cache"

    def run(model: str) -> dict:
        engines = {"remote": {"type": "http", "url": server.ocr_url, "headers": {"X-Model": model}, "timeout": 5}}
        write_suite(pytester, engines, ["inv-001"])
        result = pytester.runpytest("-p", "no:cacheprovider", "--ocr-cache-dir", str(cache), "--ocr-report", "r.json")
        result.assert_outcomes(passed=1)
        document = json.loads((pytester.path / "r.json").read_text())
        return {"record": document["results"][0], "engine": document["engines"]["remote"], "out": result.stdout.str()}

    first, second, again = run("secret-model-a"), run("secret-model-b"), run("secret-model-a")
    assert first["record"]["prediction"] == "output of the first model"
    assert second["record"]["prediction"] == "output of the second model"  # not the first's, from the cache
    assert again["record"]["prediction"] == "output of the first model"
    assert len(server.requests) == 2  # the third run was served from the cache
    assert first["engine"]["config"]["headers"] == {
        "X-Model": "sha256:" + hashlib.sha256(b"secret-model-a").hexdigest()
    }
    stored = "".join(path.read_text() for path in cache.rglob("*") if path.is_file())
    for run_ in (first, second, again):
        assert "secret-model" not in json.dumps(run_["engine"]) + run_["out"] + stored
