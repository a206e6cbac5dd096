"""JSON Schema validation of notes and sidecars, with line numbers. Pure: bytes in, problems out
(``workflows/validation.validate_file`` reads the file).

Two validators guard one schema. The fast one (fastjsonschema's code, generated ahead of time
into ``validators.py`` by ``schema_code.py``) only says yes or no, which is all a valid file
needs. When it says no, the reference validator (jsonschema, Draft 2020-12) collects every error with its path, and only then is the YAML
composed again to point each error at the offending node's line and column.

Schemas ship as package data (``reflectgit/schemas/``, identical to the repository's
``schemas/``). They see dates and timestamps as ISO strings: YAML turns an unquoted
``2026-03-04`` into a date object, so values are converted before validation.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING

from reflectgit.errors import NoteError
from reflectgit.notes import names
from reflectgit.notes.note import (
    ENTITY_TYPES,
    MAX_DEPTH,
    RANKING_FIELDS,
    RELATIONSHIP_TYPES,
    TIERS,
    Note,
    Origin,
    Sidecar,
    decode_text,
    normalize_tier,
    parse_note,
    parse_sidecar,
    split_frontmatter,
)
from reflectgit.notes.problems import Problem as Problem
from reflectgit.notes.quickcheck import NOTE_SCHEMA as NOTE_SCHEMA
from reflectgit.notes.quickcheck import NOTE_SUFFIX as NOTE_SUFFIX
from reflectgit.notes.quickcheck import SIDECAR_SCHEMA as SIDECAR_SCHEMA
from reflectgit.notes.quickcheck import SIDECAR_SUFFIX as SIDECAR_SUFFIX
from reflectgit.notes.quickcheck import fast_validator as fast_validator
from reflectgit.notes.quickcheck import (
    frontmatter_accepted,
    name_findings,
    note_is_valid,
    sidecar_findings,
)
from reflectgit.notes.quickcheck import is_valid_fast as is_valid_fast
from reflectgit.notes.quickcheck import kind_of_path as kind_of_path

if TYPE_CHECKING:
    from typing import Any

    import yaml

_REQUIRED_HINTS = {
    "title": "add `title: <a short human title>`",
    "created": "add `created: 2026-03-04` (the day the learning was captured)",
    "confidence": "add `confidence: high`, `medium` or `low`",
    "description": 'add `description: ""` (it may be empty)',
    "entities": "add `entities: []` or list the entities",
}


# --------------------------------------------------------------------------- schemas


@cache
def load_schema(name: str) -> dict[str, Any]:
    """A packaged schema (``frontmatter.schema.json`` or ``sidecar.schema.json``)."""
    import json
    from importlib import resources

    text = (
        resources.files("reflectgit").joinpath("schemas").joinpath(name).read_text(encoding="utf-8")
    )
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def reference_validator(name: str) -> Any:
    """The jsonschema Draft 2020-12 validator that reports every error with its path."""
    import jsonschema

    return jsonschema.Draft202012Validator(load_schema(name))


def is_valid_reference(instance: Any, name: str) -> bool:
    """Yes or no from jsonschema (used by tests to prove both validators agree)."""
    return bool(reference_validator(name).is_valid(instance))


def to_json_value(value: Any) -> Any:
    """Dates and timestamps as ISO strings, everything else as YAML loaded it."""
    if isinstance(value, dict):
        return {k: to_json_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_json_value(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


# --------------------------------------------------------------------------- entry points


def validate_note_bytes(data: bytes, path: str, strict: bool = False) -> list[Problem]:
    """Parse and validate a note's bytes; every problem comes back as a value."""
    if note_is_valid(data):
        return []  # plain YAML, valid: PyYAML need not be asked
    quick = fast_frontmatter(data)
    if quick is not None and frontmatter_accepted(quick, data):
        return []
    try:
        note = parse_note(data, path)
    except NoteError as exc:
        return [problem_from_error(exc, path)]
    return validate_note(note, path, strict=strict)


def validate_sidecar_bytes(data: bytes, path: str, strict: bool = False) -> list[Problem]:
    """Parse and validate a sidecar's bytes; every problem comes back as a value."""
    try:
        sidecar = parse_sidecar(data, path)
    except NoteError as exc:
        return [problem_from_error(exc, path)]
    return validate_sidecar(sidecar, path, strict=strict)


def validate_note(note: Note, path: str | None = None, strict: bool = False) -> list[Problem]:
    """Validate a parsed note's frontmatter (``strict`` adds nothing for notes yet)."""
    source = path or (note.origin.source if note.origin else "<note>")
    instance = to_json_value(note.frontmatter)
    findings = name_findings(instance) + _enforce_findings(instance)
    body_at = names.text_control(note.body)
    if not findings and body_at is None and is_valid_fast(instance, NOTE_SCHEMA):
        return []
    locator = _Locator.for_origin(note.origin, top_line=1)
    problems = _schema_problems(instance, NOTE_SCHEMA, source, locator)
    for where, on_key, message in findings:
        line, col = locator.locate(where, on_key=on_key)
        problems.append(Problem(source, line, col, field_path(where), message))
    if body_at is not None:
        line, col = _body_position(note, body_at)
        problems.append(
            Problem(
                source,
                line,
                col,
                "body",
                f"holds the control character {names.describe(note.body[body_at])}",
            )
        )
    return sorted(problems, key=Problem.sort_key)


def _enforce_findings(instance: Any) -> list[Finding]:
    """``enforce`` patterns the schema's shape accepts but the rule reader cannot use
    (``Bash(ls`` with no closing quote, a specifier on a tool that takes none)."""
    enforce = instance.get("enforce") if isinstance(instance, dict) else None
    if not isinstance(enforce, dict):
        return []
    from reflectgit.notes.policy import pattern_problem

    out: list[Finding] = []
    for action in ("deny", "ask"):
        patterns = enforce.get(action)
        for index, text in enumerate(patterns if isinstance(patterns, list) else []):
            problem = pattern_problem(text) if isinstance(text, str) else None
            if problem is not None:
                out.append(
                    (
                        ["enforce", action, index],
                        False,
                        f"{problem}; write `Tool` or `Tool(specifier)`, e.g. "
                        "`Bash(git push --force:*)` (docs/rules.md)",
                    )
                )
    return out


def _body_position(note: Note, at: int) -> tuple[int, int]:
    """(line, column) in the file of character ``at`` of the body (line 1 when unknown)."""
    start = 1
    if note.origin is not None:
        start = note.origin.yaml_line + note.origin.yaml_text.count("\n") + 1
    line_start = note.body.rfind("\n", 0, at) + 1
    return start + note.body.count("\n", 0, at), at - line_start + 1


def validate_sidecar(
    sidecar: Sidecar, path: str | None = None, strict: bool = False
) -> list[Problem]:
    """Validate a parsed sidecar; ``strict`` also needs document_id, extracted_at, known endpoints."""
    source = path or (sidecar.origin.source if sidecar.origin else "<sidecar>")
    instance = to_json_value(sidecar.data)
    findings = [*sidecar_findings(instance, strict), *names.control_findings(instance)]
    if not findings and is_valid_fast(instance, SIDECAR_SCHEMA):
        return []
    locator = _Locator.for_origin(sidecar.origin, top_line=1)
    problems = _schema_problems(instance, SIDECAR_SCHEMA, source, locator)
    for where, on_key, message in findings:
        line, col = locator.locate(where, on_key=on_key)
        problems.append(Problem(source, line, col, field_path(where), message))
    return sorted(problems, key=Problem.sort_key)


def problem_from_error(exc: NoteError, path: str) -> Problem:
    """A parse error (with line and column when known) as a problem."""
    message = exc.message
    prefix = f"{path}: "
    if message.startswith(prefix):
        message = message[len(prefix) :]
    if exc.hint:
        message = f"{message}; {exc.hint}"
    return Problem(path, exc.line or 1, exc.column or 1, exc.field or "", message)


def locate(
    origin: Origin | None, path: Sequence[str | int], on_key: bool = False
) -> tuple[int, int]:
    """(line, column) of the YAML node at ``path`` in a parsed note or sidecar (1, 1 if unknown)."""
    return _Locator.for_origin(origin, top_line=1).locate(path, on_key=on_key)


def field_path(parts: Sequence[str | int]) -> str:
    """``["causal_relations", 0, "type"]`` -> ``causal_relations[0].type``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


# --------------------------------------------------------------------------- the fast path

_TAG = "tag:yaml.org,2002:"


class _Unusual(Exception):
    """Something the fast path leaves to the full parser (which reports it precisely)."""


def fast_frontmatter(data: bytes) -> dict[str, Any] | None:
    """The frontmatter as the validator sees it, or None when only the full parser may judge.

    Most of a valid note's cost is PyYAML's generic constructor; plain notes (string keys, core
    scalars, no aliases, no other tags) are built here straight from the C-composed nodes.
    Whatever this returns equals ``to_json_value(parse_note(data).frontmatter)`` (a test holds
    it to that); anything else returns None and takes the full path.
    """
    try:
        text = decode_text(data, "<note>")
        yaml_text, _body, _line = split_frontmatter(text, "<note>")
    except NoteError:
        return None
    import yaml

    from reflectgit.notes.yamlcodec import SCALARS, PlainLoader

    loader = PlainLoader(yaml_text)
    try:
        node = loader.get_single_node()
        built = _build(node, set(), SCALARS) if node is not None else None
    except (yaml.YAMLError, _Unusual, ValueError, TypeError, RecursionError):
        return None
    finally:
        loader.dispose()
    return built if isinstance(built, dict) else None


def _build(
    node: yaml.Node, seen: set[int], scalars: Mapping[str, Callable[[Any], Any]], depth: int = 1
) -> Any:
    # An alias composes to the node it names: seeing a node twice means anchors, whose
    # expansion the full parser bounds; so does it bound nesting.
    if id(node) in seen or depth > MAX_DEPTH:
        raise _Unusual
    seen.add(id(node))
    tag = node.tag
    if tag == _TAG + "str":
        return node.value
    if tag == _TAG + "map":
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag != _TAG + "str" or key_node.value in out:
                raise _Unusual  # a non-string or duplicate key: the full parser explains
            out[key_node.value] = _build(value_node, seen, scalars, depth + 1)
        return out
    if tag == _TAG + "seq":
        return [_build(item, seen, scalars, depth + 1) for item in node.value]
    construct = scalars.get(tag)
    if construct is None:
        raise _Unusual
    return construct(node)


# --------------------------------------------------------------------------- code checks


Finding = names.Finding  # path, point at the key (not the value), message


# --------------------------------------------------------------------------- schema errors


def _schema_problems(instance: Any, name: str, source: str, locator: _Locator) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for error in reference_validator(name).iter_errors(instance):
        for where, on_key, message in _explain(error, instance):
            key = (field_path(where), message)
            if key in seen:
                continue
            seen.add(key)
            line, col = locator.locate(where, on_key=on_key)
            problems.append(Problem(source, line, col, field_path(where), message))
    return problems


def _explain(error: Any, root: Any) -> list[Finding]:
    """Turn one jsonschema error into findings a person can act on."""
    path: list[str | int] = list(error.absolute_path)
    value = error.instance
    validator = error.validator
    schema = error.schema
    leaf = path[-1] if path else None

    if schema is False:
        # jsonschema reports a false subschema at the parent's path, without the key: find
        # the forbidden keys present in that parent.
        parent = _resolve(root, path)
        present = [
            k for k in (*RANKING_FIELDS, "from", "to") if isinstance(parent, dict) and k in parent
        ]
        return [_forbidden(path, key) for key in present] or [(path, False, error.message)]

    if validator == "required":
        findings: list[Finding] = []
        for key in error.validator_value:
            if not isinstance(value, dict) or key in value:
                continue
            if (key == "source" and "from" in value) or (key == "target" and "to" in value):
                continue  # the from/to finding already says what to do
            hint = _REQUIRED_HINTS.get(key, f"add `{key}:`")
            findings.append(([*path, key], True, f"is required; {hint}"))
        return findings

    if validator == "type":
        return [
            (path, False, f"expected {_type_words(error.validator_value)}, got {_describe(value)}")
        ]

    if validator == "enum":
        return [(path, False, _enum_message(leaf, path, value, error.validator_value))]

    if validator in ("pattern", "minLength", "maxLength"):
        if schema.get("pattern", "").startswith("^[0-9]{4}-"):
            return [
                (
                    path,
                    False,
                    f"{value!r} is not an ISO date or timestamp; write a date such as "
                    "2026-03-04 or a timestamp such as 2026-03-04T09:12:00Z",
                )
            ]
        if leaf == "id":
            return [
                (
                    path,
                    False,
                    f"{value!r} is not a safe file name: an id has no '/', '\\', '..', "
                    "leading dot, surrounding spaces or control characters",
                )
            ]
        if validator == "maxLength":
            return [(path, False, f"is longer than {error.validator_value} characters")]
        what = "give the note a short human title" if leaf == "title" else "write a value"
        return [(path, False, f"must not be empty; {what}")]

    if validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        low, high = schema.get("minimum"), schema.get("maximum")
        whole = "whole number" if schema.get("type") == "integer" else "number"
        if low is not None and high is not None:
            return [(path, False, f"{value!r} is out of range; use a {whole} from {low} to {high}")]
        bound = low if low is not None else high
        side = "at least" if low is not None else "at most"
        return [(path, False, f"{value!r} is out of range; use a {whole} {side} {bound}")]

    if validator == "uniqueItems" and isinstance(value, list):
        import json

        out: list[Finding] = []
        firsts: dict[str, int] = {}
        for index, item in enumerate(value):
            marker = json.dumps(item, sort_keys=True, default=str)
            if marker in firsts:
                out.append(
                    (
                        [*path, index],
                        False,
                        f"{item!r} is listed twice (first as item {firsts[marker]}); keep one",
                    )
                )
            else:
                firsts[marker] = index
        return out or [(path, False, "items must be unique")]

    return [(path, False, error.message)]


def _forbidden(path: Sequence[str | int], key: str) -> Finding:
    where = [*path, key]
    if key in RANKING_FIELDS:
        return (
            where,
            True,
            "is a ranking field (rule S9): it changes on every query, so it lives in the "
            "state directory, never in a note; remove this line",
        )
    better = "source" if key == "from" else "target"
    return (where, True, f"use '{better}' instead of '{key}' (relationships use source/target)")


def _resolve(root: Any, path: Sequence[str | int]) -> Any:
    node = root
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def _enum_message(leaf: Any, path: Sequence[str | int], value: Any, allowed: Sequence[Any]) -> str:
    if leaf == "confidence" and len(path) == 1:
        tier = normalize_tier(value)
        if tier:
            return f"{value!r} is not allowed; write {tier!r}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return (
                f"{value!r} is not a tier; write high, medium or low (put a number from 0 to 1 "
                "in confidence_num)"
            )
        return f"{value!r} is not a tier; write one of {', '.join(TIERS)}"
    if tuple(allowed) == RELATIONSHIP_TYPES:
        return (
            f"{value!r} is not a relationship type; use one of {', '.join(RELATIONSHIP_TYPES)} "
            "(relates_to when the direction is unknown)"
        )
    if tuple(allowed) == ENTITY_TYPES:
        return f"{value!r} is not an entity type; use one of {', '.join(ENTITY_TYPES)}"
    return f"{value!r} is not one of {', '.join(map(str, allowed))}"


_TYPE_WORDS = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "array": "a list",
    "object": "a mapping",
    "null": "null",
    "boolean": "true or false",
}


def _type_words(expected: str | Sequence[str]) -> str:
    names = [expected] if isinstance(expected, str) else list(expected)
    return " or ".join(_TYPE_WORDS.get(n, n) for n in names)


def _describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int):
        return f"a whole number ({value})"
    if isinstance(value, float):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({value!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


# --------------------------------------------------------------------------- locations


class _Locator:
    """Maps a JSON path to the line and column of its YAML node (composed on first use)."""

    def __init__(self, yaml_text: str | None, line_offset: int, top_line: int) -> None:
        self._text = yaml_text
        self._offset = line_offset
        self._top_line = top_line
        self._root: yaml.Node | None = None
        self._composed = False

    @classmethod
    def for_origin(cls, origin: Origin | None, top_line: int) -> _Locator:
        if origin is None:
            return cls(None, 0, top_line)
        return cls(origin.yaml_text, origin.yaml_line - 1, top_line)

    def _compose(self) -> yaml.Node | None:
        if not self._composed:
            self._composed = True
            if self._text is not None:
                import yaml

                from reflectgit.notes.yamlcodec import StrictLoader

                loader = StrictLoader(self._text)
                try:
                    self._root = loader.get_single_node()
                except yaml.YAMLError:  # pragma: no cover - the text already parsed once
                    self._root = None
                finally:
                    loader.dispose()
        return self._root

    def locate(self, path: Sequence[str | int], on_key: bool = False) -> tuple[int, int]:
        """(line, column), 1-based: the node at ``path``; for a missing key, its mapping."""
        node = self._compose()
        if node is None:
            return (self._top_line, 1)
        import yaml

        mark = None
        parent_mark = None
        for depth, part in enumerate(path):
            last = depth == len(path) - 1
            child: yaml.Node | None = None
            key_node: yaml.Node | None = None
            if isinstance(node, yaml.MappingNode):
                for k, v in node.value:
                    if isinstance(k, yaml.ScalarNode) and k.value == str(part):
                        key_node, child = k, v
            elif (
                isinstance(node, yaml.SequenceNode)
                and isinstance(part, int)
                and 0 <= part < len(node.value)
            ):
                child = node.value[part]
            if child is None:
                # A missing key: point at the mapping that should hold it.
                if depth == 0:
                    return (self._top_line, 1)
                mark = parent_mark
                break
            parent_mark = child.start_mark
            mark = (
                key_node.start_mark
                if (last and on_key and key_node is not None)
                else child.start_mark
            )
            node = child
        if not path:
            return (self._top_line, 1)
        if mark is None:
            return (self._top_line, 1)
        return (mark.line + 1 + self._offset, mark.column + 1)
