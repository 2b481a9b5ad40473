"""The layout DESIGN §1 asks for: small modules, no import cycles, a core free of front ends."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "notebook_tools"
MAX_LINES = 320  # "about 300"
FRONT_ENDS = {"widgets", "terminal", "server"}
# The package's __init__ reaches the widgets lazily (module __getattr__) and __main__ starts the
# terminal: entry points, not core.
ENTRY_POINTS = {"notebook_tools", "notebook_tools.__main__"}
FRONT_END_LIBRARIES = {
    "IPython", "ipywidgets", "anywidget", "ipykernel", "traitlets", "comm", "jupyter_client",
    "rich", "prompt_toolkit", "starlette", "uvicorn", "fastapi",
}  # fmt: skip


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        yield name, path


def runtime_imports(name, path):
    """The package modules `name` imports when it runs (imports under TYPE_CHECKING do not run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for n in ast.walk(node)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(max(node.level - 1, 0)):
                base = base.rpartition(".")[0]
            target = (base + "." + node.module if node.module else base) if node.level else node.module
            if node.module:  # `from . import x` imports x, not the package's own __init__ again
                found.add(target)
            found |= {f"{target}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found


def test_no_module_is_much_over_300_lines():
    long = {name: n for name, path in modules() if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_the_import_graph_has_no_cycles():
    names = dict(modules())
    graph = {
        name: {m for m in runtime_imports(name, path) if m in names and m != name}
        for name, path in names.items()
    }
    # Lazy imports inside functions are part of the graph too (ast.walk sees them): a strict check.
    state: dict[str, int] = {}

    def visit(node, trail):
        if state.get(node) == 1:
            cycle = [*trail[trail.index(node) :], node]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if state.get(node) == 2:
            return
        state[node] = 1
        for nxt in sorted(graph[node]):
            visit(nxt, [*trail, node])
        state[node] = 2

    for node in sorted(graph):
        visit(node, [])


def test_the_core_imports_no_front_end_or_jupyter_library():
    offenders = {}
    for name, path in modules():
        parts = name.split(".")
        if name in ENTRY_POINTS or (len(parts) > 1 and parts[1] in FRONT_ENDS):
            continue
        bad = {m.split(".")[0] for m in runtime_imports(name, path)} & FRONT_END_LIBRARIES
        bad |= {m for m in runtime_imports(name, path) if m.split(".")[1:2] and m.split(".")[1] in FRONT_ENDS}
        if bad:
            offenders[name] = sorted(bad)
    assert offenders == {}
