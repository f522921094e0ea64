"""A tool call's arguments checked against the parameter schema its model was given.

google-adk 2.13 records each model call's tools in `gen_ai.tool.definitions` in one of two
dialects (observed): JSON Schema as pydantic writes it (`parameters_json_schema`, the
default), or google-genai's OpenAPI-style `Schema` dumped field by field: upper-case types
(`"STRING"`), `nullable`, and snake_case keywords (`any_of`, `max_length`, `defs`...), which
a tool declared with `types.Schema` (or ADK with JSON_SCHEMA_FOR_FUNC_DECL off) produces.
`to_json_schema` turns the second into the first; the checking itself is jsonschema-rs, a
JSON Schema implementation (Draft 2020-12 unless the schema names another), with formats
asserted.

`check_call` gives a row of `tool_calls.validity_errors`' shape: `valid` (None when the call
cannot be checked) and a list of `{argument, kind, message}`, one per problem.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import jsonschema_rs
import orjson

# google-genai's Schema fields (snake_case as `model_dump` writes them) -> JSON Schema.
_KEYWORDS = {
    "any_of": "anyOf",
    "additional_properties": "additionalProperties",
    "max_items": "maxItems",
    "min_items": "minItems",
    "max_length": "maxLength",
    "min_length": "minLength",
    "max_properties": "maxProperties",
    "min_properties": "minProperties",
    "defs": "$defs",
    "ref": "$ref",
}
_ANNOTATIONS_ONLY = {"property_ordering", "propertyOrdering", "example"}
_SCHEMA_MAPS = {"properties", "defs", "$defs"}  # keyword -> {name: schema}
_SCHEMA_LISTS = {"any_of", "anyOf", "allOf", "oneOf", "prefixItems"}

# jsonschema-rs error kinds -> the reasons tool_calls reports.
_KINDS = {
    "Required": "missing_argument",
    "AdditionalProperties": "unexpected_argument",
    "UnevaluatedProperties": "unexpected_argument",
    "FalseSchema": "unexpected_argument",
    "Type": "wrong_type",
    "Enum": "not_in_enum",
    "Constant": "not_in_enum",
    "Pattern": "pattern_mismatch",
    "Format": "bad_format",
    **dict.fromkeys(
        (
            "Minimum",
            "Maximum",
            "ExclusiveMinimum",
            "ExclusiveMaximum",
            "MultipleOf",
            "MinLength",
            "MaxLength",
            "MinItems",
            "MaxItems",
            "MinProperties",
            "MaxProperties",
            "UniqueItems",
        ),
        "out_of_range",
    ),
}

Problem = dict[str, str]


def is_openapi_style(schema: Any) -> bool:
    """Whether a schema is google-genai's dialect: an upper-case type, `nullable` or a
    snake_case keyword in any of its (sub)schemas."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if (isinstance(kind, str) and kind.isupper()) or "nullable" in schema:
        return True
    if any(k in _KEYWORDS and k != "ref" for k in schema):
        return True
    return any(is_openapi_style(sub) for sub in _subschemas(schema))


def _subschemas(schema: dict[str, Any]) -> list[Any]:
    found: list[Any] = []
    for key, value in schema.items():
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            found.extend(value.values())
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            found.extend(value)
        elif key in ("items", "additionalProperties", "not"):
            found.append(value)
    return found


def to_json_schema(schema: Any) -> Any:
    """google-genai's OpenAPI-style schema as JSON Schema; JSON Schema is returned as is."""
    return _convert(schema) if is_openapi_style(schema) else schema


def _convert(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _ANNOTATIONS_ONLY or key == "nullable":
            continue
        name: str = _KEYWORDS.get(key) or key
        if key in _SCHEMA_MAPS:
            out[name] = {k: _convert(v) for k, v in value.items()}
        elif key in _SCHEMA_LISTS:
            out[name] = [_convert(v) for v in value]
        elif key in ("items", "additional_properties", "additionalProperties", "not"):
            out[name] = _convert(value)
        elif key == "type":
            out[name] = _type(value)
        elif key == "ref" and isinstance(value, str):
            out[name] = value.replace("#/defs/", "#/$defs/")
        else:
            out[name] = value
    if out.get("type") is None:
        out.pop("type", None)
    if node.get("nullable") is True:
        _allow_null(out)
    return out


def _type(value: Any) -> Any:
    if isinstance(value, list):
        return [_type(v) for v in value]
    if value == "TYPE_UNSPECIFIED":
        return None
    return value.lower() if isinstance(value, str) else value


def _allow_null(schema: dict[str, Any]) -> None:
    kind = schema.get("type")
    if isinstance(kind, str):
        schema["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        schema["type"] = [*kind, "null"]
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]


_NO_PARAMETERS = jsonschema_rs.validator_for({"type": "object", "maxProperties": 0})


@lru_cache(maxsize=4096)
def _validator(schema_text: str | None) -> Any:
    """The compiled validator for a schema (a declaration without parameters takes no
    arguments), or the reason it cannot be used, as a str."""
    if schema_text is None:
        return _NO_PARAMETERS
    try:
        schema = to_json_schema(orjson.loads(schema_text))
        return jsonschema_rs.validator_for(schema, validate_formats=True)
    except (orjson.JSONDecodeError, ValueError, TypeError) as exc:
        return f"the tool's parameter schema is not usable JSON Schema: {exc}"


def check_call(
    offered: bool | None, schema_text: str | None, args_text: str | None
) -> dict[str, Any]:
    """Check one call: `offered` whether its tool was among those the model was given (None:
    unknown), `schema_text` that tool's parameter schema (JSON; None: it declared none),
    `args_text` the arguments as sent (JSON; None: not captured)."""
    if offered is None:
        return _unchecked("no tool definitions were recorded for the model call that made it")
    if not offered:
        return _invalid(
            [_problem("", "unknown_tool", "the model was not given a tool by this name")]
        )
    if args_text is None:
        return _unchecked("its arguments were not captured (turn on content capture)")
    validator = _validator(schema_text)
    if isinstance(validator, str):
        return _unchecked(validator)
    try:
        args = orjson.loads(args_text)
    except orjson.JSONDecodeError:
        return _invalid([_problem("", "wrong_type", "the arguments are not JSON")])
    if validator.is_valid(args):
        return {"valid": True, "errors": []}
    return _invalid(_problems(validator, args, schema_text is None))


def _problems(validator: Any, args: Any, no_parameters: bool) -> list[Problem]:
    if no_parameters and isinstance(args, dict):
        return [_problem(k, "unexpected_argument", "the tool declares no parameters") for k in args]
    found: list[Problem] = []
    for error in validator.iter_errors(args):
        found.extend(_from_error(error))
    return found


def _from_error(error: Any) -> list[Problem]:
    kind = error.kind
    name = type(kind).__name__
    path = _path(error.instance_path)
    if name == "Required":
        return [_problem(_join(path, kind.property), "missing_argument", error.message)]
    if name in ("AdditionalProperties", "UnevaluatedProperties"):
        unexpected = getattr(kind, "unexpected", []) or [""]
        return [_problem(_join(path, u), "unexpected_argument", error.message) for u in unexpected]
    return [_problem(path, _KINDS.get(name, "schema_mismatch"), error.message)]


def _path(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _problem(argument: str, kind: str, message: str) -> Problem:
    return {"argument": argument, "kind": kind, "message": message}


def _invalid(problems: list[Problem]) -> dict[str, Any]:
    return {"valid": False, "errors": problems}


def _unchecked(reason: str) -> dict[str, Any]:
    return {"valid": None, "errors": [_problem("", "not_checked", reason)]}
