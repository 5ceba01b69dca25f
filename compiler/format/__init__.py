"""Format 2 of dist/, the one home of its layout, documents, shard table, JSON and escaping.

Standard library only: the compiler writes with it and the reader (skillc.reader) reads with it.
`docs/format.md` is its language-neutral specification.
"""
