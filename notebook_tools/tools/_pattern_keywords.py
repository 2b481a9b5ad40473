"""Draft 2020-12 with its regex keywords matched by `_patterns` (RE2): the class `_schemas.validator` uses.

jsonschema matches `pattern`, `patternProperties` and the property names `additionalProperties`
and `unevaluatedProperties` leave to `patternProperties` with Python's backtracking `re`; these are
its keyword functions with `_patterns.search` instead (same messages). Every other keyword is
jsonschema's. A `$schema` inside a schema does not switch to jsonschema's own class for that draft
(its `re` again): every subschema is checked as Draft 2020-12, as the root always was.

Imported on first use only (it imports jsonschema: see `_schemas.validator`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

from ._patterns import search

__all__ = ["RE2Draft202012Validator"]


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: Any, schema: Any) -> list[Any]:
    """The properties neither `properties` nor `patternProperties` name (jsonschema's, matched by RE2)."""
    properties, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    return [
        key
        for key in instance
        if key not in properties and not any(search(pattern, key) for pattern in patterns)
    ]


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    extras = set(_additional(instance, schema))
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        if "patternProperties" in schema:
            verb = "does" if len(extras) == 1 else "do"
            joined = ", ".join(repr(each) for each in sorted(extras))
            patterns = ", ".join(repr(each) for each in sorted(schema["patternProperties"]))
            yield ValidationError(f"{joined} {verb} not match any of the regexes: {patterns}")
        else:
            listed = ", ".join(repr(each) for each in sorted(extras, key=str))
            verb = "was" if len(extras) == 1 else "were"
            yield ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")


def _unevaluated_properties(validator: Any, unevaluated: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema)
    failing = []
    for key in instance:
        if key not in evaluated:
            for _ in validator.descend(instance[key], unevaluated, path=key, schema_path=key):
                failing.append(key)
    if failing:
        verb = "was" if len(failing) == 1 else "were"
        if unevaluated is False:
            listed = ", ".join(repr(each) for each in sorted(failing, key=str))
            yield ValidationError(f"Unevaluated properties are not allowed ({listed} {verb} unexpected)")
        else:
            listed = ", ".join(repr(each) for each in failing)
            yield ValidationError(
                "Unevaluated properties are not valid under the given schema "
                f"({listed} {verb} unevaluated and invalid)"
            )


def _valid(errors: Iterator[Any]) -> bool:
    return next(errors, None) is None


def _evaluated_keys(validator: Any, instance: Any, schema: Any) -> list[Any]:
    """The keys of `instance` that `schema` evaluates (jsonschema's, `patternProperties` matched by RE2)."""
    if validator.is_type(schema, "boolean"):
        return []
    keys: list[Any] = []
    for keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(keyword)
        if ref is not None:
            resolved = validator._resolver.lookup(ref)
            there = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            keys += _evaluated_keys(there, instance, resolved.contents)
    properties = schema.get("properties")
    if validator.is_type(properties, "object"):
        keys += properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        if (subschema := schema.get(keyword)) is not None:
            keys += (k for k, v in instance.items() if _valid(validator.descend(v, subschema)))
    for key in instance if "patternProperties" in schema else ():
        keys += [key for pattern in schema["patternProperties"] if search(pattern, key)]
    for key, subschema in schema.get("dependentSchemas", {}).items():
        if key in instance:
            keys += _evaluated_keys(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _valid(validator.descend(instance, subschema)):
                keys += _evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys += _evaluated_keys(validator, instance, schema["if"])
            if "then" in schema:
                keys += _evaluated_keys(validator, instance, schema["then"])
        elif "else" in schema:
            keys += _evaluated_keys(validator, instance, schema["else"])
    return keys


RE2Draft202012Validator: Any = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "unevaluatedProperties": _unevaluated_properties,
    },
)
_FIELDS = [(f.name, f.alias) for f in RE2Draft202012Validator.__attrs_attrs__ if f.init]


def _evolve(self: Any, **changes: Any) -> Any:
    """Jsonschema's `evolve`, but keeping this class whatever `$schema` a subschema names."""
    for name, alias in _FIELDS:
        if alias not in changes:
            changes[alias] = getattr(self, name)
    return RE2Draft202012Validator(**changes)


RE2Draft202012Validator.evolve = _evolve
