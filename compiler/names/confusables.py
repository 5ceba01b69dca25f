"""Look-alike names: the skeleton of a command, so that `pаy` (Cyrillic а) and `pay` are seen as one.

A small subset of Unicode's confusables (UTS #39, confusables.txt): the lowercase Cyrillic and Greek
letters that render like a Latin letter in common fonts. Skill names are lowercase letters, digits
and hyphens (the spec's rule, after NFKC), so lowercase is all a command can hold.
"""

from __future__ import annotations

import unicodedata

_LOOKALIKES = {
    # Cyrillic
    "а": "a",
    "в": "b",
    "с": "c",
    "ԁ": "d",
    "е": "e",
    "ё": "e",
    "һ": "h",
    "і": "i",
    "ї": "i",
    "ј": "j",
    "к": "k",
    "ӏ": "l",
    "м": "m",
    "п": "n",
    "о": "o",
    "р": "p",
    "ԛ": "q",
    "г": "r",
    "ѕ": "s",
    "т": "t",
    "ц": "u",
    "ѵ": "v",
    "ԝ": "w",
    "х": "x",
    "у": "y",
    # Greek
    "α": "a",
    "β": "b",
    "ϲ": "c",
    "ε": "e",
    "η": "n",
    "ι": "i",
    "κ": "k",
    "ν": "v",
    "ο": "o",
    "ρ": "p",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    "γ": "y",
    # Latin and digits that pass for one another
    "ı": "i",
    "ɡ": "g",
    "0": "o",
    "1": "l",
}
_TABLE = str.maketrans(_LOOKALIKES)


def skeleton(name: str) -> str:
    """What a name looks like: NFKC, lowercase, each look-alike replaced by the letter it imitates."""
    return unicodedata.normalize("NFKC", name).casefold().translate(_TABLE)
