"""A module whose own dependency is missing: the import error must name that dependency."""

import pytest_ocr_no_such_dependency  # noqa: F401


def read(image_path):
    return ""
