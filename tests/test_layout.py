"""The layout docs/architecture.md describes: no import cycles, imports that point down the layers, a core free of front ends.

Modules are sized by their idea, never by a line count (docs/architecture.md), so no test counts lines.

The packages form layers; every import (a lazy one inside a function and one under
`TYPE_CHECKING` too) points down the list below or stays in its own package, and the
graph of modules, in Python and in `js/src`, has no cycle at all.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "notebook_tools"
JS_SRC = ROOT / "js" / "src"
LAYERS = [  # lowest first; packages of one layer do not import each other
    {"_exceptions"},
    {"_loading"},
    {"api"},
    {"results"},
    {"tools"},
    {"session"},
    {"events"},
    {"stores"},
    {"prompts"},  # what a person is asked (the broker), knowing no agent
    {"mcp"},  # MCP servers and what crosses the border with them (their tools, questions and apps)
    {"kernel_tools"},  # the toolset at work on the kernel's own data (variables, runs, policy, undo)
    {"agent"},
    {"external"},  # agents that run elsewhere (Claude Code through its SDK), asking through the broker
    {"frontend"},  # FrontendSession: an agent and its prompts, joined for a front end
    {"testing", "toolbench"},
    {"widgets", "terminal", "server"},  # the front ends: adapters nothing in the core imports
    {"__main__", ""},  # entry points ("" is the package's own __init__)
]
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


def runtime_imports(name, path, *, type_checking=False):
    """The package modules `name` imports when it runs (and, with `type_checking`, for the type checker)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set()
    for node in ast.walk(tree):
        if not type_checking and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
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


def package_graph(*, type_checking=True):
    names = dict(modules())
    return {
        name: {
            m for m in runtime_imports(name, path, type_checking=type_checking) if m in names and m != name
        }
        for name, path in names.items()
    }


def cycles(graph):
    """Every import cycle of `graph` (module -> modules it imports), each as the trail that closes it."""
    found, state = [], {}

    def visit(node, trail):
        if state.get(node) == 1:
            found.append(" -> ".join([*trail[trail.index(node) :], node]))
            return
        if state.get(node) == 2:
            return
        state[node] = 1
        for nxt in sorted(graph[node]):
            visit(nxt, [*trail, node])
        state[node] = 2

    for node in sorted(graph):
        visit(node, [])
    return found


def test_the_import_graph_has_no_cycles():
    # Lazy imports inside functions are part of the graph too (ast.walk sees them): a strict check.
    assert cycles(package_graph(type_checking=False)) == []


def test_no_cycle_either_through_type_checking_imports():
    # A cycle hidden from the runtime by `if TYPE_CHECKING:` is still a cycle for the reader.
    assert cycles(package_graph(type_checking=True)) == []


def layer_of(module):
    top = module.split(".")[1] if "." in module else ""
    for index, layer in enumerate(LAYERS):
        if top in layer:
            return index, top
    raise AssertionError(f"{module} is in no layer of LAYERS: add its package")


def test_every_import_points_down_the_layers():
    upward = []
    for module, imported in sorted(package_graph().items()):
        level, package = layer_of(module)
        for target in sorted(imported):
            target_level, target_package = layer_of(target)
            if target_package != package and target_level >= level:
                upward.append(f"{module} -> {target}")
    assert upward == []


def test_the_layer_checks_see_cycles_and_upward_imports():
    # The checks themselves: a cycle and an upward import are found where there are some.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a -> b -> c -> a"]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert layer_of("notebook_tools.agent._loop")[0] > layer_of("notebook_tools.session._state")[0]
    assert layer_of("notebook_tools.widgets._chat")[0] == layer_of("notebook_tools.server._app")[0]
    with pytest.raises(AssertionError):
        layer_of("notebook_tools.nowhere._x")


# js/src: `import ... from "./x"`, `import type`, `export ... from`, side-effect and dynamic imports.
JS_FROM = re.compile(r"""^\s*(?:import|export)\s[^;'"]*?\bfrom\s*["']([^"']+)["']""", re.M)
JS_BARE = re.compile(r"""^\s*import\s*["']([^"']+)["']""", re.M)
JS_DYNAMIC = re.compile(r"""\bimport\(\s*["']([^"']+)["']\s*\)""")


def js_graph():
    graph = {}
    for path in sorted(JS_SRC.rglob("*.ts")):
        text = path.read_text(encoding="utf-8")
        edges = set()
        for pattern in (JS_FROM, JS_BARE, JS_DYNAMIC):
            for spec in pattern.findall(text):
                if not spec.startswith("."):
                    continue
                base = (path.parent / spec).resolve()
                for candidate in (base, Path(f"{base}.ts"), base / "index.ts"):
                    if candidate.is_file() and candidate.suffix == ".ts":
                        edges.add(str(candidate.relative_to(JS_SRC)))
                        break
        graph[str(path.relative_to(JS_SRC))] = edges
    return graph


def test_the_front_end_has_no_import_cycles():
    graph = js_graph()
    assert len(graph) > 50 and sum(map(len, graph.values())) > 150  # the scan sees the imports
    assert cycles(graph) == []


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


def test_the_architecture_page_names_only_rules_that_are_tested():
    # docs/architecture.md states the rules and names the test of each: every name it cites is a test.
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    cited = set(re.findall(r"`(test_\w+)`", page))
    tests = set()
    for name in ("test_layout.py", "test_package.py", "test_public_surfaces.py"):
        tree = ast.parse((ROOT / "tests" / name).read_text(encoding="utf-8"))
        tests |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}
    assert len(cited) >= 7 and cited <= tests, cited - tests
