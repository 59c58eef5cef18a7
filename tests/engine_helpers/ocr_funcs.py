"""Functions for the python engine tests."""

from pytest_ocr.engines import Recognition

__version__ = "1.2.3"


def read_name(image_path, suffix=""):
    return image_path.rsplit("/", 1)[-1] + suffix


def as_recognition(image_path):
    return Recognition(text="a\nb", lines=["a", "b"], confidence=0.5)


def as_dict(image_path):
    return {"text": "a\nb", "lines": ["a", "b"], "confidence": 1}


def _load_model():
    raise FileNotFoundError("weights.onnx not found")


def raises(image_path):
    _load_model()


def returns_int(image_path):
    return 42


def returns_bad_dict(image_path):
    return {"txt": "typo"}


class Reader:
    @staticmethod
    def read(image_path):
        return "static"
