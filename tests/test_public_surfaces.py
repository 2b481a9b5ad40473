"""Each package is its own public face: an `__all__` that is honest, and code outside the package that uses it.

- every name in a package's `__all__` exists, and is documented: a class or function by its own
  docstring, any other value by a mention in the package's docstring;
- a package's docstring describes it in prose, never as a list of its modules;
- the top level re-exports from packages, never from their private modules, and only names the
  package exports;
- the README, the notebooks, the examples and docs/ import no private module, and name only what
  a package exports;
- the tests import a name from a private module only where its package does not export it.
"""

import ast
import importlib
import inspect
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "notebook_tools"
PACKAGES = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
MODULE_LIST = re.compile(r"^\s+_[a-z][a-z0-9_]*\s{2,}\S", re.M)  # a row "    _module   what it does"
NAMES = r"import (?:\(([^)]*)\)|([^\n(]*))"  # `import a, b` to the line's end, or `import (...)` over lines
PRIVATE_IMPORT = re.compile(r"from notebook_tools\.([a-z]+)\.(_[a-z0-9_]+) " + NAMES)
PUBLIC_IMPORT = re.compile(r"from notebook_tools\.([a-z]+) " + NAMES)


def exported(package: str) -> list[str]:
    module = importlib.import_module(f"notebook_tools.{package}")
    assert isinstance(module.__all__, list), package
    return list(module.__all__)


def names_in(*texts: str) -> list[str]:
    """The names an import's list brings in (aliases and comments aside)."""
    text = " ".join(texts)
    text = re.sub(r"#[^\n]*", "", text)
    return [n.split(" as ")[0].strip() for n in text.replace("\n", ",").split(",") if n.strip()]


def test_the_checks_see_packages():
    assert {"agent", "api", "events", "prompts", "session", "stores", "tools", "testing"} <= set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_exists_and_is_documented(package):
    module = importlib.import_module(f"notebook_tools.{package}")
    doc = module.__doc__ or ""
    assert doc.strip(), f"notebook_tools.{package} has no docstring"
    undocumented = []
    for name in exported(package):
        value = getattr(module, name)  # (raises when the name is missing)
        if inspect.isclass(value) or inspect.isroutine(value):
            own = (
                value.__dict__.get("__doc__") if inspect.isclass(value) else value.__doc__
            )  # (not inherited)
            if not (own or "").strip():
                undocumented.append(name)
        elif f"`{name}`" not in doc and name not in doc:
            undocumented.append(name)
    assert undocumented == [], f"notebook_tools.{package}: say what these are: {undocumented}"
    assert exported(package) == sorted(set(exported(package)), key=lambda n: (not n.isupper(), n))


@pytest.mark.parametrize("package", PACKAGES)
def test_a_packages_docstring_is_prose_not_a_list_of_modules(package):
    doc = importlib.import_module(f"notebook_tools.{package}").__doc__ or ""
    assert MODULE_LIST.findall(doc) == []


def test_the_top_level_re_exports_from_packages_only_what_they_export():
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    wrong = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            if node.module == "_exceptions":  # the error tree is the top level's own module
                continue
            if "." in node.module or node.module not in PACKAGES:
                wrong.append(f"from .{node.module}: import from the package, not its module")
                continue
            wrong += [
                f"{node.module}.{a.name} is not in its __all__"
                for a in node.names
                if a.name not in exported(node.module)
            ]
    assert wrong == []


def _user_texts():
    yield ROOT / "README.md", (ROOT / "README.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "docs").rglob("*.md")):
        yield path, path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "examples").rglob("*.py")):
        yield path, path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        yield path, "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def test_what_users_are_shown_imports_only_public_names():
    seen, wrong = 0, []
    for path, text in _user_texts():
        seen += 1
        for package, module, *_ in PRIVATE_IMPORT.findall(text):
            wrong.append(f"{path.name}: notebook_tools.{package}.{module} is private")
        for package, *names in PUBLIC_IMPORT.findall(text):
            if package in PACKAGES:
                wrong += [
                    f"{path.name}: {package}.{n} is not exported"
                    for n in names_in(*names)
                    if n not in exported(package)
                ]
    assert seen > 10 and wrong == []


def test_the_tests_use_a_public_surface_where_there_is_one():
    wrong = []
    for path in sorted((ROOT / "tests").rglob("*.py")) + sorted((ROOT / "benchmarks").rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        for package, _, *names in PRIVATE_IMPORT.findall(path.read_text(encoding="utf-8")):
            if package not in PACKAGES:
                continue
            public = set(exported(package))
            wrong += [
                f"{path.relative_to(ROOT)}: {n} from notebook_tools.{package}"
                for n in names_in(*names)
                if n in public
            ]
    assert wrong == []


def test_the_checks_find_what_they_look_for():
    assert MODULE_LIST.findall("Modules:\n\n    _broker       PromptBroker: open prompts\n")
    assert not MODULE_LIST.findall("A `PromptBroker` holds open prompts.\n")
    found = PRIVATE_IMPORT.findall(
        "from notebook_tools.prompts._broker import (\n    PromptBroker,\n    Taken,\n)"
    )
    assert [(p, m, names_in(*n)) for p, m, *n in found] == [("prompts", "_broker", ["PromptBroker", "Taken"])]
    found = PUBLIC_IMPORT.findall("from notebook_tools.server import create_app\n\n\ndef build() -> None:")
    assert [(p, names_in(*n)) for p, *n in found] == [("server", ["create_app"])]
