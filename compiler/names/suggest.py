"""'Did you mean': close matches from a closed set a user types into (config keys, frontmatter
fields, enum values, persona names, skill commands, codes), by difflib as Python itself does."""

from __future__ import annotations

from collections.abc import Iterable


def close_matches(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Up to n choices close to word, best first; case is ignored, the choices keep theirs."""
    import difflib  # here: most runs suggest nothing

    by_folded: dict[str, str] = {}
    for choice in choices:
        by_folded.setdefault(choice.casefold(), choice)
    hits = difflib.get_close_matches(word.casefold(), list(by_folded), n=n, cutoff=0.6)
    return [by_folded[h] for h in hits]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """' (did you mean 'x'?)', ' (did you mean 'x' or 'y'?)', or '' when nothing is close."""
    hits = close_matches(word, choices)
    if not hits:
        return ""
    quoted = [repr(h) for h in hits]
    joined = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f" (did you mean {joined}?)"
