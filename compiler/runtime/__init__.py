"""The runtime sources: format 2 of dist/ and the reader, stdlib only.

`skillc/reader.py` is generated from these modules by `python -m skillc.runtime.bundle`
so that an application can copy that one file alone into its tree.
"""
