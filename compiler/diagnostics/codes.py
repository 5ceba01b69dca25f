"""Every diagnostic code skillc can emit: one registry, one typed constant per code.

Stages name codes by meaning (`Code.NAME_MISMATCH`), never by string; `skillc codes` and the docs
list `DESCRIPTIONS`. A code's number never changes meaning: configs and inline settings name it.
"""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    # config (1xx)
    CONFIG_SYNTAX = "SKC101"
    CONFIG_SCHEMA = "SKC102"
    CONFIG_PATH = "SKC103"
    TEMPLATE = "SKC104"
    SOURCE_REPEATED = "SKC105"
    SEVERITY_REFUSED = "SKC106"
    UNUSED_SUPPRESSION = "SKC107"
    CONFIG_SHADOWED = "SKC110"
    # files and frontmatter (2xx)
    NOT_UTF8 = "SKC201"
    NO_FRONTMATTER = "SKC202"
    YAML_SYNTAX = "SKC203"
    FRONTMATTER_SCHEMA = "SKC204"
    UNKNOWN_FIELD = "SKC205"
    NAME_MISMATCH = "SKC206"
    TOO_LARGE = "SKC207"
    YAML_ALIAS = "SKC208"
    DUPLICATE_KEY = "SKC209"
    YAML_TAG = "SKC212"
    EMPTY_BODY = "SKC213"
    NORMALISED = "SKC214"
    CONTROL_CHARACTER = "SKC215"
    SPEC_LIMIT = "SKC216"
    TARGET_DIFFERS = "SKC217"
    UNINVOKABLE = "SKC218"
    NAME_NOT_ID = "SKC219"
    LISTING_INJECTION = "SKC220"
    # paths and discovery (3xx)
    UNSAFE_PATH = "SKC301"
    SYMLINK_ESCAPES = "SKC302"
    SYMLINK_LOOP = "SKC303"
    PERSONA_FILE_TYPE = "SKC304"
    OVERRIDDEN = "SKC305"
    COLLISION = "SKC306"
    BAD_DIRECTORY_NAME = "SKC307"
    SOURCE_MISSING = "SKC308"
    ROOT_SKILL_MD = "SKC309"
    UNREADABLE = "SKC310"
    WALKED_ONCE = "SKC311"
    LOWERCASE_SKILL_MD = "SKC312"
    EMPTY_SOURCE = "SKC313"
    SKIPPED_INVALID = "SKC314"
    EMPTY_BUILD = "SKC315"
    NOT_COMPILED = "SKC316"
    NOT_BUILT = "SKC317"
    CONFUSABLE = "SKC320"
    NESTED_DIRECTORY = "SKC321"
    SYMLINK_RESERVED = "SKC322"
    EXCLUDES_SKILL_MD = "SKC323"
    OPTIONAL_SOURCE_MISSING = "SKC324"
    # personas (4xx)
    MANIFEST_INVALID = "SKC401"
    UNKNOWN_FALLBACK = "SKC402"
    FALLBACK_CYCLE = "SKC403"
    EXCLUSIVE_UNKNOWN_PERSONA = "SKC404"
    EXCLUSIVE_NO_SKILL = "SKC405"
    EXCLUSIVE_NO_BODY = "SKC406"
    OVERLAY_NO_SKILL = "SKC407"
    OVERLAY_IGNORED = "SKC408"
    ALLOWLIST_UNKNOWN = "SKC409"
    PERSONA_NO_MANIFEST = "SKC410"
    EXCLUSIVE_TO_UNKNOWN = "SKC411"
    BUDGET_UNKNOWN_PERSONA = "SKC412"
    REDIRECT_FRONTMATTER = "SKC420"
    # overlay content lint (5xx)
    OVERLAY_TOOLS = "SKC501"
    OVERLAY_OVERRIDE = "SKC502"
    OVERLAY_DELIMITER = "SKC503"
    OVERLAY_FILES = "SKC504"
    # budget (6xx)
    BUDGET_CUT = "SKC601"
    ALWAYS_OVER_BUDGET = "SKC602"
    TEMPLATE_NOT_SPLIT = "SKC603"
    # output (7xx)
    STALE = "SKC701"
    SCHEMA_BUG = "SKC702"
    CANNOT_WRITE = "SKC703"
    OUTPUT_NOT_OURS = "SKC704"
    DOCUMENT_TOO_LARGE = "SKC720"


DESCRIPTIONS: dict[Code, str] = {
    Code.CONFIG_SYNTAX: "config file is not valid YAML or not a mapping",
    Code.CONFIG_SCHEMA: "config file does not match its schema",
    Code.CONFIG_PATH: "a configured path is missing or escapes the project",
    Code.TEMPLATE: "template cannot be loaded or rendered",
    Code.SOURCE_REPEATED: "a source is listed more than once",
    Code.SEVERITY_REFUSED: "a severity setting names an unknown code or lowers an integrity code",
    Code.UNUSED_SUPPRESSION: "a suppression suppresses nothing in this build, or can never match",
    Code.CONFIG_SHADOWED: "[tool.skillc] in pyproject.toml is ignored: skillc.yaml in the same folder wins",
    Code.NOT_UTF8: "file cannot be read as UTF-8 text",
    Code.NO_FRONTMATTER: "missing or unterminated frontmatter",
    Code.YAML_SYNTAX: "YAML syntax error",
    Code.FRONTMATTER_SCHEMA: "frontmatter does not match the schema",
    Code.UNKNOWN_FIELD: "unknown frontmatter field",
    Code.NAME_MISMATCH: "name does not match its directory",
    Code.TOO_LARGE: "file exceeds the size cap",
    Code.YAML_ALIAS: "YAML anchors and aliases are not allowed",
    Code.DUPLICATE_KEY: "duplicate mapping key",
    Code.YAML_TAG: "YAML tag not allowed (safe loading only)",
    Code.EMPTY_BODY: "empty body",
    Code.NORMALISED: "frontmatter value normalised to what the harnesses read (quote it to silence this)",
    Code.CONTROL_CHARACTER: "control character in text or a YAML string",
    Code.SPEC_LIMIT: "a frontmatter value is longer than the Agent Skills spec allows",
    Code.TARGET_DIFFERS: "a selected harness skips the skill or ignores a field of it (targets:)",
    Code.UNINVOKABLE: "no one can invoke the skill: hidden from the model and from the user",
    Code.NAME_NOT_ID: "name is not a valid skill name: it is the skill's label, its id is its folder's name",
    Code.LISTING_INJECTION: "a selected harness's listing would read text of the skill as markup (targets:)",
    Code.UNSAFE_PATH: "unsafe path",
    Code.SYMLINK_ESCAPES: "symlink escapes the root",
    Code.SYMLINK_LOOP: "symlink loop",
    Code.PERSONA_FILE_TYPE: "overlay or redirect body is not .md, .yaml or .json (SEC-002)",
    Code.OVERRIDDEN: "command overridden by a later source",
    Code.COLLISION: "commands collide (case or sanitized id)",
    Code.BAD_DIRECTORY_NAME: "directory name is not a valid skill name",
    Code.SOURCE_MISSING: "source directory does not exist",
    Code.ROOT_SKILL_MD: "SKILL.md at a source root is ignored (the root is not a skill)",
    Code.UNREADABLE: "file cannot be read",
    Code.WALKED_ONCE: "directory reached again through a symlink; walked once",
    Code.LOWERCASE_SKILL_MD: "lowercase skill.md accepted",
    Code.EMPTY_SOURCE: "source holds no skills",
    Code.SKIPPED_INVALID: "skills left out because they have errors (--skip-invalid)",
    Code.EMPTY_BUILD: "the build holds no skills",
    Code.NOT_COMPILED: "a SKILL.md found that the source's discovery rules do not compile (a hidden folder, depth)",
    Code.NOT_BUILT: "a SKILL.md gives no skill and no other diagnostic says why (a skillc bug)",
    Code.CONFUSABLE: "two commands look alike (Latin, Cyrillic or Greek look-alike letters)",
    Code.NESTED_DIRECTORY: "a source or the personas directory is inside a source: left out of its walk",
    Code.SYMLINK_RESERVED: "symlink resolves into version-control metadata, the output or the build cache",
    Code.EXCLUDES_SKILL_MD: "resources.exclude matches SKILL.md, which is never excluded",
    Code.OPTIONAL_SOURCE_MISSING: "a source marked optional does not exist on this machine",
    Code.MANIFEST_INVALID: "persona manifest invalid",
    Code.UNKNOWN_FALLBACK: "unknown fallback persona",
    Code.FALLBACK_CYCLE: "fallback cycle",
    Code.EXCLUSIVE_UNKNOWN_PERSONA: "exclusive skill for an unknown persona",
    Code.EXCLUSIVE_NO_SKILL: "exclusive body without a matching skill",
    Code.EXCLUSIVE_NO_BODY: "exclusive skill has no body for its persona",
    Code.OVERLAY_NO_SKILL: "overlay for a skill that does not exist",
    Code.OVERLAY_IGNORED: "overlay ignored: skill does not set has_persona_overlay",
    Code.ALLOWLIST_UNKNOWN: "allowlist names an unknown command",
    Code.PERSONA_NO_MANIFEST: "persona directory without manifest.yaml",
    Code.EXCLUSIVE_TO_UNKNOWN: "persona_exclusive names an unknown persona",
    Code.BUDGET_UNKNOWN_PERSONA: "a budget is configured for an unknown persona",
    Code.REDIRECT_FRONTMATTER: "a redirect body opens with a '---' block, which is left out of the body",
    Code.OVERLAY_TOOLS: "overlay contains tool invocation instructions",
    Code.OVERLAY_OVERRIDE: "overlay attempts a system prompt override",
    Code.OVERLAY_DELIMITER: "overlay tries to close the untrusted-data delimiter",
    Code.OVERLAY_FILES: "overlay requests file access",
    Code.BUDGET_CUT: "skills left out of or shortened in a persona catalog by the character budget",
    Code.ALWAYS_OVER_BUDGET: "always-on skills alone exceed the budget",
    Code.TEMPLATE_NOT_SPLIT: "the catalog template cannot be split into its frame and its entries, which readers need to leave out a skill, give absolute locations or stack builds",
    Code.STALE: "output directory is stale",
    Code.SCHEMA_BUG: "what the build would write breaks the artifact schemas (a skillc bug)",
    Code.CANNOT_WRITE: "cannot write the output directory",
    Code.OUTPUT_NOT_OURS: "output directory was not written by skillc: refusing to replace it",
    Code.DOCUMENT_TOO_LARGE: "a file of the build would be larger than the reader accepts: nothing is written",
}


# Spec conformance: the build is still exactly what the sources say, only less portable or less tidy
# (a name that differs from its folder, a description over the spec's 1,024 characters, a notice).
# These may be set to error, warning or ignore: per code, per path, inline in a SKILL.md, --ignore.
# Every other code is integrity: the output would be wrong or unsafe (a file left out, a path that
# escapes, YAML that cannot be read), so it may be raised to an error but never lowered.
CONFORMANCE: frozenset[Code] = frozenset(
    {
        Code.SOURCE_REPEATED,
        Code.UNUSED_SUPPRESSION,
        Code.UNKNOWN_FIELD,
        Code.NAME_MISMATCH,
        Code.EMPTY_BODY,
        Code.NORMALISED,
        Code.SPEC_LIMIT,
        Code.TARGET_DIFFERS,
        Code.UNINVOKABLE,
        Code.NAME_NOT_ID,
        Code.LISTING_INJECTION,
        Code.OVERRIDDEN,
        Code.BAD_DIRECTORY_NAME,
        Code.ROOT_SKILL_MD,
        Code.WALKED_ONCE,
        Code.NESTED_DIRECTORY,
        Code.EXCLUDES_SKILL_MD,
        Code.OPTIONAL_SOURCE_MISSING,
        Code.LOWERCASE_SKILL_MD,
        Code.EMPTY_SOURCE,
        Code.NOT_COMPILED,
        Code.OVERLAY_NO_SKILL,
        Code.OVERLAY_IGNORED,
        Code.ALLOWLIST_UNKNOWN,
        Code.PERSONA_NO_MANIFEST,
        Code.BUDGET_UNKNOWN_PERSONA,
        Code.OVERLAY_TOOLS,
        Code.OVERLAY_OVERRIDE,
        Code.OVERLAY_FILES,
        Code.BUDGET_CUT,
        Code.ALWAYS_OVER_BUDGET,
        Code.TEMPLATE_NOT_SPLIT,
    }
)


def lowerable(code: str) -> bool:
    """Whether a code may be set to warning or ignore (spec conformance), not only raised."""
    return code in _LOWERABLE


_LOWERABLE = frozenset(c.value for c in CONFORMANCE)
