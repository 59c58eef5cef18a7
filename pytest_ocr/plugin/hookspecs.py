"""Hooks pytest-ocr adds; implement them in a conftest.py or a plugin."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engines.registry import EngineRegistry


def pytest_ocr_register_engines(registry: EngineRegistry) -> None:
    """Register engine types with ``registry.register(type_name, factory)``.

    ``factory(spec)`` receives an :class:`pytest_ocr.engines.EngineSpec` and returns
    an object with ``recognize(image_path) -> Recognition`` and ``fingerprint() -> dict``.
    Called while collecting each case file, so conftest files next to the cases apply.
    """
