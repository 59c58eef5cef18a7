"""The http and openai engines against real HTTP servers on 127.0.0.1 (engine_helpers/servers.py):
what they send, what they read back, every way a server can fail, thread safety, and that an
API key never shows up anywhere but in the request's header."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import DATA
from engine_helpers.servers import FakeServer, completion
from PIL import Image

from pytest_ocr.engines import EngineError, EngineRegistry, EngineSpec
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
            "headers": ["X-API-Key", "X-Tenant"],
            "api_key_env": "OCR_KEY",
            "text_path": "result.text",
        },
    }
    assert engine.concurrency == 4


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

    in_text = fake(
        reply=lambda r: {"text": f"key {r.headers['Authorization']}", "fields": {"k": r.headers["Authorization"]}}
    )
    result = http_engine(in_text.ocr_url, api_key_env="OCR_KEY", fields_path="fields").recognize(PNG)
    assert (result.text, result.fields) == ("key Bearer ***", {"k": "Bearer ***"})

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


def test_429_retry_after_is_honoured(fake):
    server = fake(faults=["429"], retry_after="1")
    start = time.perf_counter()
    assert http_engine(server.ocr_url, backoff=0.05).recognize(PNG).text == "hello world"
    assert time.perf_counter() - start >= 1.0  # urllib3 makes the first retry at once unless told to wait
    assert len(server.requests) == 2


def test_slow_server_times_out(fake):
    server = fake(default="slow", slow_s=3)
    start = time.perf_counter()
    with pytest.raises(EngineError) as info:
        http_engine(server.ocr_url, retries=1).recognize(PNG)
    assert time.perf_counter() - start < 2.5
    assert str(info.value) == (
        f"http engine 'my-http': POST {server.ocr_url} for {PNG.name} failed after 2 attempts: "
        "no response within 0.5 s "
        "(timed out); the server may be overloaded or the model slow: raise option 'timeout' or lower 'concurrency'"
    )
    assert len(server.requests) == 2


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
            "headers": ["Authorization", "X-Org"],
            "api_key_env": "OCR_KEY",
        },
    }
    with pytest.raises(EngineError) as info:
        engine.recognize(PNG)
    assert SENTINEL not in str(info.value) and "Bearer ***" in str(info.value)
    assert echo.requests[0].headers["Authorization"] == f"Bearer {SENTINEL}"


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
        assert "failed after 2 attempts: no response within 0.5 s (timed out)" in errors["slow"]
        assert "is not valid JSON" in errors["malformed"]
        assert "the response has no 'choices'" in errors["no-text"]
    out = result.stdout.str()
    for message in ("HTTP 500 Internal Server Error", "no response within 0.5 s", "is not valid JSON"):
        assert message in out
    assert "Traceback" not in out
    assert len(ok.requests) == len(vlm.requests) == 2


def test_the_api_key_appears_nowhere_in_output_or_report(pytester, fake, monkeypatch):
    monkeypatch.setenv("OCR_TEST_KEY", SENTINEL)
    fast = {"timeout": 0.5, "retries": 0, "api_key_env": "OCR_TEST_KEY"}
    echo_error, echo_text = (
        fake(default="echo_auth"),
        fake(reply=lambda r: completion(f"hello world {r.headers['Authorization']}")),
    )
    engines = {
        "echo-error": {"type": "http", "url": echo_error.ocr_url, **fast},
        "echo-text": {"type": "openai", "base_url": echo_text.base_url, "model": "m", **fast},
        "query": {"type": "http", "url": f"{fake(default='500').ocr_url}?api_key={SENTINEL}", **fast},
    }
    write_suite(pytester, engines, ["inv-001"], thresholds={"cer": "< 0.01"})
    result = pytester.runpytest("-p", "no:cacheprovider", "-v", "-rA", "--ocr-report", "report.json")
    result.assert_outcomes(failed=1, errors=2)
    assert echo_error.requests[0].headers["Authorization"] == f"Bearer {SENTINEL}"  # the key was sent and echoed
    report = (pytester.path / "report.json").read_text()
    assert "Bearer ***" in result.stdout.str() and "Bearer ***" in report
    for text in (result.stdout.str(), result.stderr.str(), report):
        assert SENTINEL not in text
