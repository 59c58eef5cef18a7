"""A package's names imported from their modules when first used (PEP 562), so that importing
the package costs nothing until a name is read: ``__getattr__, __dir__ = lazy.names(__name__, MODULES)``."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def names(package: str, modules: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose name ``n`` lives in its module ``modules[n]``."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        vars(sys.modules[package])[name] = value  # once: later lookups find it without this function
        return value

    def __dir__() -> list[str]:
        return sorted([*vars(sys.modules[package]), *modules])

    return __getattr__, __dir__
