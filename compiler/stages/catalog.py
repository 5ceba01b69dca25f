"""Catalog stage: per persona, the budgeted tier-1 catalog text and the packing that produced it."""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any

from .. import diagnostics as dg
from ..dataclass import dataclass
from ..diagnostics import Diagnostic
from ..diagnostics.codes import Code
from ..model import Config, Persona, Program, Resolved, Skill, Strategy
from ..names.suggest import did_you_mean
from .budget import Candidate, Packing, pack
from .template import Template, escape_value

# Catalog entries already made, by command and description (`catalog_text`): the personas'
# catalogs share them, as the same skill with the same description is the same entry in each.
Entries = dict[tuple[str, str | None], dict[str, Any]]


def catalog_skill(skill: Skill, template: Template, description: str | None = None) -> dict[str, Any]:
    """description: the budget's shortened (or removed, "") description instead of the skill's."""
    command, name, label, whole, location, always = entry_fields(skill)
    values = {
        "command": command,
        "name": name,
        "label": label,
        "description": whole if description is None else description,
        "location": location,
        "always": always,
    }
    return {k: escape_value(v) for k, v in values.items()} if template.markup else values


def entry_fields(skill: Skill) -> tuple[Any, ...]:
    """What a skill's catalog entry and budget candidate read of it (the rest is the template's):
    an edit that leaves these as they were changes no catalog (incremental/edit.py)."""
    always = bool(skill.flag("always", False))
    return (skill.command, skill.name, skill.label, skill.description, skill.path, always)


def entry_cost(entry: dict[str, Any], template: Template) -> int:
    """Characters one catalog entry (catalog_skill's values) adds to a catalog."""
    return len(template.entry(entry))


def catalogs(
    config: Config, program: Program, resolved: Resolved, template: Template
) -> tuple[dict[str, str], dict[str, Packing], tuple[Diagnostic, ...]]:
    """Per persona: the budgeted catalog text and the packing that produced it."""
    parts = catalog_parts(config, program, resolved, template)
    texts: dict[str, str] = {}
    packings: dict[str, Packing] = {}
    diags = budget_warnings(config, program)
    # Entries shared by the personas' catalogs, from each skill's whole-description one made for its cost.
    made: Entries = {(c, None): e for c, e in parts.entries.items()}
    for persona in program.personas.values():
        texts[persona.id], packings[persona.id] = persona_catalog(
            config, program, persona, template, parts, made
        )
        diags.extend(packings[persona.id].diagnostics)
    return texts, packings, tuple(diags)


@dataclass(frozen=True)
class CatalogParts:
    """What every persona's catalog is made from, made once per build: each skill's catalog entry and
    budget candidate, and which skills each persona's model may invoke. An edit build makes them
    from its catalog rows (incremental/edit.py)."""

    entries: dict[str, dict[str, Any]]  # command -> catalog_skill(...), every skill
    candidates: dict[str, Candidate]  # command -> its budget candidate, for the skills some persona lists
    listed: dict[str, list[str]]  # persona id -> the commands its model may invoke, in command order


def catalog_parts(config: Config, program: Program, resolved: Resolved, template: Template) -> CatalogParts:
    entries = {c: catalog_skill(s, template) for c, s in program.skills.items()}
    listed: dict[str, list[str]] = {pid: [] for pid in program.personas}  # commands the model may invoke
    for command, res in resolved.items():
        for pid, outcome in res.outcomes.items():
            if outcome.model:
                listed[pid].append(command)
    # A skill's candidate is the same for every persona: made once, not once per pair.
    made = {
        c: candidate(program.skills[c], entry_cost(entries[c], template), template, config)
        for c in dict.fromkeys(chain.from_iterable(listed.values()))
    }
    return CatalogParts(entries, made, listed)


def budget_warnings(config: Config, program: Program) -> list[Diagnostic]:
    """One per persona `budgets.personas` names that the program does not have."""
    return [
        dg.warning(
            config.config_rel,
            Code.BUDGET_UNKNOWN_PERSONA,
            f"budgets.personas names unknown persona {pid!r}{did_you_mean(pid, program.personas)}",
            *config.at("budgets", "personas", pid),
        )
        for pid, _ in config.persona_budgets
        if pid not in program.personas
    ]


def persona_catalog(
    config: Config,
    program: Program,
    persona: Persona,
    template: Template,
    parts: CatalogParts,
    made: Entries | None = None,
) -> tuple[str, Packing]:
    """One persona's catalog text and packing; `made` as for catalog_text."""
    candidates = tuple(map(parts.candidates.__getitem__, parts.listed[persona.id]))
    return _fit_catalog(config, program, persona, template, candidates, made)


def row(skill: Skill, made: Candidate) -> list[Any]:
    """What a catalog reads of a listed skill, as JSON values: its name and its budget candidate
    (`skill_of` and `candidate_of` give them back). The build cache keeps a row per listed skill, so
    that an edit build renders a catalog without the other skills (incremental/carry.py)."""
    return [skill.name, made.description, made.path, made.always, made.cost, made.bare_cost, skill.label]


def skill_of(command: str, row: list[Any]) -> Skill:
    """The listed skill as `catalog_skill` and `candidate` read it, from its row."""
    name, description, path, always, _cost, _bare, label = row
    fields = {"name": label, "always": True} if always else {"name": label}
    return Skill(command, name, description, 0, path, "", "", fields, (), None, ())


def cost_of(row: list[Any]) -> tuple[int, bool]:
    """A listed skill's entry cost and whether it is always on, from its row."""
    return row[4], bool(row[3])


def candidate_of(command: str, row: list[Any]) -> Candidate:
    """The listed skill's budget candidate, from its row."""
    _name, description, path, always, cost, bare, _label = row
    return Candidate(command, bool(always), cost, path, description, bare)


def candidate(skill: Skill, cost: int, template: Template, config: Config) -> Candidate:
    bare = -1
    if config.budget_strategy is Strategy.NAMES_ONLY:  # one more render per skill, only for this strategy
        bare = len(template.entry(catalog_skill(skill, template, "")))
    return Candidate(
        skill.command, bool(skill.flag("always", False)), cost, skill.path, skill.description, bare
    )


def _fit_catalog(
    config: Config,
    program: Program,
    persona: Persona,
    template: Template,
    candidates: tuple[Candidate, ...],
    made: Entries | None = None,
) -> tuple[str, Packing]:
    """Pack, render, and pack tighter while shortened entries came out longer than estimated."""
    budget = config.budget_for(persona.id)
    slack = 0
    for _ in range(8):
        packing = pack(
            persona.id,
            budget,
            candidates,
            frame(template, persona, budget),
            strategy=config.budget_strategy,
            priority=config.budget_priority,
            verbose=config.verbose,
            where=config.config_rel,
            slack=slack,
        )
        text = catalog_text(program, persona, template, packing, made)
        if len(text) <= budget or not packing.descriptions:
            break
        slack += len(text) - budget
    return text, packing


def frame(template: Template, persona: Persona, budget: int) -> Callable[[int], int]:
    """The size of the persona's catalog with no entries, by how many are left out."""
    return lambda omitted: len(render_catalog(template, persona, [], omitted, budget))


def catalog_text(
    program: Program,
    persona: Persona,
    template: Template,
    packing: Packing,
    made: Entries | None = None,
) -> str:
    """The catalog a packing gives: its included skills, with its descriptions, and the count left out.
    `made`: the entries made for other personas' catalogs (Entries), filled as they are made."""
    made = {} if made is None else made
    skills = []
    for command in packing.included:
        key = (command, packing.descriptions.get(command))
        entry = made.get(key)
        if entry is None:
            entry = made[key] = catalog_skill(program.skills[command], template, key[1])
        skills.append(dict(entry))  # a copy: a project's template could change what it is given
    return render_catalog(template, persona, skills, len(packing.left_out), packing.budget)


def render_catalog(
    template: Template, persona: Persona, skills: list[dict[str, Any]], omitted: int, budget: int
) -> str:
    # Manifests are untrusted like skills: their values are escaped exactly as catalog entries are.
    who = {"id": persona.id, "name": persona.name, "faction": persona.faction}
    if template.markup:
        who = {k: escape_value(v) for k, v in who.items()}
    return template.render(persona=who, skills=skills, omitted=omitted, budget=budget)
