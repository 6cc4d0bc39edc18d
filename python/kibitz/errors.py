"""Exceptions raised by kibitz. All are ``ValueError`` subclasses.

The classes are defined by the C++ core so that errors raised there arrive in Python with
their original messages, which name the bad input and what was expected.
"""

from typing import Any

from kibitz._core import IllegalMoveError, NotationError, OptionError, UnknownGameError

__all__ = ["IllegalMoveError", "NotationError", "OptionError", "UnknownGameError", "shown"]

SHOWN_CHARS = 30  # an offending value longer than this is cut in error messages


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``value`` for an error message: text quoted, anything longer than ``limit`` cut."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) > limit:
        text = text[: limit - 6] + "…"
    return repr(text) if isinstance(value, str) else text
