"""One driver per harness CLI: the exact commands the issue lists, and the parsing of their output.

A driver takes (workspace, binary, fixture name, budget) and returns a JSON-able dict with at least
`command` (the argv and environment that matter), `skills` (what the harness discovered, one object
per skill) and `text` (the model-visible listing, exactly, or null where the CLI gives none).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from workspace import Capture, Workspace, run_cli

# --- shared ---------------------------------------------------------------------------------------


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a parsed JSON value, depth first (request bodies nest text deeply)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _first_containing(values: Any, marker: str) -> str | None:
    return next((text for text in _strings(values) if marker in text), None)


# --- Codex ----------------------------------------------------------------------------------------

# "- name: desc (file: rN/...)", or "- name: (file: ...)" once the budget has emptied the description.
_CODEX_ENTRY = re.compile(r"^- (?P<name>.+?): (?:(?P<desc>.*) )?\(file: (?P<file>r\d+/.*)\)$")


def codex(ws: Workspace, binary: str, fixture: str, budget: int | None) -> dict[str, Any]:
    if fixture == "policy":  # the user-level [[skills.config]], beside the project's (fixtures.policy)
        target = ws.project / ".agents" / "skills" / "user-config-off" / "SKILL.md"
        config = f'[[skills.config]]\npath = "{target}"\nenabled = false\n'
        (ws.home / ".codex").mkdir(exist_ok=True)
        (ws.home / ".codex" / "config.toml").write_text(config, encoding="utf-8")
    argv = [binary, "debug", "prompt-input"]
    if budget is not None:
        argv += ["-c", f"model_context_window={budget}"]
    argv += ["-c", "skills.bundled.enabled=false", "hi"]
    stdout, stderr = _run(ws, argv, {})
    prompt = json.loads(stdout)
    text = _first_containing(prompt, "<skills_instructions>")
    skills = [_codex_entry(line) for line in (text or "").splitlines() if _CODEX_ENTRY.match(line)]
    return {"command": _shown(argv), "skills": skills, "text": text, "stderr": _stderr_lines(stderr)}


def _codex_entry(line: str) -> dict[str, Any]:
    match = _CODEX_ENTRY.match(line)
    assert match is not None
    return {"name": match["name"], "description": match["desc"], "file": match["file"], "listed": True}


# --- Claude Code ----------------------------------------------------------------------------------

CLAUDE_SETTINGS = {
    "disableBundledSkills": True,
    "enabledPlugins": {"cc-plugin-plugin-authoring@builtin": False},
    "skillOverrides": {"doctor": "off", "design": "off"},
}
_CLAUDE_HEADER = "The following skills are available for use with the Skill tool:"
# "- cmd (name): desc", where " (name)" and ": desc" are both optional.
_CLAUDE_ENTRY = re.compile(r"^- (?P<cmd>\S+)(?: \((?P<name>[^)]*)\))?(?:: (?P<desc>.*))?$")
_CLAUDE_ANY_ENTRY = re.compile(r"^- (?P<cmd>.+?)(?: \((?P<name>[^)]*)\))?(?:: (?P<desc>.*))?$")
# What args prompts send (one invocation per line of the golden), see fixtures.args.
CLAUDE_ARGS_PROMPTS = (
    "/echoargs alpha beta",
    '/echoargs "two words" second third',
    "/echoargs",
    "/echoargs '$1 ${CLAUDE_SKILL_DIR}' !x",
    "/noargs x y",
    "/price one two",
)


def claude(ws: Workspace, binary: str, fixture: str, budget: int | None) -> dict[str, Any]:
    settings = ws.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(CLAUDE_SETTINGS), encoding="utf-8")
    if fixture == "args":
        return _claude_args(ws, binary)
    session = _claude_session(ws, binary, "hi", budget)
    text = session["listing"]
    known = {*session["slash"], *session["init_skills"]}
    entries = [_claude_entry(line, known) for line in (text or "").splitlines()[2:] if line.startswith("- ")]
    listed = {entry["command"] for entry in entries}
    builtin = set(_claude_session(ws, binary, "hi", budget, cwd=ws.empty)["slash"])
    extra = [{"command": name, "listed": False} for name in session["slash"] if name not in listed | builtin]
    return {
        "command": session["command"],
        "skills": entries + extra,
        "text": text,
        "init_skills": session["init_skills"],
        "debug": session["debug"],
    }


def _claude_entry(line: str, known: set[str]) -> dict[str, Any]:
    """One listing line; a command holding a space, a colon or a parenthesis is found among the
    commands the CLI reported (`known`), the longest that starts the line."""
    found = sorted((c for c in known if _starts_entry(line, c)), key=len)
    if found:
        rest = line[2 + len(found[-1]) :]
        label = re.match(r"^ \((?P<name>[^)]*)\)", rest)
        rest = rest[label.end() :] if label else rest
        desc = rest[2:] if rest.startswith(": ") else None
        return {
            "command": found[-1],
            "name": label["name"] if label else None,
            "description": desc,
            "listed": True,
        }
    # not a command the CLI reported (a model-only skill): the shortest command the line reads as
    match = _CLAUDE_ENTRY.match(line) or _CLAUDE_ANY_ENTRY.match(line)
    assert match is not None, line
    return {"command": match["cmd"], "name": match["name"], "description": match["desc"], "listed": True}


def _starts_entry(line: str, command: str) -> bool:
    rest = line[2 + len(command) :] if line.startswith(f"- {command}") else None
    return rest is not None and (rest == "" or rest.startswith((": ", " (")))


def _claude_session(
    ws: Workspace, binary: str, prompt: str, budget: int | None, cwd: Path | None = None
) -> dict[str, Any]:
    out = ws.capture / f"claude-{len(list(ws.capture.iterdir()))}"
    server = Capture(out)
    env = {"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "dummy"}
    env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
    if budget is not None:
        env["SLASH_COMMAND_TOOL_CHAR_BUDGET"] = str(budget)
    debug = ws.root / f"{out.name}.debug"
    argv = [binary, "-p", prompt, "--output-format", "stream-json", "--verbose", "--max-turns", "1"]
    argv += ["--debug-file", str(debug)]
    stdout, _ = run_cli(ws, argv, env, cwd=cwd)
    init = next(e for e in map(json.loads, stdout.splitlines()) if e.get("subtype") == "init")
    requests = [r["body"] for r in server.requests() if r["path"].startswith("/v1/messages")]
    shown = {k: v for k, v in env.items() if k not in ("ANTHROPIC_BASE_URL",)}
    return {
        "command": _shown(argv, shown),
        "listing": _claude_listing(requests),
        "init_skills": init.get("skills", []),
        "slash": init.get("slash_commands", []),
        "debug": _claude_debug(debug),
        "requests": requests,
    }


def _claude_listing(requests: list[Any]) -> str | None:
    """The listing block: the header, a blank line, then entries up to the next blank line."""
    text = _first_containing(requests, _CLAUDE_HEADER)
    if text is None:
        return None
    start = text.index(_CLAUDE_HEADER)
    end = text.find("\n\n", start + len(_CLAUDE_HEADER) + 2)
    return text[start : end if end >= 0 else len(text)]


_DEBUG_KEEP = re.compile(r"skill", re.IGNORECASE)
_DEBUG_TIME = re.compile(r"^\S+Z \[\w+\] ")


def _claude_debug(path: Path) -> list[str]:
    """The debug log's lines about skills, without timestamps (the log counts what was loaded)."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    kept = [_DEBUG_TIME.sub("", line) for line in lines if _DEBUG_KEEP.search(line)]
    # Sorted: the loaders log concurrently, so their order changes from run to run.
    return sorted(line for line in kept if "Watching for changes" not in line)


def _claude_args(ws: Workspace, binary: str) -> dict[str, Any]:
    """Invokes each prompt of CLAUDE_ARGS_PROMPTS and keeps the expanded skill body the model got."""
    calls = []
    for prompt in CLAUDE_ARGS_PROMPTS:
        session = _claude_session(ws, binary, prompt, None)
        # One marker per skill of fixtures.args: the request that holds its expanded body.
        markers = ("Just a body.", "Costs ", "ARGUMENTS=[")
        body = next(filter(None, (_first_containing(session["requests"], m) for m in markers)), None)
        calls.append({"prompt": prompt, "expanded": body})
    return {"command": "claude -p PROMPT (see calls)", "skills": [], "text": None, "calls": calls}


# --- Gemini CLI -----------------------------------------------------------------------------------

_GEMINI_HEAD = re.compile(r"^(?P<name>\S.*?) \[(?P<state>Enabled|Disabled)\](?P<builtin> \[Built-in\])?$")


def gemini(ws: Workspace, binary: str, fixture: str, budget: int | None) -> dict[str, Any]:
    argv = [binary, "skills", "list"]
    env = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
    stdout, stderr = _run(ws, argv, env)
    skills = _gemini_skills(stdout)
    text = _gemini_prompt_listing(ws, binary, env)
    shown = set(re.findall(r"<name>(.*?)</name>", text or ""))
    for skill in skills:
        skill["listed"] = skill["name"] in shown
    return {
        "command": {
            "discover": _shown(argv, env),
            "listing": "gemini -p hi (GOOGLE_GEMINI_BASE_URL=loopback)",
        },
        "skills": skills,
        "text": text,
        "stderr": _stderr_lines(stderr),
    }


def _gemini_prompt_listing(ws: Workspace, binary: str, env: dict[str, str]) -> str | None:
    """The model prompt's skill section, from one `gemini -p hi` against the capture server.

    GOOGLE_GEMINI_BASE_URL alone selects the "gateway" auth, which -p refuses; the user setting
    security.auth.selectedType=gemini-api-key keeps the API-key auth, whose SDK still honours it.
    """
    settings = ws.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}), encoding="utf-8"
    )
    server = Capture(ws.capture / "gemini")
    prompt_env = env | {"GOOGLE_GEMINI_BASE_URL": server.url, "GEMINI_API_KEY": "dummy"}
    _run(ws, [binary, "-p", "hi"], prompt_env)
    text = _first_containing([r["body"] for r in server.requests()], "<available_skills>")
    if text is None:
        return None
    start = text.index("# Available Agent Skills")
    end = text.index("</available_skills>") + len("</available_skills>")
    return _gemini_canonical(text[start:end])


def _gemini_canonical(text: str) -> str:
    """The skill blocks sorted by name.

    Gemini lists built-ins, then each root's skills in glob order, which is the filesystem's
    directory order (hash order on ext4): it changes from machine to machine, so the golden fixes one.
    """
    head, rest = text.split("<available_skills>\n", 1)
    body, tail = rest.rsplit("</available_skills>", 1)
    blocks = [b + "</skill>\n" for b in body.split("</skill>\n") if b.strip()]
    blocks.sort(key=lambda b: b.split("<name>", 1)[1].split("</name>", 1)[0])
    return head + "<available_skills>\n" + "".join(blocks) + "</available_skills>" + tail


def _gemini_skills(stdout: str) -> list[dict[str, Any]]:
    skills: list[dict[str, Any]] = []
    for line in stdout.splitlines():
        head = _GEMINI_HEAD.match(line)
        if head:
            skills.append({"name": head["name"], "enabled": head["state"] == "Enabled"})
        elif skills and line.startswith("  Description: "):
            skills[-1]["description"] = line.removeprefix("  Description: ")
        elif skills and line.startswith("  Location:"):
            skills[-1]["location"] = line.split(":", 1)[1].strip()
        elif skills and line.startswith("    ") and "location" not in skills[-1]:
            skills[-1]["description"] += "\n" + line.strip()  # a description that wrapped
    return skills


# --- opencode -------------------------------------------------------------------------------------


def opencode_config(url: str) -> dict[str, Any]:
    """A provider whose endpoint is the loopback server (opencode bundles the anthropic SDK)."""
    return {
        "model": "anthropic/claude-sonnet-4-5",
        "provider": {"anthropic": {"options": {"baseURL": f"{url}/v1", "apiKey": "dummy"}}},
        "autoupdate": False,
        "share": "disabled",
    }


def opencode(ws: Workspace, binary: str, fixture: str, budget: int | None) -> dict[str, Any]:
    server = Capture(ws.capture / "opencode")
    env = {"OPENCODE_CONFIG_CONTENT": json.dumps(opencode_config(server.url))}
    debug_out = ws.root / "opencode-debug-skill.json"
    # Written to a file, never a pipe: on a pipe it may exit before flushing (see the issue).
    with debug_out.open("w", encoding="utf-8") as sink:
        subprocess.run(
            [binary, "debug", "skill"],
            cwd=ws.project,
            env=ws.env(env),
            stdout=sink,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            timeout=120,
            check=False,
        )
    discovered = json.loads(debug_out.read_text(encoding="utf-8"))
    # An export is read as the persona's agent sees it (`skillc export` writes that agent).
    persona = exported_persona(fixture)
    text = _opencode_run(ws, binary, env, server, ["--agent", persona] if persona else [])
    agents = (
        {"persona": _opencode_run(ws, binary, env, server, ["--agent", "persona"])}
        if fixture == "policy"
        else {}
    )
    listed = set(re.findall(r"<name>(.*?)</name>", text or ""))
    # `debug skill` prints in no stable order; the golden sorts by name, then location.
    discovered.sort(key=lambda s: (s["name"], s.get("location") or ""))
    skills = [
        {
            "name": s["name"],
            "description": s.get("description"),
            "location": s.get("location"),
            "listed": s["name"] in listed,
        }
        for s in discovered
    ]
    command = {
        "discover": "opencode debug skill > FILE",
        "listing": f"opencode run --agent {persona} hi" if persona else "opencode run hi",
        "env": ["OPENCODE_CONFIG_CONTENT"],
    }
    return {"command": command, "skills": skills, "text": text} | ({"agent_text": agents} if agents else {})


def _opencode_run(
    ws: Workspace, binary: str, env: dict[str, str], server: Capture, extra: list[str]
) -> str | None:
    """One `opencode run`, and the listing from the requests it made (earlier runs' are skipped)."""
    before = len(server.requests())
    _run(ws, [binary, "run", *extra, "hi"], env)
    return _opencode_listing([r["body"] for r in server.requests()[before:]])


def _opencode_listing(requests: list[Any]) -> str | None:
    text = _first_containing(requests, "<available_skills>")
    if text is None:
        return None
    start = text.rfind("\n", 0, text.index("<available_skills>"))
    start = text.rfind("\n", 0, start)  # keep the two instruction lines before the block
    start = text.rfind("\n", 0, start)
    end = text.index("</available_skills>") + len("</available_skills>")
    return text[start + 1 : end]


def exported_persona(fixture: str) -> str | None:
    """The persona a skillc export fixture exported (`export-<persona>`, `gen-<seed>-<persona>`)."""
    if fixture.startswith("export-"):
        import exports  # a sibling script: the fixture names its variant

        return exports.variant(fixture.removeprefix("export-"))[0]
    if fixture.startswith("gen-"):
        return fixture.split("-", 2)[2]
    return None


# --- plumbing -------------------------------------------------------------------------------------


def _run(ws: Workspace, argv: list[str], env: dict[str, str]) -> tuple[str, str]:
    return run_cli(ws, argv, env)


def _shown(argv: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    return {"argv": [Path(argv[0]).name, *argv[1:]], "env": env or {}}


def _stderr_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


DRIVERS = {"codex": codex, "claude": claude, "gemini": gemini, "opencode": opencode}
