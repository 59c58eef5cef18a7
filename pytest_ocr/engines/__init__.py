"""OCR engines: the Engine interface, built-in engines and their registry."""

from .base import Engine, EngineError, EngineSpec, Recognition, fingerprint_changes, fingerprint_id
from .registry import ENTRY_POINT_GROUP, EngineRegistry

__all__ = [
    "ENTRY_POINT_GROUP",
    "Engine",
    "EngineError",
    "EngineRegistry",
    "EngineSpec",
    "Recognition",
    "fingerprint_changes",
    "fingerprint_id",
]
