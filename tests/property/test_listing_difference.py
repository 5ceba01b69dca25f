"""edit._differing: the entries a folder gained or lost, found through the names, are the symmetric
difference of the (name, kind) pairs of its two listings, in order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from skillc.incremental.edit import _differing

LISTING = st.dictionaries(st.text(alphabet="abé", max_size=3), st.sampled_from("dfilo"), max_size=8)


@given(LISTING, LISTING)
def test_the_entries_that_differ_are_the_pairs_of_one_listing_alone(before: dict, after: dict) -> None:
    assert _differing(before, after) == sorted(set(before.items()) ^ set(after.items()))
