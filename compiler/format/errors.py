"""The reader's errors: every failure of the reader is a ReaderError."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only; typing costs start-up time at run time
    from collections.abc import Sequence


class ReaderError(Exception):
    """Base class of every error the reader raises."""


class FormatError(ReaderError):
    """An index file is missing, malformed, or of another format version."""


class IntegrityError(ReaderError):
    """An object file is missing or its bytes do not match its hash."""


class DistRebuilt(ReaderError):
    """dist/ was rebuilt since it was opened and the opened build's objects were pruned."""


class ArgumentType(ReaderError, TypeError):
    """A call was given an argument of the wrong type (`None` for a command, bytes for args).

    A TypeError, as Python's own calls raise, and a ReaderError, so one `except ReaderError`
    still catches every failure of the reader."""


class UnknownPersona(ReaderError, KeyError):
    def __init__(self, persona: str, known: Sequence[str]):
        self.persona, self.known = persona, tuple(known)
        super().__init__(f"unknown persona {persona!r}; known: {', '.join(known) or 'none'}")

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[type[UnknownPersona], tuple[str, tuple[str, ...]]]:
        # pickle rebuilds an exception from self.args (the message) by default: one argument, not two.
        return type(self), (self.persona, self.known)


class UnknownSkill(ReaderError, KeyError):
    def __init__(self, persona: str, command: str, visible: Sequence[str]):
        self.persona, self.command, self.visible = persona, command, tuple(visible)
        shown = ", ".join(visible[:50]) + (", ..." if len(visible) > 50 else "")
        super().__init__(f"no skill {command!r} for persona {persona!r}; visible skills: {shown or 'none'}")

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[type[UnknownSkill], tuple[str, str, tuple[str, ...]]]:
        return type(self), (self.persona, self.command, self.visible)


class UnknownResource(ReaderError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0])
