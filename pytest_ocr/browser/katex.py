"""LaTeX equations rendered with KaTeX in a headless Chromium, as olmOCR-Bench renders them.

olmOCR-Bench's ``math`` facts compare equations by how they look, not by their source:
each is typeset by KaTeX in a browser page and the page's innermost spans (their text and
where they are) and KaTeX's MathML are compared (``math_check.same_rendering``). This
module produces those renderings the way ``olmocr/bench/katex/render.py`` (olmocr 0.4.27)
does, without Playwright: the system's Chromium is driven over the DevTools protocol on a
pipe (``chromium.DevTools``), as the HTML report's browser tests drive it.

What makes a rendering agree with olmOCR's, box for box:

- the same KaTeX build (0.16.21, ``katex_assets/``, byte for byte the one olmocr ships,
  which is npm's ``katex@0.16.21`` ``dist/``), the same page HTML (white page, black
  text, 24 px, the equation centred by a flexbox in a 800 x 400 viewport at device scale
  1), the same ``katex.render`` call (display mode, throwOnError) and the same
  extraction script (spans with no child element and some non-space text, their trimmed
  text and ``getBoundingClientRect``; the ``.katex-mathml math`` element's outerHTML);
- the page is written into ``about:blank`` with ``document.write`` and the stylesheet
  and script are inlined, as Playwright's ``set_content``/``add_style_tag(path=)``/
  ``add_script_tag(path=)`` do. KaTeX's CSS asks for its fonts at relative URLs
  (``fonts/KaTeX_Main-Regular.woff2``...), which do not resolve against about:blank, and
  olmocr ships no fonts anyway: every KaTeX font fails to load and the text is set in
  the fallback of the CSS font lists (``KaTeX_Main, Times New Roman, serif``: on Debian,
  fontconfig gives Liberation Serif). We ship no fonts either, and use the same base
  URL, so the same fallback fonts make the same boxes;
- Playwright's per-page settings that can move text: its font family defaults
  (``Page.setFontFamilies``: serif and standard = Times New Roman, sans = Arial, ...),
  its viewport emulation, and its Chromium switches (``--hide-scrollbars``: a scroll bar
  would narrow the page a wide equation is centred in; ``--disable-field-trial-config``:
  no field trial switches a layout feature on).

Renderings depend on the Chromium build and the system's fonts as well as on KaTeX, so a
disk cache (keyed by the equation and the KaTeX version) belongs to one machine's setup.

No network: about:blank and inline assets.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any

from .. import limits
from ..files import write_atomic
from ..metrics.math_check import Box, Rendering, Span
from .chromium import DevTools, RendererError, find_browser

KATEX_VERSION = "0.16.21"
ASSETS = Path(__file__).with_name("katex_assets")
# Bumped when what a cached rendering holds, or how it is made, changes.
_CACHE_FORMAT = 1
_MEMORY_ENTRIES = 4096

# olmOCR's render_equation defaults (render.py): the page and the viewport of its browser context.
_BACKGROUND = "white"
_COLOUR = "black"
_FONT_SIZE = 24
_VIEWPORT = (800, 400)

# The page olmOCR's _do_render writes (whitespace and all).
_PAGE_HTML = f"""
    <!DOCTYPE html>
    <html>
    <head>
        <style>
            body {{
                display: flex;
                justify-content: center;
                align-items: center;
                height: 100vh;
                margin: 0;
                background-color: {_BACKGROUND};
                color: {_COLOUR};
            }}
            #equation-container {{
                padding: 0;
                font-size: {_FONT_SIZE}px;
            }}
        </style>
    </head>
    <body>
        <div id="equation-container"></div>
    </body>
    </html>
    """

# Playwright's set_content, then add_style_tag and add_script_tag with file contents.
_SET_UP_PAGE = """(() => {
    document.open();
    document.write(%s);
    document.close();
    const style = document.createElement("style");
    style.type = "text/css";
    style.appendChild(document.createTextNode(%s));
    document.head.appendChild(style);
    const script = document.createElement("script");
    script.type = "text/javascript";
    script.text = %s;
    document.head.appendChild(script);
    return typeof katex !== "undefined";
})()"""

# _do_render's katex.render call: null, or KaTeX's message when it refuses the equation.
_RENDER = """(() => {
    try {
        katex.render(%s, document.getElementById("equation-container"), {
            displayMode: true,
            throwOnError: true
        });
        return null;
    } catch (error) {
        return error.message;
    }
})()"""

# _do_render's extraction: innermost spans with non-whitespace text, then the MathML.
_EXTRACT = """(() => {
    if (document.querySelector(".katex") === null) {
        return null;
    }
    const spans = [];
    for (const span of document.querySelectorAll("span")) {
        if (span.children.length === 0 && /\\S/.test(span.textContent)) {
            const rect = span.getBoundingClientRect();
            spans.push([span.textContent.trim(), rect.x, rect.y, rect.width, rect.height]);
        }
    }
    const math = document.querySelector(".katex-mathml math");
    return {spans: spans, mathml: math ? math.outerHTML : ""};
})()"""

# Playwright's defaults for a new page (crPage.ts): fonts, viewport, media features.
_PAGE_SETTINGS: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "Emulation.setDeviceMetricsOverride",
        {
            "mobile": False,
            "width": _VIEWPORT[0],
            "height": _VIEWPORT[1],
            "screenWidth": _VIEWPORT[0],
            "screenHeight": _VIEWPORT[1],
            "deviceScaleFactor": 1,
            "screenOrientation": {"angle": 0, "type": "landscapePrimary"},
        },
    ),
    (
        "Page.setFontFamilies",
        {
            "fontFamilies": {
                "standard": "Times New Roman",
                "fixed": "Monospace",
                "serif": "Times New Roman",
                "sansSerif": "Arial",
                "cursive": "Comic Sans MS",
                "fantasy": "Impact",
            }
        },
    ),
    (
        "Emulation.setEmulatedMedia",
        {
            "media": "",
            "features": [
                {"name": "prefers-color-scheme", "value": "light"},
                {"name": "prefers-reduced-motion", "value": "no-preference"},
                {"name": "forced-colors", "value": "none"},
                {"name": "prefers-contrast", "value": "no-preference"},
            ],
        },
    ),
)


class _Browser:
    """The browser slot a renderer owns; closed with the renderer, or at exit."""

    def __init__(self) -> None:
        self.devtools: DevTools | None = None

    def close(self) -> None:
        devtools, self.devtools = self.devtools, None
        if devtools is not None:
            devtools.close()


class KatexRenderer:
    """Renders equations with KaTeX in one headless Chromium, started at the first
    rendering and reused for every equation after it; closed by ``close()``, a ``with``
    block, or at exit.

    ``cache_dir``: a directory for renderings on disk (one JSON file per equation, named by
    the sha256 of the KaTeX version and the equation, written atomically), read before
    anything is rendered. Renderings are cached in memory too.
    ``browser``: a Chromium executable (a path or a name on PATH); default: find_browser().
    ``timeout``: seconds for the browser to start, and for each equation (None: this
    process's ``--ocr-max-render-s``, see ``limits``); past it the browser is killed and
    RendererTimeout raised (the next rendering starts a new one).

    Safe to share between threads (one rendering at a time)."""

    def __init__(
        self,
        cache_dir: str | os.PathLike[str] | None = None,
        *,
        browser: str | None = None,
        timeout: float | None = None,
    ) -> None:
        if timeout is None:
            timeout = limits.active().max_render_s
        if not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.browser = browser
        self.timeout = float(timeout)
        self.launches = 0  # how many browsers this renderer started
        self.rendered = 0  # how many equations it rendered in a browser (not from a cache)
        self._memory: OrderedDict[str, Rendering] = OrderedDict()
        self._lock = threading.Lock()
        self._browser = _Browser()
        self._session: str | None = None
        self._assets: tuple[str, str] | None = None
        self._finalizer = weakref.finalize(self, self._browser.close)

    # -- public --------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether this renderer's browser is running now."""
        return self._browser.devtools is not None

    @property
    def browser_pid(self) -> int | None:
        """The process id of this renderer's browser while it runs."""
        devtools = self._browser.devtools
        return None if devtools is None else devtools.pid

    def render(self, equation: str) -> Rendering:
        """KaTeX's rendering of ``equation``; a Rendering with ``error`` set when KaTeX
        refuses it. Raises RendererError when the browser cannot render at all."""
        with self._lock:
            cached = self._memory.get(equation)
            if cached is not None:
                self._memory.move_to_end(equation)
                return cached
            rendering = self._load(equation)
            if rendering is None:
                rendering = self._render(equation)
                self._store(rendering)
            self._memory[equation] = rendering
            if len(self._memory) > _MEMORY_ENTRIES:
                self._memory.popitem(last=False)
            return rendering

    def close(self) -> None:
        """Close the browser (a later rendering starts a new one)."""
        with self._lock:
            self._session = None
            self._browser.close()

    def __enter__(self) -> KatexRenderer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the disk cache --------------------------------------------------------------------------

    @staticmethod
    def cache_key(equation: str) -> str:
        text = f"katex {KATEX_VERSION}\nformat {_CACHE_FORMAT}\n{equation}"
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def _cache_path(self, equation: str) -> Path | None:
        return None if self.cache_dir is None else self.cache_dir / f"{self.cache_key(equation)}.json"

    def _load(self, equation: str) -> Rendering | None:
        path = self._cache_path(equation)
        if path is None:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            rendering = Rendering.from_json(data["rendering"])
        except (OSError, ValueError, KeyError, TypeError):
            return None  # absent, or unreadable: rendered again, and the file replaced
        # The key is a hash: the file must be this equation's, rendered by this KaTeX.
        if data.get("katex") != KATEX_VERSION or rendering.equation != equation:
            return None
        return rendering

    def _store(self, rendering: Rendering) -> None:
        path = self._cache_path(rendering.equation)
        if path is not None:
            text = json.dumps({"katex": KATEX_VERSION, "rendering": rendering.to_json()}, ensure_ascii=True)
            write_atomic(path, text)

    # -- the browser -----------------------------------------------------------------------------

    def _assets_text(self) -> tuple[str, str]:
        if self._assets is None:
            self._assets = (
                (ASSETS / "katex.min.css").read_text(encoding="utf-8"),
                (ASSETS / "katex.min.js").read_text(encoding="utf-8"),
            )
        return self._assets

    def _page(self, deadline: float) -> tuple[DevTools, str]:
        """The browser and the session of its page, started if need be."""
        devtools = self._browser.devtools
        if devtools is not None and self._session is not None:
            return devtools, self._session
        executable = find_browser(self.browser)
        devtools = DevTools(executable, self.timeout)
        self._browser.devtools = devtools
        self.launches += 1
        try:
            session = devtools.new_page(deadline)
            for method, params in _PAGE_SETTINGS:
                devtools.call(method, params, deadline, session=session)
        except BaseException:
            self._browser.devtools = None
            devtools.kill()
            raise
        self._session = session
        return devtools, session

    def _render(self, equation: str) -> Rendering:
        deadline = time.monotonic() + self.timeout
        devtools, session = self._page(deadline)
        try:
            rendering = self._render_in(devtools, session, equation, time.monotonic() + self.timeout)
        except BaseException:
            # A browser that failed once (timed out, crashed, refused a command) is not trusted again.
            self._session = None
            self._browser.close()
            raise
        self.rendered += 1
        return rendering

    def _render_in(self, devtools: DevTools, session: str, equation: str, deadline: float) -> Rendering:
        css, js = self._assets_text()
        set_up = _SET_UP_PAGE % (json.dumps(_PAGE_HTML), json.dumps(css), json.dumps(js))
        if devtools.evaluate(set_up, deadline, session) is not True:
            raise RendererError("KaTeX did not load in the browser's page")
        # olmOCR puts the equation into the script as json.dumps makes it (ASCII, \\u escapes).
        message = devtools.evaluate(_RENDER % json.dumps(equation), deadline, session)
        if message:
            return Rendering(equation=equation, mathml=str(message), spans=(), error=str(message))
        extracted = devtools.evaluate(_EXTRACT, deadline, session)
        if extracted is None:
            raise RendererError(f"KaTeX rendered {equation!r} without an error but made no .katex element")
        spans = tuple(
            Span(str(text), Box(float(x), float(y), float(width), float(height)))
            for text, x, y, width, height in extracted["spans"]
        )
        return Rendering(equation=equation, mathml=str(extracted["mathml"]), spans=spans)
