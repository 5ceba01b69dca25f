"""The tests' one helper library (importable as `support`: pyproject puts tests/ on pytest's pythonpath).

- `files`: where the repository and its golden data are, writing a tree, reading one back;
- `project`: SKILL.md texts, configs and whole projects on disk;
- `cli`: running the command line, with its diagnostics parsed;
- `dist`: a built dist/ read raw and checked against its schemas;
- `sarif`: the part of SARIF 2.1.0's schema that skillc writes;
- `values`: hand-built stage values (no disk) for the unit tests.
"""
