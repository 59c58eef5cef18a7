"""OCR engines: the Engine interface, built-in engines and their registry."""

from .base import Engine, EngineBase, EngineError, EngineSpec, Recognition, fingerprint_changes, fingerprint_id
from .registry import ENTRY_POINT_GROUP, EngineRegistry

__all__ = [
    "ENTRY_POINT_GROUP",
    "Engine",
    "EngineBase",
    "EngineError",
    "EngineRegistry",
    "EngineSpec",
    "Recognition",
    "fingerprint_changes",
    "fingerprint_id",
]
