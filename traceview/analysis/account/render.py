"""The text a function tool definition is shown to the model as.

The provider renders function schemas as a TypeScript namespace before tokenising them
(the format the gpt-oss "harmony" renderer publishes). Counting that text, not the JSON,
is what lets one small per-tool constant fit every schema size.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import orjson

TOOLS_HEADER = "# Tools\n\n## functions\n\nnamespace functions {\n\n"
TOOLS_FOOTER = "} // namespace functions"


def function_text(name: str, description: str | None, parameters: object) -> str:
    """One function definition: a description comment and a TypeScript type."""
    lines = [f"// {line}" for line in (description or "").splitlines() if line.strip()]
    props = _properties(parameters)
    if props:
        body = _object_body(_resolve(parameters, parameters, 0), 0)
        lines.append(f"type {name} = (_: {body}) => any;")
    else:
        lines.append(f"type {name} = () => any;")
    return "\n".join(lines) + "\n\n"


def _resolve(node: object, root: object, depth: int) -> object:
    """Inline local `$ref`s ("#/$defs/X", "#/definitions/X"): the model sees the shape."""
    if depth > 8:
        return node
    if isinstance(node, list):
        return [_resolve(v, root, depth) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: object = root
        for part in ref[2:].split("/"):
            target = target.get(part) if isinstance(target, dict) else None
        if isinstance(target, dict):
            return _resolve(target, root, depth + 1)
    return {k: _resolve(v, root, depth) for k, v in node.items()
            if k not in ("$defs", "definitions")}


def _properties(schema: object) -> Mapping[str, Any]:
    if not isinstance(schema, dict):
        return {}
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}


def _object_body(schema: object, depth: int) -> str:
    props = _properties(schema)
    if not props:
        return "object"
    required = schema.get("required") if isinstance(schema, dict) else None
    # Only names can be required; a schema that lists anything else requires nothing more.
    needed = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
    lines = ["{"]
    for key, spec in props.items():
        lines.extend(_property_lines(str(key), spec, key in needed, depth))
    lines.append("}")
    return "\n".join(lines)


def _property_lines(key: str, spec: object, required: bool, depth: int) -> list[str]:
    out: list[str] = []
    description = spec.get("description") if isinstance(spec, dict) else None
    if not (isinstance(description, str) and description.strip()) and isinstance(spec, dict):
        description = spec.get("title")  # shown in place of a missing description
    if isinstance(description, str) and description.strip():
        out.extend(f"// {line}" for line in description.splitlines() if line.strip())
    mark = "" if required else "?"
    line = f"{key}{mark}: {ts_type(spec, depth + 1)},"
    default = spec.get("default") if isinstance(spec, dict) else None
    if default is not None:
        line += f" // default: {json.dumps(default)}"
    out.append(line)
    return out


def ts_type(spec: object, depth: int = 0) -> str:
    """A JSON schema as a TypeScript type expression (unknown shapes: `any`)."""
    if not isinstance(spec, dict) or depth > 20:
        return "any"
    if isinstance(spec.get("enum"), list):
        return " | ".join(json.dumps(v) for v in spec["enum"])
    if "const" in spec:
        return json.dumps(spec["const"])
    for key in ("anyOf", "oneOf"):
        options = spec.get(key)
        if isinstance(options, list) and options:
            return " | ".join(ts_type(o, depth + 1) for o in options)
    kind = spec.get("type")
    if isinstance(kind, list):
        return " | ".join(ts_type({**spec, "type": k}, depth + 1) for k in kind)
    return _simple(kind, spec, depth)


def _simple(kind: object, spec: Mapping[str, Any], depth: int) -> str:
    if kind in ("integer", "number"):
        return "number"
    if kind in ("string", "boolean", "null"):
        return str(kind)
    if kind == "array":
        items = spec.get("items")
        inner = ts_type(items, depth + 1)
        return f"Array<{inner}>" if " " in inner else f"{inner}[]"
    if kind == "object" or "properties" in spec:
        return _object_body(spec, depth)
    return "any"


def schema_text(name: str, schema: object) -> str:
    """A response-format schema: its name and its compact JSON without the strict-mode
    keys (`additionalProperties`, `required`), which the fitted captures show are not billed."""
    return f"{name}\n{_compact(_strip(schema, _STRICT_KEYS))}"


_STRICT_KEYS = frozenset({"additionalProperties", "required"})


def _strip(value: object, keys: frozenset[str]) -> object:
    if isinstance(value, dict):
        return {k: _strip(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_strip(v, keys) for v in value]
    return value


def _compact(value: object) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError):
        return ""


def json_text(value: object) -> str:
    """Compact JSON of any value (the fallback rendering of an unfamiliar tool)."""
    return _compact(value)


def strings(values: Sequence[object]) -> list[str]:
    return [v for v in values if isinstance(v, str)]


# Renderings made, by (kind, the definition's JSON bytes); oldest forgotten past this many.
_RENDERED: dict[tuple[str, bytes], Any] = {}
_RENDERED_SIZE = 1024
T = TypeVar("T")


def rendered(kind: str, definition: dict[str, Any], render: Callable[[dict[str, Any]], T]) -> T:
    """`render(definition)`, made once per distinct definition: a request sends its tools
    and schema again on every turn. Keyed by the definition's JSON bytes (one that has none,
    a caller's own objects, is rendered each time)."""
    try:
        key = (kind, orjson.dumps(definition))
    except TypeError:
        return render(definition)
    if key not in _RENDERED:
        _RENDERED[key] = render(definition)
        if len(_RENDERED) > _RENDERED_SIZE:
            del _RENDERED[next(iter(_RENDERED))]
    return _RENDERED[key]  # type: ignore[no-any-return]
