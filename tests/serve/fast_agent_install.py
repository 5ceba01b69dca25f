"""fast-agent's own Skills-over-MCP client installing every skill a `skillc serve` offers, without a
model: its `MCPAggregator` (the MCP client of its agents) connects to the server of its config,
`list_mcp_skill_registries` runs its `skills/list` scan and validation, and `McpSkillSource` its
installer (a fresh `skills/get`, each file read and checked against digest and size, the
frontmatter compared, then written). What `/skills add` does in an agent session, minus the model.

    <fast-agent's python> fast_agent_install.py CONFIG DEST

Run with the Python of the venv tests/serve/install.sh makes (fast-agent needs 3.13); prints
{"server": ..., "installed": [{"name", "uri", "dir"}]} on stdout.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from fast_agent.context import initialize_context
from fast_agent.mcp.mcp_aggregator import MCPAggregator
from fast_agent.skills.mcp_source import McpSkillSource


async def main(config: str, dest: Path) -> None:
    context = await initialize_context(config)
    aggregator = MCPAggregator(server_names=["skillc"], context=context, name="installer")
    async with aggregator:
        (registry,) = await aggregator.list_mcp_skill_registries()
        source = McpSkillSource(aggregator=aggregator, registry=registry)  # type: ignore[arg-type]
        installed = []
        for skill in registry.skills:
            done = await source.install_skill(skill.uri, destination_root=dest)
            installed.append({"name": done.name, "uri": skill.uri, "dir": str(done.skill_dir)})
    print(json.dumps({"server": registry.display_name, "installed": installed}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2])))
