"""The reader's errors: every failure of the reader is a ReaderError."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only; typing costs start-up time at run time
    from collections.abc import Callable, Sequence


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
    """A command with no entry, or one the persona does not see (persona "*": no entry at all).

    `suggestions` holds up to three close commands the persona sees, found without reading every
    shard (docs/format.md §12.1); the message names them. `visible` lists every command the
    persona sees, in command order; a reader passes it as a function, called on first access, so
    raising the error costs a few reads at any size and only a program that asks for the list
    pays for it (at 100,000 skills, every shard: seconds). That access may raise the FormatError,
    IntegrityError or DistRebuilt a full listing meets; a list it returns is kept.
    """

    def __init__(
        self,
        persona: str,
        command: str,
        visible: Sequence[str] | Callable[[], Sequence[str]],
        suggestions: Sequence[str] = (),
    ):
        self.persona, self.command, self.suggestions = persona, command, tuple(suggestions)
        self._list: Callable[[], Sequence[str]] | None = visible if callable(visible) else None
        self._visible: tuple[str, ...] | None = None if callable(visible) else tuple(visible)
        super().__init__(f"no skill {command!r} for persona {persona!r}{_did_you_mean(self.suggestions)}")

    @property
    def visible(self) -> tuple[str, ...]:
        if self._visible is None:
            assert self._list is not None
            self._visible = tuple(self._list())  # a failure keeps nothing: the next access retries
            self._list = None
        return self._visible

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[type[UnknownSkill], tuple[str, str, tuple[str, ...], tuple[str, ...]]]:
        # The list is made here: a pickle cannot carry the open Dist it would be read from.
        return type(self), (self.persona, self.command, self.visible, self.suggestions)


def _did_you_mean(suggestions: tuple[str, ...]) -> str:
    """' (did you mean 'x'?)', ' (did you mean 'x', 'y' or 'z'?)', or ''."""
    if not suggestions:
        return ""
    quoted = [repr(s) for s in suggestions]
    joined = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f" (did you mean {joined}?)"


class NotInvocable(ReaderError):
    """A skill loaded for an invoker that may not invoke it: `by` ("model" or "user") tried, and
    `invokers` are those who may, in the order model, user (none for a skill neither may invoke).

    The build decided who may invoke each skill for each persona (the resolution's `model` and
    `user`: `disable-model-invocation`, `user-invocable`, sven's `user_invocable_only`, a stub);
    `load()`, `render()` and `materialize()` hold the invoker to it, so a host cannot hand the
    model the body of a skill only the user may run."""

    def __init__(self, persona: str, command: str, by: str, invokers: Sequence[str]):
        self.persona, self.command, self.by, self.invokers = persona, command, by, tuple(invokers)
        reason = "neither the model nor the user may invoke it"
        if self.invokers:
            reason = f"only the {self.invokers[0]} may invoke it"
        if self.invokers == ("user",):
            reason += " (a slash command)"
        super().__init__(f"{command!r} may not be invoked by the {by} for persona {persona!r}: {reason}")

    def __str__(self) -> str:
        return str(self.args[0])

    def __reduce__(self) -> tuple[type[NotInvocable], tuple[str, str, str, tuple[str, ...]]]:
        return type(self), (self.persona, self.command, self.by, self.invokers)


class CannotSplit(ReaderError):
    """A call needs the catalog template split into its frame and entries (docs/format.md §17:
    to leave out an entry, give absolute locations), and the build's template does not split
    (reported as SKC603 when it was built)."""


class CannotStack(ReaderError):
    """Builds opened together (tiers) that cannot answer as one build compiled from their sources
    would (docs/format.md §16): other personas or persona files, or a first tier whose catalog
    template does not split or that ranks by budgets.priority."""


class UnknownResource(ReaderError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0])
