"""The platform's house (docs/architecture.md, "The layers"): imports run down, and no module circles.

Every import of a jetjobs module counts: at module level, inside functions and under
`if TYPE_CHECKING:` (a type-only circle is still a circle for a reader).
"""

from __future__ import annotations

import ast
from pathlib import Path

import jetjobs

ROOT = Path(jetjobs.__file__).parent
# Bottom first, as docs/architecture.md draws them (a room may import its own and those below).
LAYERS = [
    "_observability",
    "_version",
    "_errors",
    "_settings",
    "_wire",
    "_transport",
    "_submit",
    "_joblog",
    "_liveness",
    "_runtime",
    "_builtins",
    "_processes",
    "_demo",
    "ui",
    "_cli",
    "testing",
    "__main__",
]
# Imports against the order, each with its reason in the importing module's docstring.
ALLOWED_UPWARD = {("jetjobs._submit.publisher", "jetjobs._joblog.ledger")}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                found = target
                while found not in modules and "." in found:
                    found = found.rsplit(".", 1)[0]
                if found in modules and found != name and found.startswith("jetjobs"):
                    edges[name].add(found)
    return edges


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_no_module_imports_itself_back() -> None:
    """No chain of imports leads from a module back to itself."""
    edges = _imports(_modules())

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges[todo.pop()]:
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    circles = sorted((a, b) for a, targets in edges.items() for b in targets if reaches(b, a))
    assert circles == []


def test_rooms_import_only_downward() -> None:
    """Every room is in the drawn order, and imports only its own and lower rooms (bar the allowed)."""
    modules = _modules()
    rank = {room: i for i, room in enumerate(LAYERS)}
    rooms = {_room(m) for m in modules} - {"__init__"}
    assert rooms <= rank.keys(), f"rooms missing from LAYERS: {sorted(rooms - rank.keys())}"
    upward = {
        (a, b)
        for a, targets in _imports(modules).items()
        for b in targets
        if _room(a) != "__init__" and _room(b) != "__init__" and rank[_room(b)] > rank[_room(a)]
    }
    assert upward == ALLOWED_UPWARD
