"""skillc: a static build-time compiler for agent skills.

Kept free of imports on purpose: `skillc.reader` must load without pulling
in yaml, jinja2 or jsonschema.
"""

__version__ = "0.1.0"
