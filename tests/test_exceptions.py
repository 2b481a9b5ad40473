"""One exception tree: everything notebook_tools raises derives from NotebookToolsError."""

import ast
import asyncio
import builtins
import inspect
import pathlib
import pickle
import re

import pytest

import notebook_tools as nt
from notebook_tools import _exceptions, testing

PACKAGE = pathlib.Path(nt.__file__).parent

# Builtins the package may raise because a Python protocol asks for exactly them.
PROTOCOL = {
    "AttributeError",  # a module's __getattr__ must raise it for a missing name
    "NotImplementedError",  # an abstract method
    "StopIteration",
    "StopAsyncIteration",
    "GeneratorExit",
    "SystemExit",  # `python -m notebook_tools` returns its exit code
    "KeyboardInterrupt",
}
BUILTIN_ERRORS = {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException) and name not in PROTOCOL
}

# Raises of builtins that are someone else's to convert (testing.py's owner); delete each entry once its
# line is gone. _agent.py and _checks.py have none left.
NOT_YET_CONVERTED: set[tuple[str, str]] = set()


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _raised_name(node: ast.Raise) -> str | None:
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return exc.id if isinstance(exc, ast.Name) else None


def _is_unreachable_guard(node: ast.Raise) -> bool:
    # `raise AssertionError("unreachable...")` after a loop that returns or raises: mypy needs the line,
    # and if it ever runs it is a bug in notebook_tools, which no `except NotebookToolsError` should swallow.
    call = node.exc
    return (
        isinstance(call, ast.Call)
        and _raised_name(node) == "AssertionError"
        and len(call.args) == 1
        and isinstance(call.args[0], ast.Constant)
        and str(call.args[0].value).startswith("unreachable")
    )


def _in_pydantic_validators(tree: ast.AST) -> set[int]:
    # pydantic asks a validator to raise ValueError; the caller sees a ValidationError.
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names = [ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
            if any(name.endswith(("field_validator", "model_validator")) for name in names):
                ids |= {id(n) for n in ast.walk(node) if isinstance(n, ast.Raise)}
    return ids


def test_the_package_raises_no_builtin_exception():
    offenders = []
    for path, tree in _sources():
        in_validators = _in_pydantic_validators(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Raise) or node.exc is None or id(node) in in_validators:
                continue
            if _raised_name(node) in BUILTIN_ERRORS and not _is_unreachable_guard(node):
                line = ast.unparse(node)
                if (path.name, line) not in NOT_YET_CONVERTED:
                    offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {line}")
    assert not offenders, "raise an exception of notebook_tools/_exceptions.py instead:\n" + "\n".join(
        offenders
    )


def test_exception_classes_are_defined_only_in_exceptions_module():
    ours = {name for name, _ in _classes()}
    strays = []
    for path, tree in _sources():
        if path.name == "_exceptions.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
                if bases & (ours | BUILTIN_ERRORS | {"BaseException"}):
                    strays.append(f"{path.name}: {node.name}")
    assert not strays, strays


def _classes():
    return [
        (name, cls)
        for name, cls in vars(_exceptions).items()
        if inspect.isclass(cls) and issubclass(cls, BaseException) and cls.__module__ == _exceptions.__name__
    ]


def _tree():
    """{name: (parent, mixins)} read from the drawing in the module docstring."""
    lines = _exceptions.__doc__.split("    NotebookToolsError\n", 1)[1].split("\n\n", 1)[0].splitlines()
    drawn = {"NotebookToolsError": (None, ())}
    path = ["NotebookToolsError"]
    for line in lines:
        m = re.match(r"    (?P<prefix>[│├└─ ]*)(?P<name>[A-Z]\w+)(?: \(\+ (?P<mixin>\w+)\))?", line)
        if m is None:
            continue  # the second line of a description
        depth = len(m["prefix"]) // 4
        path[depth:] = [m["name"]]
        drawn[m["name"]] = (path[depth - 1], (m["mixin"],) if m["mixin"] else ())
    return drawn


def test_the_docstring_draws_every_exception_with_its_parent_and_mixin():
    drawn = _tree()
    classes = dict(_classes())
    assert set(drawn) == set(classes)
    for name, cls in classes.items():
        assert issubclass(cls, nt.NotebookToolsError), name
        if name == "NotebookToolsError":
            continue
        parent, mixins = drawn[name]
        assert cls.__bases__[0].__name__ == parent, name
        assert tuple(b.__name__ for b in cls.__bases__[1:]) == mixins, name


def test_the_public_exceptions_are_exported():
    # The widget protocol's and the terminal's own: not part of the public API.
    internal = {"ViewInputError", "Refused", "AnswerError", "FileAccessError", "InvalidInput", "HTTPRefusal"}
    internal |= {"TerminalSignal", "CtrlC", "EndOfInput", "Skip"}
    for name, cls in _classes():
        if name not in internal:
            assert getattr(nt, name) is cls, name
            assert name in nt.__all__, name


@pytest.mark.parametrize(
    ("cls", "mixin"),
    [
        (nt.StaleSessionError, RuntimeError),
        (nt.CorruptSessionError, ValueError),
        (nt.UnsupportedSchemaError, ValueError),
        (nt.ConfigurationError, ValueError),
        (nt.WidgetError, RuntimeError),
    ],
)
def test_new_errors_keep_their_builtin_mixin(cls, mixin):
    assert issubclass(cls, mixin) and issubclass(cls, nt.NotebookToolsError)
    if cls.__name__.endswith("SessionError") or cls is nt.UnsupportedSchemaError:
        assert issubclass(cls, nt.StoreError)


@pytest.mark.parametrize(
    "error",
    [
        nt.StaleSessionError("u1", "SQLiteStore('s.sqlite')", 2, 3),
        nt.StaleSessionError("u1", "SQLiteStore('s.sqlite')", 2, None),
        nt.CorruptSessionError("u1", "SQLiteStore('s.sqlite')", "the row is not JSON"),
        nt.SessionInvariantError("u1", ["a call is tracked twice"]),
        nt.UnsupportedSchemaError("newer"),
    ],
)
def test_errors_with_fields_survive_pickling(error):
    copy = pickle.loads(pickle.dumps(error))  # e.g. raised in a worker process
    assert type(copy) is type(error) and str(copy) == str(error) and vars(copy) == vars(error)


def test_a_bad_path_zone_is_a_configuration_error():
    with pytest.raises(nt.ConfigurationError, match="'data' 'write' must be pre_approved, ask or blocked"):
        nt.PathZones({"data": {"write": "sometimes"}})


def test_a_bad_no_frontend_policy_is_a_configuration_error():
    with pytest.raises(nt.ConfigurationError, match="on_no_frontend must be"):
        nt.Chat(None, on_no_frontend="shrug")


def test_a_widget_without_an_agent_raises_widget_error():
    with pytest.raises(nt.WidgetError, match="has no agent"):
        asyncio.run(nt.Chat(None).run_tool("add", {"a": 1, "b": 2}))


def test_a_background_turn_without_an_event_loop_raises_widget_error(make_agent):
    agent, _ = make_agent(testing.reply("hi"))
    with pytest.raises(nt.WidgetError, match="needs a running event loop"):
        nt.Chat(agent).send_nowait("hello")
