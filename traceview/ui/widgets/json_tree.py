"""Request/response bodies as a collapsible, searchable JSON tree (and as raw text).

Bodies can be megabytes (base64 images, screenshots). Long strings are clipped before
anything renders them, containers are expanded lazily and in chunks, and the raw view
is built from a clipped copy, so opening a detail stays fast whatever the body holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson
from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from traceview.ui import format as fmt
from traceview.ui.safe_text import clip, visible

PREVIEW_CHARS = 80  # a string value in a tree label
RAW_STRING_CHARS = 2000  # a string value in the raw view
CHUNK = 200  # children materialised per expansion
RAW_LIMIT = 400_000  # characters of raw text rendered at most

Path = tuple[str | int, ...]


@dataclass
class NodeData:
    value: Any
    path: Path
    shown: int = 0  # children materialised so far


def _scalar(value: Any, limit: int = PREVIEW_CHARS) -> Text:
    if isinstance(value, str):
        body = visible(value)
        if len(body) > limit:
            size = fmt.size(len(value.encode("utf-8", "replace")))
            return Text.assemble(
                (f"({size} string, clipped) ", "dim italic"), (f'"{body[:limit]}…"', "json.str")
            )
        return Text(f'"{body}"', style="json.str")
    if value is None:
        return Text("null", style="json.null")
    if value is True or value is False:
        return Text(str(value).lower(), style="json.bool_true" if value else "json.bool_false")
    return Text(visible(repr(value)), style="json.number")


def label_for(key: str | int | None, value: Any) -> Text:
    """One tree label: ``key: value`` with the value previewed, clipped and made visible."""
    label = Text()
    if key is not None:
        label.append(visible(key) if isinstance(key, str) else f"[{key}]", style="json.key")
        label.append(": ")
    if isinstance(value, dict):
        kind = value.get("type") if isinstance(value.get("type"), str) else None
        label.append(f"{{…}} {len(value):,} key{'' if len(value) == 1 else 's'}", style="dim")
        if kind:
            label.append(f"  type={visible(kind)[:60]}", style="italic")
    elif isinstance(value, list):
        label.append(f"[…] {len(value):,} item{'' if len(value) == 1 else 's'}", style="dim")
    else:
        label.append_text(_scalar(value))
    return label


def add_value(parent: TreeNode[NodeData], key: str | int | None, value: Any, path: Path) -> None:
    label = label_for(key, value)
    data = NodeData(value, path)
    if isinstance(value, dict | list) and value:
        parent.add(label, data=data, allow_expand=True)
    else:
        parent.add_leaf(label, data=data)


def _items(value: Any) -> list[tuple[str | int, Any]]:
    return list(value.items()) if isinstance(value, dict) else list(enumerate(value))


def materialise(node: TreeNode[NodeData], upto: int | None = None) -> None:
    """Add the next chunk of a container's children (or enough to reach ``upto``)."""
    data = node.data
    if data is None or not isinstance(data.value, dict | list):
        return
    items = _items(data.value)
    target = max(data.shown + CHUNK, (upto or 0) + 1)
    target = min(target, len(items))
    if data.shown >= target:
        return
    for child in list(node.children):
        if child.data is not None and child.data.path == ("…more",):
            child.remove()
    for key, value in items[data.shown : target]:
        add_value(node, key, value, (*data.path, key))
    data.shown = target
    if target < len(items):
        more = Text(f"… {len(items) - target:,} more (enter to show)", style="dim italic")
        node.add_leaf(more, data=NodeData(None, ("…more",)))


class BodyTree(Tree[NodeData]):
    """The request and response records of one turn as two top-level nodes."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(Text("bodies"), id=id)
        self.show_root = False
        self.guide_depth = 2

    def load(self, bodies: list[tuple[str, Any]]) -> None:
        self.clear()
        for name, record in bodies:
            size = fmt.size(len(orjson.dumps(record))) if record is not None else "not captured"
            label = Text.assemble((name, "bold"), (f"  {size}", "dim"))
            if record is None:
                self.root.add_leaf(label, data=NodeData(None, (name,)))
                continue
            node = self.root.add(label, data=NodeData(record, (name,)), allow_expand=True)
            materialise(node)
            node.expand()
            body = record.get("body") if isinstance(record, dict) else None
            if body is not None:
                for child in node.children:
                    if child.data is not None and child.data.path[-1] == "body":
                        materialise(child)
                        child.expand()
        self.root.expand()

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[NodeData]) -> None:
        if event.node.data is not None and event.node.data.shown == 0:
            materialise(event.node)

    def on_tree_node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        node = event.node
        if node.data is not None and node.data.path == ("…more",) and node.parent is not None:
            materialise(node.parent)

    def reveal(self, path: Path) -> bool:
        """Expand down to ``path`` (materialising as needed) and put the cursor on it."""
        node = self.root
        for depth in range(len(path)):
            prefix = path[: depth + 1]
            found = self._child_with(node, prefix)
            if found is None and node.data is not None and depth > 0:
                items = _items(node.data.value)
                keys = [k for k, _ in items]
                if prefix[-1] in keys:
                    materialise(node, upto=keys.index(prefix[-1]))
                    found = self._child_with(node, prefix)
            if found is None:
                return False
            if depth < len(path) - 1:
                if found.data is not None and found.data.shown == 0:
                    materialise(found)
                found.expand()
            node = found
        self.call_after_refresh(self._select, node)
        return True

    def _select(self, node: TreeNode[NodeData]) -> None:
        self.move_cursor(node)
        self.scroll_to_node(node)

    @staticmethod
    def _child_with(node: TreeNode[NodeData], path: Path) -> TreeNode[NodeData] | None:
        for child in node.children:
            if child.data is not None and child.data.path == path:
                return child
        return None


def find(bodies: list[tuple[str, Any]], query: str, limit: int = 500) -> list[Path]:
    """Paths whose key or scalar value contains ``query`` (case-insensitive)."""
    needle = query.lower()
    found: list[Path] = []

    def walk(value: Any, path: Path) -> Iterator[Path]:
        if isinstance(value, dict | list):
            for key, child in _items(value):
                if isinstance(key, str) and needle in key.lower():
                    yield (*path, key)
                elif not isinstance(child, dict | list) and needle in str(child).lower():
                    yield (*path, key)
                yield from walk(child, (*path, key))

    for name, record in bodies:
        if record is None:
            continue
        for path in walk(record, (name,)):
            found.append(path)
            if len(found) >= limit:
                return found
    return found


def shrink(value: Any, limit: int = RAW_STRING_CHARS) -> Any:
    """A copy with every long string clipped, so rendering cost is bounded."""
    if isinstance(value, str):
        return clip(value, limit)
    if isinstance(value, dict):
        return {k: shrink(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [shrink(v, limit) for v in value]
    return value


def raw_text(bodies: list[tuple[str, Any]]) -> Text:
    """Pretty-printed, clipped, highlighted JSON of the bodies, made visible."""
    out = Text()
    for name, record in bodies:
        out.append(f"── {name} ", style="bold")
        out.append("─" * 40 + "\n", style="dim")
        if record is None:
            out.append("not captured\n\n", style="dim italic")
            continue
        dumped = orjson.dumps(shrink(record), option=orjson.OPT_INDENT_2).decode()
        if len(dumped) > RAW_LIMIT:
            dumped = dumped[:RAW_LIMIT] + f"\n… ({len(dumped) - RAW_LIMIT:,} more characters)"
        text = Text(visible(dumped, multiline=True))
        JSONHighlighter().highlight(text)
        out.append_text(text)
        out.append("\n\n")
    return out
