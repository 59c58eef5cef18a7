"""The HTML report (``--ocr-html PATH``): the page (page.py) with its cases, charts, baseline
section and thumbnails, each in a module of its own."""
