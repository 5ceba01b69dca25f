"""The project: its config (skillc.yaml or [tool.skillc] in pyproject.toml), finding and writing
it (init), and the ignore files its walks honour."""
