"""pytest-ocr: OCR regression testing as a pytest plugin."""

__version__ = "0.2.0"
