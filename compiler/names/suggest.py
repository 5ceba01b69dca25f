"""'Did you mean': close matches from a closed set a user types into (config keys, frontmatter
fields, enum values, persona names, skill commands, codes), by difflib as Python itself does."""

from __future__ import annotations

from collections.abc import Iterable

CUTOFF = 0.6  # difflib's default, as Python's own suggestions use it


def close_matches(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Up to n choices close to word, best first; case is ignored, the choices keep theirs."""
    by_folded: dict[str, str] = {}
    for choice in choices:
        by_folded.setdefault(choice.casefold(), choice)
    return [by_folded[h] for h in _closest(word.casefold(), by_folded, n)]


def _closest(word: str, candidates: Iterable[str], n: int) -> list[str]:
    """difflib.get_close_matches(word, candidates, n, CUTOFF), the same list in the same order, with
    a candidate scored only when difflib's upper bounds of its score reach the n-th best so far:
    difflib scores every candidate past the cutoff, and a build's unknown skill names, each held to
    10,000 commands, cost a full build 0.1 s each (SequenceMatcher.ratio). The ranking is difflib's:
    by (score, text), largest first (heapq.nlargest)."""
    import difflib  # here: most runs suggest nothing
    import heapq

    if n <= 0:
        raise ValueError(f"n must be > 0: {n!r}")
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    best: list[tuple[float, str]] = []  # the n largest (score, text) so far; best[0] the least of them
    for text in candidates:
        matcher.set_seq1(text)
        floor = best[0][0] if len(best) == n else CUTOFF
        if matcher.real_quick_ratio() < floor or matcher.quick_ratio() < floor:
            continue  # its score cannot reach the floor
        score = matcher.ratio()
        if score < CUTOFF:
            continue
        if len(best) < n:
            heapq.heappush(best, (score, text))
        elif (score, text) > best[0]:
            heapq.heapreplace(best, (score, text))
    return [text for _score, text in sorted(best, reverse=True)]


def among_closest(word: str, choice: str, others: Iterable[str], n: int = 3) -> bool:
    """Whether close_matches(word, [*others, choice]) names `choice` (`others` without it), scoring
    only the others that could score above it: difflib.get_close_matches ranks by (score, text)
    and scores every choice that passes its cutoff, which at 10,000 skill commands is 0.1 s a
    word; here difflib's own upper bounds are held to `choice`'s score, and the count stops at n.
    An other that folds to `choice`'s text may stand for it in close_matches (the first kept): then,
    where `choice` is close enough to be named at all, the answer is True, the cautious one for the
    edit build that asks (which declines such a pair)."""
    import difflib

    folded = choice.casefold()
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word.casefold())
    matcher.set_seq1(folded)
    # `choice` not close to `word`: nothing that folds to its text is either. The others are read
    # only past this (most words, at 10,000 commands: 1.5 ms each saved).
    if matcher.real_quick_ratio() < CUTOFF or matcher.quick_ratio() < CUTOFF:
        return False
    score = matcher.ratio()
    if score < CUTOFF:
        return False
    folds = {o.casefold() for o in others}
    if folded in folds:
        return True
    better = 0
    for other in folds:
        matcher.set_seq1(other)
        if matcher.real_quick_ratio() < score or matcher.quick_ratio() < score:
            continue  # bounds of its score: it cannot rank above `choice`
        if (matcher.ratio(), other) > (score, folded):
            better += 1
            if better >= n:
                return False
    return True


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """' (did you mean 'x'?)', ' (did you mean 'x' or 'y'?)', or '' when nothing is close."""
    hits = close_matches(word, choices)
    if not hits:
        return ""
    quoted = [repr(h) for h in hits]
    joined = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f" (did you mean {joined}?)"
