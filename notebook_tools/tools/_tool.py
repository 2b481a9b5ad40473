"""Tool declarations: `@tool`, `Tool`, and how a tool's arguments and results are checked.

The input schema comes from the function's type hints and Google-style `Args:`
docstring through the `anthropic` SDK's own `beta_tool` helper (pydantic
underneath), so the schema the model sees is the one the SDK would build. A
frontend tool is schema-only: its body never runs in the kernel; the person in
the browser answers it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar, overload

import anthropic
import docstring_parser
import pydantic

from .._exceptions import FrontendToolCalledError, ToolDefinitionError
from ..api._rules import TOOL_NAME_RE
from ._approvals import ApprovalPreview, ApprovalScope, Blocked
from ._renderers import Renderer
from ._schemas import error_lines, schema_of, validator

__all__ = ["ApprovalRule", "Executor", "Mode", "Tool", "tool"]

Executor = Literal["backend", "frontend"]
Mode = Literal["llm", "manual", "both"]
ApprovalRule = Any
"""True, False, `Blocked(reason)`, or a function (sync or async) of the arguments returning one of those."""


F = TypeVar("F", bound=Callable[..., Any])


class Tool:
    """A tool the model may call, with the metadata the loop and the UI use.

    Build one with the `@tool` decorator. A backend tool runs its Python function
    in the kernel (sync functions in a worker thread, so the event loop keeps
    serving the widget); a frontend tool is schema-only and answered by a person.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        executor: Executor = "backend",
        mode: Mode = "llm",
        needs_approval: ApprovalRule = False,
        timeout: float | None = None,
        category: str | None = None,
        tags: Sequence[str] = (),
        icon: str | None = None,
        version: str | None = None,
        input_schema: Mapping[str, Any] | type[pydantic.BaseModel] | None = None,
        output_schema: Mapping[str, Any] | type[pydantic.BaseModel] | None = None,
        display: Mapping[str, Any] | None = None,
        renderer: Renderer | None = None,
        augment: Callable[[Any], Any] | None = None,
        api_definition: Mapping[str, Any] | None = None,
        approval_scope: Callable[[dict[str, Any]], ApprovalScope | None] | None = None,
        approval_preview: Callable[[dict[str, Any]], ApprovalPreview | None] | None = None,
    ) -> None:
        if not callable(func):
            raise ToolDefinitionError(f"@tool needs a function, got {type(func).__name__}")
        if executor not in ("backend", "frontend"):
            raise ToolDefinitionError(f"executor must be 'backend' or 'frontend', not {executor!r}")
        if mode not in ("llm", "manual", "both"):
            raise ToolDefinitionError(f"mode must be 'llm', 'manual' or 'both', not {mode!r}")
        if augment is not None and not callable(augment):
            raise ToolDefinitionError("augment= takes a function of the ToolResult")
        if renderer is not None and (executor != "frontend" or not isinstance(renderer, Renderer)):
            raise ToolDefinitionError("renderer= takes an nt.Renderer, on a tool with executor='frontend'")
        if not (isinstance(needs_approval, bool | Blocked) or callable(needs_approval)):
            raise ToolDefinitionError(
                "needs_approval must be a bool, nt.Blocked(...) or a function of the arguments"
            )
        if approval_scope is not None and not callable(approval_scope):
            raise ToolDefinitionError("approval_scope= takes a function of the arguments")
        if approval_preview is not None and not callable(approval_preview):
            raise ToolDefinitionError("approval_preview= takes a function of the arguments")
        if timeout is not None and not (isinstance(timeout, int | float) and timeout > 0):
            raise ToolDefinitionError(
                f"timeout must be a positive number of seconds or None, not {timeout!r}"
            )

        make = anthropic.beta_async_tool if inspect.iscoroutinefunction(func) else anthropic.beta_tool
        sdk_tool = make(func, name=name, description=description, input_schema=schema_of(input_schema))
        if not TOOL_NAME_RE.match(sdk_tool.name):
            raise ToolDefinitionError(
                f"Tool name {sdk_tool.name!r} must be 1-64 letters, digits, '_' or '-' (the API's rule)"
            )

        self.func = func
        self.name: str = sdk_tool.name
        self.description: str = description or _with_return_contract(sdk_tool.description, func)
        self.input_schema: dict[str, Any] = dict(sdk_tool.input_schema)
        self.executor: Executor = executor
        self.mode: Mode = mode
        self.needs_approval: ApprovalRule = needs_approval
        self.timeout: float | None = None if timeout is None else float(timeout)
        """Seconds a frontend call waits for its answer; None (the default): until a person answers."""
        self.category = category
        self.tags: tuple[str, ...] = tuple(tags)
        self.icon = icon
        self.version = version
        self.output_schema = schema_of(output_schema)
        self.display: dict[str, Any] = dict(display or {})
        self.renderer = renderer
        """The front-end module that shows this frontend tool (None: the widget's text box)."""
        self.augment = augment
        """Called with each successful result (a person's answer too); an `nt.Augmentation` it returns
        changes the tool set from the next request."""
        self.api_definition = _api_definition(api_definition, sdk_tool.name)
        """For a tool the API defines and this side runs (`nt.memory_tool`): the tool param a request
        carries instead of name, description and input schema (those stay for the UI and for checking)."""
        self.approval_scope = approval_scope
        """What kind of call it is, for "remember for calls like this" (None: no scopes)."""
        self.approval_preview = approval_preview
        """What a call will do, shown on its approval card above the arguments (None: the arguments alone)."""
        self.is_async = inspect.iscoroutinefunction(func)
        self._input_validator: Any = None  # built on first use, see _validator
        self._output_validator: Any = None
        self._validated_call = pydantic.validate_call(func) if executor == "backend" else None

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r}, executor={self.executor!r}, mode={self.mode!r})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly (backend tools only)."""
        if self.executor == "frontend":
            raise FrontendToolCalledError(
                f"{self.name!r} is a frontend tool: it is declared for the model and answered by the "
                "person in the browser, so it cannot be called from Python."
            )
        return self.func(*args, **kwargs)

    @property
    def summary(self) -> str:
        """What a person is shown: the description's first paragraph (no argument or return contract)."""
        first = self.description.strip().split("\n\n", 1)[0]
        return first.split("Returns:", 1)[0].strip() or self.name

    def to_dict(self) -> dict[str, Any]:
        """The tool as a Messages API tool parameter."""
        if self.api_definition is not None:
            return dict(self.api_definition)
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}

    def metadata(self) -> dict[str, Any]:
        """Everything a UI needs to show the tool, as JSON-compatible data."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
            "executor": self.executor,
            "mode": self.mode,
            "needs_approval": (
                self.needs_approval
                if isinstance(self.needs_approval, bool)
                else "blocked"
                if isinstance(self.needs_approval, Blocked)
                else "conditional"
            ),
            "timeout": self.timeout,
            "category": self.category,
            "tags": list(self.tags),
            "icon": self.icon,
            "version": self.version,
            "output_schema": self.output_schema,
            "display": self.display,
        }

    def input_errors(self, arguments: object) -> list[str]:
        """Why `arguments` do not fit the input schema (empty when they do)."""
        if not isinstance(arguments, dict):
            return [f"the input must be a JSON object, not {type(arguments).__name__}"]
        if self._input_validator is None:
            self._input_validator = validator(self.input_schema)
        return error_lines(self._input_validator, arguments)

    def output_errors(self, content: object) -> list[str]:
        """Why a frontend answer does not fit `output_schema` (empty when it does or there is none).

        A schema that describes a string checks the text itself; any other schema
        expects the text to be JSON and checks the decoded value, unless the text as a string fits.
        """
        if self.output_schema is None:
            return []
        if not isinstance(content, str):
            return ["the answer must be text to be checked against the tool's output schema"]
        if self.output_schema.get("type") == "string":
            return self.output_value_errors(content)
        try:
            errors = self.output_value_errors(json.loads(content))
        except json.JSONDecodeError as exc:
            where = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
            errors = [f"this is not JSON ({where}); answer with JSON matching the schema shown"]
        # a schema that also takes a string (anyOf, an enum): a renderer's string answer is its text as it is
        return errors if errors and self.output_value_errors(content) else []

    def output_value_errors(self, value: object) -> list[str]:
        """Why a JSON value (a renderer's answer) does not fit `output_schema` (empty when it does)."""
        if self.output_schema is None:
            return []
        if self._output_validator is None:
            self._output_validator = validator(self.output_schema)
        return error_lines(self._output_validator, value)

    async def needs_approval_for(self, arguments: dict[str, Any]) -> bool | Blocked:
        """Whether this call must be approved (or is never allowed), evaluating a conditional rule."""
        rule = self.needs_approval
        if isinstance(rule, bool | Blocked):
            return rule
        verdict = rule(arguments)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        return verdict if isinstance(verdict, Blocked) else bool(verdict)

    def scope_for(self, arguments: dict[str, Any]) -> ApprovalScope | None:
        """The call's `ApprovalScope` (None: the tool has none, or its function failed or returned junk)."""
        return _of_type(self.approval_scope, arguments, ApprovalScope)

    @property
    def edits_approved(self) -> bool:
        """Whether its approval card offers to edit the arguments.

        `display={"edit": False}`: it does not, for a tool whose caller runs a call only as it was
        asked (an ACP agent's).
        """
        return self.display.get("edit", True) is not False

    def preview_for(self, arguments: dict[str, Any]) -> ApprovalPreview | None:
        """The call's `ApprovalPreview` (None: the tool has none, or its function failed or returned junk)."""
        return _of_type(self.approval_preview, arguments, ApprovalPreview)

    async def invoke(self, arguments: dict[str, Any]) -> Any:
        """Run a backend tool with validated arguments.

        Raises:
            pydantic.ValidationError: the arguments do not fit the signature.
            FrontendToolCalledError: this is a frontend tool.
        """
        if self._validated_call is None:
            self(**arguments)  # raises FrontendToolCalledError
        assert self._validated_call is not None
        if self.is_async:
            return await self._validated_call(**arguments)
        # A sync tool runs in a worker thread so the kernel's loop keeps serving comm messages.
        return await asyncio.to_thread(self._validated_call, **arguments)


def _api_definition(param: Mapping[str, Any] | None, name: str) -> dict[str, Any] | None:
    if param is None:
        return None
    kind = param.get("type")
    if not isinstance(kind, str) or kind == "custom" or param.get("name") != name:
        raise ToolDefinitionError(f"api_definition= takes an API-defined tool param named {name!r}")
    return dict(param)


def _with_return_contract(description: str, func: Callable[..., Any]) -> str:
    """Keep a docstring's `Returns:` section in the description: for a frontend tool it is the contract."""
    returns = docstring_parser.parse(func.__doc__ or "").returns
    if returns is None or not returns.description or "Returns:" in description:
        return description
    return f"{description}\n\nReturns: {returns.description}".strip()


_T = TypeVar("_T")


def _of_type(
    function: Callable[[dict[str, Any]], Any] | None, arguments: dict[str, Any], kind: type[_T]
) -> _T | None:
    """`function(arguments)` when it is a `kind`; None when there is none, or it fails or returns junk."""
    if function is None:
        return None
    try:
        value = function(arguments)
    except Exception:
        return None
    return value if isinstance(value, kind) else None


@overload
def tool(func: F, /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    executor: Executor = "backend",
    mode: Mode = "llm",
    needs_approval: ApprovalRule = False,
    timeout: float | None = None,
    category: str | None = None,
    tags: Sequence[str] = (),
    icon: str | None = None,
    version: str | None = None,
    input_schema: Mapping[str, Any] | type[pydantic.BaseModel] | None = None,
    output_schema: Mapping[str, Any] | type[pydantic.BaseModel] | None = None,
    display: Mapping[str, Any] | None = None,
    renderer: Renderer | None = None,
    augment: Callable[[Any], Any] | None = None,
    approval_scope: Callable[[dict[str, Any]], ApprovalScope | None] | None = None,
    approval_preview: Callable[[dict[str, Any]], ApprovalPreview | None] | None = None,
) -> Callable[[F], Tool]: ...


def tool(
    func: Callable[..., Any] | None = None, /, **options: Any
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Declare a tool, bare (`@tool`) or with options (`@tool(executor="frontend", timeout=120)`).

    Args:
        func: The function; its type hints and Google-style docstring become the input schema.
        **options: Tool metadata: name, description, executor ("backend" | "frontend"),
            mode ("llm" | "manual" | "both"), needs_approval, timeout (seconds a frontend call
            waits; None, the default, for no limit), category, tags, icon, version, input_schema,
            output_schema, display, renderer (an `nt.Renderer` for a frontend tool), augment (a
            function of each successful `ToolResult` returning an `nt.Augmentation` or None),
            approval_scope (a function of the arguments returning an `nt.ApprovalScope` or None:
            what "remember for calls like this" covers on its approval card), approval_preview
            (a function of the arguments returning an `nt.ApprovalPreview` or None: what the call
            will do, a diff or a command, shown on its approval card above the arguments).
    """
    if func is not None:
        return Tool(func, **options)

    def decorate(f: Callable[..., Any]) -> Tool:
        return Tool(f, **options)

    return decorate
