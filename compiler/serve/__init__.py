"""skillc serve: one build over MCP, for one persona, with the Skills Extension (SEP-2640).

Layered on the reader, as review/ is: `uris` spells the `skill://` scheme and the spec's name rule,
`view` is the persona's skills as the extension serves them (pure over a `reader.Dist`), `builds`
follows rebuilds of the build directory, `methods` answers each request from a view (no SDK), and
`tools` is the fallback for hosts without the extension. Only `server` and `run` import the MCP
SDK (the optional extra `mcp`); cli/serve.py imports them after checking it is installed.
"""
