"""`ToolBench`: try any tool by hand in a notebook, watch it run, see what the model would get.

The widget lists the tools, shows one's details and its argument form, and runs one
`bench.BenchRun` per Execute, forwarding each event to the view as a custom message (strings cut,
lists shortened, pictures whole: `_bench_events`). Cancel stops the run.
The same runs are open to Python: `await bench.run(name, arguments)` returns the final payload, and
`bench.runs` keeps every payload so far. The view's messages are checked by pydantic models; a bad
one is refused with a message to the view, never raised into the kernel.

A tool that needs approval runs only after the person approves it in the view (the run's
`approval_required` event shows the question; an "approve" message answers it). A picture in the
result (a figure, an image) is shown as a picture.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, Literal

import pydantic
import traitlets

from .._exceptions import WidgetError
from ..agent._agent import Agent
from ..toolbench import BenchRun
from ..tools._plugins import Plugin
from ..tools._tool import Tool, tool
from ._bench_events import MAX_REPORTS, REPORTS, bounded, outbound
from ._code_once import CodeOnce
from ._kernel import current_loop, in_loop
from ._view import STATIC

__all__ = ["ToolBench"]

log = logging.getLogger("notebook_tools")


class _Execute(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True)
    type: Literal["execute"]
    name: Annotated[str, pydantic.StringConstraints(max_length=64)]
    arguments: dict[str, Any]


class _Cancel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True)
    type: Literal["cancel"]


class _Hello(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True)
    type: Literal["hello"]


class _Approve(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True)
    type: Literal["approve"]
    call_id: Annotated[str, pydantic.StringConstraints(max_length=64)]
    approved: bool


_ViewMsg = pydantic.TypeAdapter(
    Annotated[_Execute | _Cancel | _Hello | _Approve, pydantic.Field(discriminator="type")]
)


Tools = Agent | Plugin | Iterable[Tool | Callable[..., Any]] | Mapping[str, Tool]
"""What a bench takes: an agent (its plugins' tools too), a plugin, a list or a mapping of tools."""


def tools_of(source: Tools) -> dict[str, Tool]:
    """The tools of an agent (its plugins' too), a plugin, a mapping or a list, by name."""
    if isinstance(source, Agent):
        found: Iterable[Any] = source.tools.values()
    elif isinstance(source, Plugin):
        found = source.tools
    elif isinstance(source, Mapping):
        found = source.values()
    else:
        found = source
    tools = [t if isinstance(t, Tool) else tool(t) for t in found]
    return {t.name: t for t in tools}


class BenchView(CodeOnce):
    """Tool list, detail, argument form, event log and result panels, in a notebook's output."""

    _code = STATIC / "bench.js"

    tools: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    """Each tool's `metadata()` (bounded)."""
    running = traitlets.Unicode("").tag(sync=True)
    """The name of the tool running now ("" when none)."""


class ToolBench:
    """Try tools by hand: pick one, fill its arguments, run it, and see what the model would get.

    Args:
        tools: An `nt.Agent` (its tools, plugin tools included), an `nt.Plugin`, or a list of tools.
        max_result_chars: The agent's limit on the model's text (an agent's own limit by default).
        client, model: With an `anthropic.AsyncAnthropic` that has a key, tokens are counted exactly.
    """

    def __init__(
        self,
        tools: Tools,
        *,
        max_result_chars: int | None = None,
        client: Any = None,
        model: str = "claude-sonnet-4-6",
    ) -> None:
        self.tools = tools_of(tools)
        if max_result_chars is None:
            max_result_chars = tools.max_result_chars if isinstance(tools, Agent) else 100_000
        self.max_result_chars = max_result_chars
        self.client = client
        self.model = model
        self.runs: list[dict[str, Any]] = []
        """The final payload of every run so far (unbounded), oldest first."""
        self.view = BenchView(tools=[bounded(t.metadata()) for t in self.tools.values()])
        self._active: BenchRun | None = None
        self._asking: tuple[dict[str, Any], asyncio.Future[bool]] | None = None
        self._last: list[dict[str, Any]] = []
        """The messages of the last run, sent again to a view that renders later (Run All, a reload)."""
        """The approval the view is asked for: the run's request and the future its answer resolves."""
        self._task: asyncio.Task[dict[str, Any] | None] | None = None
        self._loop = current_loop()
        self.view.on_msg(self._on_custom_msg)

    def __repr__(self) -> str:
        state = f"running {self.view.running}" if self.view.running else "idle"
        return f"<notebook_tools.ToolBench: {len(self.tools)} tools, {len(self.runs)} runs, {state}>"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = self.view._repr_mimebundle_(**kwargs)  # anywidget gives (data, metadata)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        return {**(data or {}), "text/plain": repr(self)}, metadata  # nbval compares it: no memory address

    @property
    def running(self) -> bool:
        """Whether a run is under way."""
        return self._active is not None

    async def run(self, name: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """Run tool `name` on `arguments`, showing its events in the view; the final payload.

        None when the run was cancelled or failed before the tool finished (the view shows why).

        Raises:
            WidgetError: No tool has that name, or a run is under way.
        """
        if name not in self.tools:
            raise WidgetError(f"no tool named {name!r} on this bench (it has: {', '.join(self.tools)})")
        if self._active is not None:
            raise WidgetError("a run is under way: cancel it or wait for its end")
        run = BenchRun(
            self.tools[name],
            arguments,
            max_result_chars=self.max_result_chars,
            client=self.client,
            model=self.model,
            approve=self._ask,
        )
        self._active = run
        self.view.running = name
        self._last = []
        payload: dict[str, Any] | None = None
        reports = skipped = 0
        try:
            async for event in run.events():
                if event["event"] == "data":
                    payload = event["data"]
                    self.runs.append(payload)
                if event["event"] == "tool_event" and event["data"]["type"] in REPORTS:
                    reports += 1
                    if reports > MAX_REPORTS:  # a tool reporting in a tight loop must not flood the comm
                        skipped += 1
                        continue
                message = {"type": "event", "call_id": run.call_id, "event": outbound(event)}
                if skipped:
                    message["skipped"] = skipped
                    skipped = 0
                self._last.append(message)
                self._post(message)
        finally:
            self._active = None
            self.view.running = ""
        return payload

    async def _ask(self, request: dict[str, Any]) -> bool:
        """Ask the view to approve a call (the run's `approval_required` event shows it); its answer."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._asking = (request, future)
        try:
            return await future
        finally:
            self._asking = None

    def _answer(self, call_id: str, approved: bool) -> None:
        asking = self._asking
        if asking is None or asking[0]["call_id"] != call_id or asking[1].done():
            self._refuse("no approval is waiting for that run (it was answered, cancelled or has ended)")
            return
        asking[1].set_result(approved)

    def cancel(self) -> None:
        """Stop the run under way (nothing when there is none)."""
        if self._active is not None:
            self._active.cancel()

    def _greet(self) -> None:
        """A view rendered (again): what runs, the question it waits on, and the last run's events."""
        approval = bounded(self._asking[0]) if self._asking is not None else None
        self._post({"type": "state", "running": self.view.running, "approval": approval})
        for message in list(self._last):
            self._post(message)

    def _post(self, content: dict[str, Any]) -> None:
        try:
            self.view.send(content)
        except Exception:  # a closed comm must not stop the run
            log.debug("bench: could not send to the view", exc_info=True)

    def _refuse(self, message: str) -> None:
        self._post({"type": "refused", "message": message[:2000]})

    def _on_custom_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        try:
            msg = _ViewMsg.validate_python(content)
        except pydantic.ValidationError as exc:
            self._refuse(f"bad message from the view: {exc.errors()[0]['msg']}")
            return
        try:
            if isinstance(msg, _Cancel):
                self.cancel()
            elif isinstance(msg, _Hello):
                in_loop(self._loop, self._greet)
            elif isinstance(msg, _Approve):
                in_loop(self._loop, self._answer, msg.call_id, msg.approved)
            elif msg.name not in self.tools:
                self._refuse(f"no tool named {msg.name!r} on this bench")
            elif self._active is not None or (self._task is not None and not self._task.done()):
                self._refuse("a run is under way: cancel it or wait for its end")
            else:
                in_loop(self._loop, self._start, msg.name, msg.arguments)
        except Exception as exc:  # never into the kernel
            log.exception("bench: handling a view message failed")
            self._refuse(f"{type(exc).__name__}: {exc}")

    def _start(self, name: str, arguments: dict[str, Any]) -> None:
        loop = self._loop or current_loop()
        if loop is None or loop.is_closed():
            self._refuse("no event loop runs this bench: create it in a notebook cell")
            return
        self._loop = loop
        self._task = loop.create_task(self.run(name, arguments))
