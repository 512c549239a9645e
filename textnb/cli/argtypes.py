"""Argument types shared by the command lines (``textnb``, ``spamfilter``, ``topicfilter``)."""

import argparse
import math

__all__ = ["bounded"]


def bounded(cast, *, low=None, high=None, low_open=False):
    """An argparse ``type=`` that parses with ``cast`` and checks ``low <= value <= high``.

    ``low_open`` makes the lower bound strict. Non-finite numbers are refused.
    """
    kind = "a whole number" if cast is int else "a number"
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low}")
    if high is not None:
        parts.append(f"<= {high}")
    wanted = f"{kind} {' and '.join(parts)}".strip()

    def parse(text):
        try:
            value = cast(text)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None
        too_low = low is not None and (value <= low if low_open else value < low)
        too_high = high is not None and value > high
        if not math.isfinite(value) or too_low or too_high:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}")
        return value

    parse.__name__ = f"{cast.__name__}_in_range"  # argparse names the type in its message
    return parse
