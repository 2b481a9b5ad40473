"""A real ipykernel driven like JupyterLab drives it: execute cells, speak the widget comm protocol."""

from __future__ import annotations

import json
import queue
import time
from typing import Any

from jupyter_client.manager import start_new_kernel

from tests.support.readiness import CEILING


class KernelSession:
    def __init__(self, cwd: str | None = None) -> None:
        kwargs = {"cwd": cwd} if cwd else {}
        # ready when the kernel answers; the ceiling only ends a hung start (see readiness.py)
        self.km, self.kc = start_new_kernel(kernel_name="python3", startup_timeout=CEILING, **kwargs)
        self.iopub: list[dict[str, Any]] = []
        self.replies: dict[str, dict[str, Any]] = {}

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)

    def restart(self, timeout: float = 60.0) -> list[dict[str, Any]]:
        """Restart the kernel as JupyterLab's restart button does, reconnect; return the old iopub.

        JupyterLab POSTs /api/kernels/<id>/restart; jupyter_server then calls
        `KernelManager.restart_kernel(now=False)`: SIGINT (the kernel's interrupt), at once a
        `shutdown_request` with `restart: true` on the control channel, a wait for the process
        to exit (SIGTERM, then SIGKILL, only after `shutdown_wait_time`), then a new process on
        the same ports. The page stays connected meanwhile, so what the old kernel said while
        going away is returned with everything it said before; `iopub` starts afresh.
        """
        self.km.restart_kernel(now=False)
        old, self.kc = self.kc, self.km.client()  # a new connection, as the page reconnects
        before = self.iopub
        while True:
            try:
                before.append(old.iopub_channel.get_msg(timeout=0.2))
            except queue.Empty:
                break
        old.stop_channels()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=max(timeout, CEILING))
        self.iopub, self.replies = [], {}
        return before

    # -- reading ---------------------------------------------------------------------------------

    def pump(self, until, timeout: float = 30.0) -> None:
        """Read iopub and shell replies until `until()` is true.

        `timeout` is a safety ceiling, never below the shared one: how long a loaded machine takes
        is no pass condition.
        """
        deadline = time.monotonic() + max(timeout, CEILING)
        while not until():
            if time.monotonic() > deadline:
                raise TimeoutError(
                    "kernel condition not reached; last iopub: " + repr(self.iopub[-5:])[:2000]
                )
            for channel, sink in ((self.kc.iopub_channel, self.iopub), (self.kc.shell_channel, None)):
                try:
                    msg = channel.get_msg(timeout=0.02)
                except queue.Empty:
                    continue
                if sink is not None:
                    sink.append(msg)
                else:
                    self.replies[msg["parent_header"].get("msg_id", "")] = msg

    def execute(self, code: str, *, wait: bool = True, timeout: float = 60.0) -> str:
        # stop_on_error=False: a cell meant to fail must not make the kernel abort the next request
        # that reaches it before it stops aborting (ipykernel's stop_on_error window; seen in CI)
        msg_id = self.kc.execute(code, stop_on_error=False)
        if wait:
            self.wait_reply(msg_id, timeout)
        return msg_id

    def wait_reply(self, msg_id: str, timeout: float = 60.0) -> dict[str, Any]:
        self.pump(lambda: msg_id in self.replies and self._idle(msg_id), timeout)
        reply = self.replies[msg_id]
        if reply["content"]["status"] != "ok":
            raise AssertionError(
                f"cell {reply['content']['status']}: {reply['content'].get('ename')}: "
                f"{reply['content'].get('evalue')}\n" + "\n".join(reply["content"].get("traceback", []))
            )
        return reply

    def _idle(self, msg_id: str) -> bool:
        return any(
            m["msg_type"] == "status"
            and m["content"]["execution_state"] == "idle"
            and m["parent_header"].get("msg_id") == msg_id
            for m in self.iopub
        )

    def stdout(self, msg_id: str) -> str:
        return "".join(
            m["content"]["text"]
            for m in self.iopub
            if m["msg_type"] == "stream" and m["parent_header"].get("msg_id") == msg_id
        )

    def value(self, expression: str) -> Any:
        """Evaluate a JSON-serializable expression in the kernel."""
        msg_id = self.execute(f"import json as _j; print(_j.dumps({expression}))")
        return json.loads(self.stdout(msg_id).strip().splitlines()[-1])

    # -- widgets ---------------------------------------------------------------------------------

    def anywidget_comms(self) -> list[str]:
        """Comm ids of AnyWidget models (each AnyWidget also opens a Layout comm, skipped here)."""
        return [
            m["content"]["comm_id"]
            for m in self.iopub
            if m["msg_type"] == "comm_open" and m["content"]["data"]["state"].get("_model_name") == "AnyModel"
        ]

    def comm_msgs(self, comm_id: str) -> list[dict[str, Any]]:
        return [m for m in self.iopub if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == comm_id]

    def state(self, comm_id: str) -> dict[str, Any]:
        """The widget state as a browser would hold it: comm_open state plus every update since."""
        state: dict[str, Any] = {}
        for m in self.iopub:
            if m["msg_type"] == "comm_open" and m["content"]["comm_id"] == comm_id:
                state.update(m["content"]["data"]["state"])
            elif m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == comm_id:
                data = m["content"]["data"]
                if data.get("method") in ("update", "echo_update"):
                    state.update(data["state"])
        return state

    def custom_from_kernel(self, comm_id: str, kind: str) -> list[dict[str, Any]]:
        return [
            m["content"]["data"]["content"]
            for m in self.comm_msgs(comm_id)
            if m["content"]["data"].get("method") == "custom"
            and m["content"]["data"]["content"].get("type") == kind
        ]

    def send_update(self, comm_id: str, **state: Any) -> None:
        """What model.save_changes() sends."""
        content = {"comm_id": comm_id, "data": {"method": "update", "state": state, "buffer_paths": []}}
        self.kc.shell_channel.send(self.kc.session.msg("comm_msg", content))

    def send_custom(self, comm_id: str, content: dict[str, Any], buffers: list[bytes] | None = None) -> None:
        """What model.send(content, callbacks, buffers) sends."""
        msg = self.kc.session.msg(
            "comm_msg", {"comm_id": comm_id, "data": {"method": "custom", "content": content}}
        )
        self.kc.session.send(self.kc.shell_channel.socket, msg, buffers=buffers or [])

    def answer(self, comm_id: str, answers: dict[str, Any], tool_use_id: str, answer: dict[str, Any]) -> None:
        answers[tool_use_id] = answer
        self.send_update(comm_id, answers=dict(answers))

    def pending(self, comm_id: str) -> list[str]:
        prompts = self.state(comm_id).get("prompts", {})
        return sorted(k for k, p in prompts.items() if p["status"] == "pending")

    def transcript(
        self, comm_id: str, messages: list[dict[str, Any]] | None = None
    ) -> dict[str, dict[str, Any]]:
        """The transcript as a view holds it: snapshot items, then every upsert merged by id."""
        items: dict[str, dict[str, Any]] = {}
        for m in messages if messages is not None else self.iopub:
            if m["msg_type"] != "comm_msg" or m["content"]["comm_id"] != comm_id:
                continue
            data = m["content"]["data"]
            if data.get("method") != "custom":
                continue
            content = data["content"]
            if content.get("type") in ("snapshot", "items"):
                for item in content["items"]:
                    items[item["id"]] = {**items.get(item["id"], {}), **item}
            elif content.get("type") == "delta":
                items[content["id"]]["text"] = items[content["id"]].get("text", "") + content["text"]
            elif content.get("type") == "cleared":
                items.clear()
        return items

    def prompts(self, comm_id: str) -> dict[str, dict[str, Any]]:
        """Every prompt a view can show: the open ones (the `prompts` trait) and the closed ones (on
        their transcript items), as the front end draws them."""
        closed = {k: i["prompt"] for k, i in self.transcript(comm_id).items() if "prompt" in i}
        return {**closed, **self.state(comm_id).get("prompts", {})}
