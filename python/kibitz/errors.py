"""Exceptions raised by kibitz. All are ``ValueError`` subclasses.

The classes are defined by the C++ core so that errors raised there arrive in Python with
their original messages, which name the bad input and what was expected.
"""

from kibitz._core import IllegalMoveError, NotationError, OptionError, UnknownGameError

__all__ = ["IllegalMoveError", "NotationError", "OptionError", "UnknownGameError"]
