"""Running code in the notebook's namespace: like a cell, on a thread of its own, and stopped on demand.

The code runs with the namespace the cells use as its globals, so what it defines the person can use
in the next cell. It runs on a thread, so the kernel's event loop keeps answering the widget while
it works. What it prints (stdout, stderr), what it displays, the figures it draws and the value of
its last expression are captured as its outputs; an exception ends it with a traceback kept for the
person and a summary for the model.

Stop (the awaiting task cancelled) and the time limit stop it: `KeyboardInterrupt` is raised inside the
thread at its next bytecode (`PyThreadState_SetAsyncExc`, again every 50 ms in case the code caught
it), and `time.sleep` is interruptible for the run's thread while runs are going on. A call into C
that does not return to Python (a long numpy operation, a `sleep` bound before the run began)
cannot be interrupted: the run is then reported as still running after `STOP_GRACE` seconds, and
the exception lands as soon as the call returns.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import contextvars
import ctypes
import io
import linecache
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["STOP_GRACE", "Output", "RunFailure", "RunOutcome", "run_code"]

STOP_GRACE = 1.0
"""Seconds a stopped run gets to end before it is reported as still running."""
_RETRY = 0.05


OutputKind = Literal["stdout", "stderr", "display", "value", "figure"]


@dataclass
class Output:
    """One piece of what a run produced, in order.

    `text` for stdout and stderr; `value` for a displayed object or the last expression's value
    (kept live: a DataFrame stays a DataFrame); `bundle` for a display that arrived as a MIME bundle
    (IPython's `display` of something formatted already); `png` for a figure it drew.
    """

    kind: OutputKind
    text: str = ""
    value: Any = None
    bundle: dict[str, Any] | None = None
    png: bytes | None = None


@dataclass(frozen=True)
class RunFailure:
    """The exception a run ended with."""

    type: str
    """Its class name (`KeyError`)."""
    message: str
    """`str(exc)`: data may be in it (a missing key, a value that failed to parse)."""
    line: int | None
    """The line of the run's code it was raised from (None: inside a library with no line of ours)."""
    code_line: str
    """That line's text (the model's own code)."""
    traceback: str
    """The whole traceback, for the person."""


@dataclass
class RunOutcome:
    """How a run ended and what it produced."""

    outputs: list[Output] = field(default_factory=list)
    failure: RunFailure | None = None
    stopped: Literal["stop", "time_limit"] | None = None
    still_running: bool = False
    stop_took: float | None = None
    """Seconds from the stop to the run's thread ending (None: not stopped, or still running)."""
    """Stopped, but its thread did not end within `STOP_GRACE` (a call into C that does not return)."""
    duration: float = 0.0


class _Run:
    """One run's thread and what it has captured."""

    def __init__(self, code: str, filename: str, namespace: dict[str, Any], outcome: RunOutcome) -> None:
        self.code = code
        self.filename = filename
        self.namespace = namespace
        self.outcome = outcome
        self.stop_requested = threading.Event()
        self.thread: threading.Thread | None = None
        self.done = threading.Event()

    def write(self, kind: Literal["stdout", "stderr"], text: str) -> None:
        outputs = self.outcome.outputs
        if outputs and outputs[-1].kind == kind:
            outputs[-1].text += text
        else:
            outputs.append(Output(kind, text=text))

    def execute(self) -> None:
        try:
            tree = ast.parse(self.code, self.filename, "exec")
            last: ast.expr | None = None
            if tree.body and isinstance(final := tree.body[-1], ast.Expr):  # a cell's last expression: shown
                last = final.value
                tree.body.pop()
            exec(compile(tree, self.filename, "exec"), self.namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last), self.filename, "eval"), self.namespace)
                if value is not None:
                    self.outcome.outputs.append(Output("value", value=value))
        except KeyboardInterrupt:
            pass
        except BaseException as exc:
            self.outcome.failure = self._failure(exc)
        finally:
            self.done.set()

    def _failure(self, exc: BaseException) -> RunFailure:
        frames = traceback.extract_tb(exc.__traceback__)
        ours = [f for f in frames if f.filename == self.filename]
        line = ours[-1].lineno if ours else None
        code_lines = self.code.splitlines()
        if isinstance(exc, SyntaxError) and exc.filename == self.filename:
            line = exc.lineno
        code_line = code_lines[line - 1].strip() if line and 0 < line <= len(code_lines) else ""
        shown = traceback.format_exception(exc)
        # the frames of this module are ours, not the person's: leave them out of what is shown
        kept = [part for part in shown if __file__ not in part]
        return RunFailure(type(exc).__name__, str(exc), line, code_line, "".join(kept))


class _Router(io.TextIOBase):
    """sys.stdout/stderr while runs go on: a run's thread writes into its run, any other thread through."""

    def __init__(self, kind: Literal["stdout", "stderr"], through: Any) -> None:
        self.kind = kind
        self.through = through

    def write(self, text: str) -> int:
        run = _RUNS.get(threading.get_ident())
        if run is None:
            return int(self.through.write(text) or 0)
        run.write(self.kind, text)
        return len(text)

    def flush(self) -> None:
        if threading.get_ident() not in _RUNS:
            self.through.flush()

    def __getattr__(self, name: str) -> Any:  # encoding, fileno, isatty... of the stream it stands for
        return getattr(self.through, name)


_RUNS: dict[int, _Run] = {}
"""The runs going on, by thread id."""
_LOCK = threading.Lock()
_ORIGINAL_SLEEP = time.sleep


def _interruptible_sleep(seconds: float) -> None:
    """`time.sleep` while runs go on: a run's thread wakes when the run is stopped."""
    run = _RUNS.get(threading.get_ident())
    if run is None:
        _ORIGINAL_SLEEP(seconds)
        return
    if run.stop_requested.wait(max(0.0, seconds)):
        raise KeyboardInterrupt


@contextmanager
def _routing(run: _Run, shell: Any) -> Iterator[None]:
    """While `run` goes on: its thread's prints, displays and sleeps are the run's."""
    with _LOCK:
        if not _RUNS:
            sys.stdout = _Router("stdout", sys.stdout)
            sys.stderr = _Router("stderr", sys.stderr)
            time.sleep = _interruptible_sleep  # type: ignore[assignment]
        assert run.thread is not None and run.thread.ident is not None  # started before it is routed
        _RUNS[run.thread.ident] = run
    publisher: Any = getattr(shell, "display_pub", None)
    publish = getattr(publisher, "publish", None)
    if publish is not None:
        publisher.publish = _display_router(publish)
    try:
        yield
    finally:
        if publish is not None:
            publisher.publish = publish
        with _LOCK:
            del _RUNS[run.thread.ident]
            if not _RUNS:
                for name in ("stdout", "stderr"):
                    stream = getattr(sys, name)
                    if isinstance(stream, _Router):
                        setattr(sys, name, stream.through)
                if time.sleep is _interruptible_sleep:
                    time.sleep = _ORIGINAL_SLEEP


def _display_router(publish: Callable[..., Any]) -> Callable[..., Any]:
    def routed(data: dict[str, Any], metadata: Any = None, *args: Any, **kwargs: Any) -> Any:
        run = _RUNS.get(threading.get_ident())
        if run is None:
            return publish(data, metadata, *args, **kwargs)
        run.outcome.outputs.append(Output("display", bundle=dict(data)))
        return None

    return routed


def _stop_thread(thread: threading.Thread) -> None:
    if thread.ident is not None and thread.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(thread.ident), ctypes.py_object(KeyboardInterrupt)
        )


def _figure_numbers() -> set[int]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    return set(pyplot.get_fignums()) if pyplot is not None else set()


def _new_figures(before: set[int]) -> list[Output]:
    """The figures the run drew, as PNG, closed (the notebook's own display would show them again)."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    outputs = []
    for number in sorted(set(pyplot.get_fignums()) - before):
        figure = pyplot.figure(number)
        buffer = io.BytesIO()
        try:
            figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
            outputs.append(Output("figure", png=buffer.getvalue()))
        except Exception:
            pass
        finally:
            pyplot.close(figure)
    return outputs


_COUNTER = iter(range(1, sys.maxsize))


async def run_code(
    code: str,
    namespace: dict[str, Any],
    *,
    time_limit: float | None = 60.0,
    shell: Any = None,
    grace: float = STOP_GRACE,
    outcome: RunOutcome | None = None,
) -> RunOutcome:
    """Run `code` with `namespace` as its globals, on a thread; what it did.

    Args:
        code: Python source (a cell's worth).
        namespace: The globals it runs in (the notebook's own).
        time_limit: Seconds before it is stopped (None: no limit).
        shell: IPython's shell, when there is one: its `display_pub` is routed so the run's
            `display(...)` calls are captured rather than shown in whichever cell is running.
        grace: Seconds a stopped run gets to end.
        outcome: Where the run's outcome is kept (so a caller has it when Stop cancels the await).

    Raises:
        asyncio.CancelledError: the awaiting task was cancelled (Stop); the run was stopped first
            (waiting up to `grace` for its thread).
    """
    number = next(_COUNTER)
    filename = f"<claude-run-{number}>"
    linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
    run = _Run(code, filename, namespace, outcome if outcome is not None else RunOutcome())
    loop = asyncio.get_running_loop()
    finished: asyncio.Future[None] = loop.create_future()

    def signal_done() -> None:
        if not finished.done():
            finished.set_result(None)

    context = contextvars.copy_context()
    started = threading.Event()

    def body() -> None:
        started.wait()
        try:
            context.run(run.execute)
        except KeyboardInterrupt:  # a stop that landed after the code ended, in our own lines
            pass
        finally:
            run.done.set()
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
                loop.call_soon_threadsafe(signal_done)

    figures_before = _figure_numbers()
    run.thread = thread = threading.Thread(target=body, name=f"claude-run-{number}", daemon=True)
    began = time.perf_counter()
    thread.start()
    with _routing(run, shell):
        started.set()
        try:
            await asyncio.wait_for(asyncio.shield(finished), time_limit)
        except TimeoutError:
            run.outcome.stopped = "time_limit"
            await _stop(run, finished, grace)
        except asyncio.CancelledError:
            run.outcome.stopped = "stop"
            await _stop(run, finished, grace)
            raise
        finally:
            run.outcome.duration = time.perf_counter() - began
    run.outcome.outputs.extend(_new_figures(figures_before))
    return run.outcome


async def _stop(run: _Run, finished: asyncio.Future[None], grace: float) -> None:
    """Stop `run`'s thread: raise `KeyboardInterrupt` in it until it ends or `grace` passes."""
    assert run.thread is not None
    run.stop_requested.set()
    began = time.monotonic()
    deadline = began + grace
    while not run.done.is_set() and time.monotonic() < deadline:
        _stop_thread(run.thread)
        try:
            await asyncio.wait_for(asyncio.shield(finished), _RETRY)
        except TimeoutError:
            continue
        except asyncio.CancelledError:  # a second Stop while stopping: the first one is in hand
            continue
    run.outcome.still_running = not run.done.is_set()
    if not run.outcome.still_running:
        run.outcome.stop_took = time.monotonic() - began
