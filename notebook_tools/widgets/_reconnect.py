"""Keep the kernel answering a reloaded page while a cell awaits a turn.

A page that (re)connects asks the kernel two things before it shows any widget, both on the main
shell: `kernel_info_request` (the kernel's status; until the reply it shows "Unknown") and
`comm_info_request` (which widget models are live; JupyterLab's widget manager asks it on every
restore from a notebook that holds saved widget state, and waits for the answer before it draws a
single view). ipykernel answers main-shell requests one at a time, so while a cell sits in
`await chat.send(...)` both wait for the cell to end: the page stays on "Loading widget..." until
someone interrupts the kernel, although comm messages, the answers themselves, already get through
(ipykernel 7.4 dispatches those while a cell awaits).

`answer_reconnects()` extends that to these two read-only requests: while the main shell is held by
a running cell, they are answered at once, like comm messages, framed by their own busy and idle
statuses as every request is (a page takes a request as done only once it saw its idle), then the
running cell's "busy" is published again, so the page no longer shows the kernel as "Unknown".
Every other request (a cell to run, a completion) still waits its turn. It is installed once per
kernel; on a kernel whose internals differ from ipykernel 7's it changes nothing and returns False.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ._kernel import current_shell

__all__ = ["answer_reconnects"]

READ_ONLY = frozenset({"kernel_info_request", "comm_info_request"})
"""Requests a reconnecting page sends to the main shell that change nothing in the kernel."""

_NEEDS = (
    "_main_asyncio_lock",
    "_get_shell_context_var",
    "_shell_parent_ident",
    "_publish_status",
    "dispatch_shell",
    "get_parent",
    "session",
    "set_parent",
    "shell_main",
)
_INSTALLED: set[int] = set()


def answer_reconnects(kernel: Any = None) -> bool:
    """Answer `READ_ONLY` requests while a cell holds the main shell (idempotent).

    `kernel` defaults to the running ipykernel; returns whether the kernel now answers them.
    """
    if kernel is None:
        kernel = _running_kernel()
    if kernel is None or not all(hasattr(kernel, name) for name in _NEEDS):
        return False
    if id(kernel) in _INSTALLED:
        return True
    manager = getattr(getattr(kernel, "shell_channel_thread", None), "manager", None)
    handler = partial(_shell_main, kernel, kernel.shell_main)
    if manager is not None:
        try:
            manager.set_on_recv_callback(handler)  # main shell and subshells made from now on
        except AssertionError:  # called off the kernel's main thread
            return False
    elif getattr(kernel, "shell_stream", None) is not None:
        from ipykernel.utils import _async_in_context

        kernel.shell_stream.on_recv(_async_in_context(partial(handler, None)), copy=False)
    else:
        return False
    _INSTALLED.add(id(kernel))
    return True


async def _shell_main(kernel: Any, shell_main: Any, subshell_id: str | None, msg: Any) -> None:
    if subshell_id is None and kernel._main_asyncio_lock.locked():
        request = _request(kernel, msg)
        msg_type = request["header"].get("msg_type") if request else None
        if request and msg_type in READ_ONLY:
            await _answer_now(kernel, msg, request)
            kernel._publish_status("busy", "shell")  # under the running cell: the page shows it busy again
            return
    await shell_main(subshell_id, msg)


async def _answer_now(kernel: Any, msg: Any, request: dict[str, Any]) -> None:
    """Dispatch `msg` beside the running cell, leaving the cell's parent request as it was.

    The reply is framed by busy and idle statuses under the request, as ipykernel frames every
    request: a front end takes a request as done only when it has seen both the reply and that idle.
    """
    parent = kernel.get_parent("shell")
    ident = kernel._get_shell_context_var(kernel._shell_parent_ident)
    kernel._publish_status("busy", "shell", parent=request)
    try:
        await kernel.dispatch_shell(msg, subshell_id=None, concurrent=True)
    finally:
        kernel._publish_status("idle", "shell", parent=request)
        kernel.set_parent(ident, parent, channel="shell")


def _request(kernel: Any, msg: Any) -> dict[str, Any] | None:
    """The request `msg` frames, header only (None when it does not parse: the shell's to report)."""
    try:
        _, frames = kernel.session.feed_identities(msg, copy=False)
        request = kernel.session.deserialize(frames, content=False, copy=False)
    except Exception:
        return None
    return request if isinstance(request, dict) and isinstance(request.get("header"), dict) else None


def _running_kernel() -> Any:
    return getattr(current_shell(), "kernel", None)
