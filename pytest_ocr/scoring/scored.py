"""The texts the text metrics compared: both texts after the case's normalisation, kept on
the result for the HTML report's diff (only when that report is asked for)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..metrics.normalize import Normalization

# The text metrics: they compare the two texts after the case's normalisation, and record its steps.
TEXT_METRICS = ("cer", "ned", "exact_match", "wer")


@dataclass(frozen=True, slots=True)
class ScoredTexts:
    """A side that normalising left as given is None (both None: it changed neither). Not
    in the JSON report, which holds what they follow from: the texts, and the steps the
    text metrics recorded (``recorded_steps``)."""

    reference: str | None
    prediction: str | None


def recorded_steps(details: dict[str, dict[str, Any]]) -> list[str] | None:
    """The normalisation's steps, as the text metrics recorded them; None without a text metric."""
    return next((details[m]["normalization"] for m in TEXT_METRICS if "normalization" in details.get(m, {})), None)


def scored_texts(
    reference: str | None,
    prediction: str | None,
    details: dict[str, dict[str, Any]],
    normalization: Normalization | None,
) -> ScoredTexts | None:
    """What the text metrics compared; None when there is no pair of texts, no text metric
    compared them, or no normalisation (a report's steps that this version does not know)."""
    if reference is None or prediction is None or normalization is None or recorded_steps(details) is None:
        return None
    ref, hyp = normalization(reference), normalization(prediction)
    return ScoredTexts(None if ref == reference else ref, None if hyp == prediction else hyp)
