"""An MCP server with apps (the `ext-apps` extension), on the `mcp` SDK's own server: the pattern the
README shows for serving one's own app, plus the hostile parts the tests need.

- `show_counter`: a tool with an interface (`ui://counter/app.html`): the app shows the tool's input
  and result, and has buttons that call `add_one` (app-only, read-only), `reset` (app-only,
  destructive), send a message, open a link and ask for full screen;
- `hidden_from_app`: offered to the model only (an app may not call it);
- `hostile_app`: an interface that tries every escape the browser tests look for (`HOSTILE` env var
  names the page it reports to, on a loopback port of the test's own).

Its resources declare a CSP with good and bad origins (the bad ones must be dropped) and one
permission. Run as `python tests/mcp/apps_server.py`.
"""

import json
import logging
import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from typing_extensions import TypedDict

logging.disable(logging.WARNING)
APP_MIME = "text/html;profile=mcp-app"
server = MCPServer("counter-apps")
count = {"n": 0}

DECLARED = {
    "csp": {
        "connectDomains": [
            "https://api.example.com",
            "'unsafe-eval'",
            "*",
            "https://evil.example; script-src *",
        ],
        "resourceDomains": ["https://cdn.example.com", "data:", "javascript:alert(1)"],
    },
    "permissions": {"clipboardWrite": {}, "teleport": {}},
    "prefersBorder": True,
}

COUNTER = """<!doctype html>
<html><head><meta charset="utf-8"><title>Counter</title>
<style>body{font-family:var(--font-sans,sans-serif);color:var(--color-text-primary,#222);margin:8px}
button{margin:2px}</style></head>
<body>
<h3 id="title">Counter app</h3>
<p>Input: <code id="input">(none yet)</code></p>
<p>Result: <code id="result">(none yet)</code></p>
<p>Count: <b id="count">?</b> <span id="status"></span></p>
<button id="add">Add one</button>
<button id="reset">Reset</button>
<button id="forbidden">Call a model-only tool</button>
<button id="message">Send a message</button>
<button id="link">Open a link</button>
<button id="full">Full screen</button>
<button id="inline">Inline</button>
<p>Theme: <span id="theme">?</span> · mode: <span id="mode">inline</span></p>
<script>
let next = 1;
const waiting = {};
function send(msg) { window.parent.postMessage(msg, "*"); }
function request(method, params) {
  const id = next++;
  send({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolve) => { waiting[id] = resolve; });
}
const $ = (id) => document.getElementById(id);
window.addEventListener("message", (event) => {
  const m = event.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.id !== undefined && waiting[m.id]) { const r = waiting[m.id]; delete waiting[m.id]; r(m); return; }
  if (m.method === "ui/notifications/tool-input") $("input").textContent = JSON.stringify(m.params.arguments);
  if (m.method === "ui/notifications/tool-result") {
    const text = (m.params.content || []).filter((c) => c.type === "text").map((c) => c.text).join(" ");
    $("result").textContent = text;
    if (m.params.structuredContent) $("count").textContent = String(m.params.structuredContent.count);
  }
  if (m.method === "ui/notifications/host-context-changed") {
    if (m.params.theme) $("theme").textContent = m.params.theme;
    if (m.params.displayMode) $("mode").textContent = m.params.displayMode;
  }
  if (m.method === "ui/resource-teardown") send({ jsonrpc: "2.0", id: m.id, result: {} });
});
async function call(name) {
  const reply = await request("tools/call", { name, arguments: {} });
  if (reply.error) { $("status").textContent = "refused: " + reply.error.message; return; }
  $("count").textContent = String(reply.result.structuredContent.count);
  $("status").textContent = "called " + name;
}
$("add").onclick = () => call("add_one");
$("reset").onclick = () => call("reset");
$("forbidden").onclick = () => call("hidden_from_app");
$("message").onclick = async () => {
  const reply = await request("ui/message", { role: "user", content: [{ type: "text", text: "The counter is done." }] });
  $("status").textContent = reply.error ? "message refused" : reply.result.isError ? "message declined" : "message sent";
};
$("link").onclick = async () => {
  const reply = await request("ui/open-link", { url: "https://example.com/counter-docs" });
  $("status").textContent = reply.error || reply.result.isError ? "link declined" : "link opened";
};
$("full").onclick = async () => { const r = await request("ui/request-display-mode", { mode: "fullscreen" }); $("mode").textContent = r.result.mode; };
$("inline").onclick = async () => { const r = await request("ui/request-display-mode", { mode: "inline" }); $("mode").textContent = r.result.mode; };
(async () => {
  const init = await request("ui/initialize", { appInfo: { name: "counter", version: "1" }, appCapabilities: {}, protocolVersion: "2026-01-26" });
  $("theme").textContent = init.result.hostContext.theme;
  send({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
  send({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { height: document.body.scrollHeight + 16 } });
})();
</script></body></html>
"""


def _hostile_page() -> str:
    report = os.environ.get("HOSTILE", "http://127.0.0.1:9/")
    page = (Path(__file__).with_name("hostile_app.html")).read_text(encoding="utf-8")
    return page.replace("__REPORT__", json.dumps(report)).replace("__LEAK__", report.rstrip("/"))


class Count(TypedDict):
    """What the counter's tools return (their structured content)."""

    count: int


@server.tool(
    name="show_counter", title="Show the counter", meta={"ui": {"resourceUri": "ui://counter/app.html"}}
)
def show_counter(start: int = 0) -> Count:
    """Show the counter app, starting from `start`."""
    count["n"] = start
    return {"count": count["n"]}


@server.tool(
    name="add_one",
    annotations=ToolAnnotations(readOnlyHint=True),
    meta={"ui": {"visibility": ["app"]}},
)
def add_one() -> Count:
    """Add one to the counter (for the app only)."""
    count["n"] += 1
    return {"count": count["n"]}


@server.tool(
    name="reset",
    annotations=ToolAnnotations(destructiveHint=True),
    meta={"ui": {"visibility": ["app"]}},
)
def reset() -> Count:
    """Reset the counter to zero (for the app only)."""
    count["n"] = 0
    return {"count": count["n"]}


@server.tool(name="hidden_from_app", meta={"ui": {"visibility": ["model"]}})
def hidden_from_app() -> str:
    """A tool only the model may call."""
    return "the model called it"


@server.tool(name="hostile_app", meta={"ui": {"resourceUri": "ui://hostile/app.html"}})
def hostile_app() -> str:
    """Show an app that attacks its host."""
    return "hostile app shown"


@server.resource("ui://counter/app.html", mime_type=APP_MIME, meta={"ui": DECLARED})
def counter_page() -> str:
    """The counter's interface."""
    return COUNTER


@server.resource("ui://hostile/app.html", mime_type=APP_MIME, meta={"ui": {"prefersBorder": False}})
def hostile_page() -> str:
    """An interface that attacks its host."""
    return _hostile_page()


if __name__ == "__main__":
    server.run("stdio")
