"""An MCP server with an app, on the official `mcp` SDK: the same interface works in Claude and in a notebook.

The tool `show_counter` names its interface in `_meta.ui.resourceUri`; the resource `ui://counter/app.html`
is HTML of MIME type `text/html;profile=mcp-app` that speaks the MCP Apps protocol (JSON-RPC over
postMessage) with whatever hosts it. `add_one` and `reset` are for the app only (`visibility: ["app"]`):
Claude never sees them, the app calls them. Run by notebook 12 as `python servers/counter_app.py` (stdio).
"""

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from typing_extensions import TypedDict

APP_MIME = "text/html;profile=mcp-app"
server = MCPServer("counter")
state = {"count": 0}


class Count(TypedDict):
    """What the counter's tools return: their structured content, which the app reads."""

    count: int


@server.tool(
    name="show_counter", title="Show the counter", meta={"ui": {"resourceUri": "ui://counter/app.html"}}
)
def show_counter(start: int = 0) -> Count:
    """Show an interactive counter, starting from `start`."""
    state["count"] = start
    return {"count": start}


@server.tool(
    name="add_one", annotations=ToolAnnotations(readOnlyHint=True), meta={"ui": {"visibility": ["app"]}}
)
def add_one() -> Count:
    """Add one to the counter."""
    state["count"] += 1
    return {"count": state["count"]}


@server.tool(
    name="reset", annotations=ToolAnnotations(destructiveHint=True), meta={"ui": {"visibility": ["app"]}}
)
def reset() -> Count:
    """Set the counter back to zero."""
    state["count"] = 0
    return {"count": 0}


APP = """<!doctype html>
<html><head><meta charset="utf-8"><title>Counter</title>
<style>
  body { font-family: var(--font-sans, sans-serif); color: var(--color-text-primary, #222);
         background: var(--color-background-primary, transparent); margin: 8px; }
  .count { font-size: 2em; font-weight: bold; margin: 0 12px; }
</style></head>
<body>
<p><button id="reset">Reset</button><span class="count" id="count">…</span><button id="add">Add one</button></p>
<p><button id="tell">Tell Claude the count</button> <span id="status"></span></p>
<script>
let next = 1;
const waiting = {};
const $ = (id) => document.getElementById(id);
const send = (message) => window.parent.postMessage(message, "*");
const request = (method, params) => new Promise((resolve) => {
  const id = next++;
  waiting[id] = resolve;
  send({ jsonrpc: "2.0", id, method, params });
});
const show = (result) => { if (result && result.structuredContent) $("count").textContent = result.structuredContent.count; };
window.addEventListener("message", (event) => {
  const m = event.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.id !== undefined && waiting[m.id]) { waiting[m.id](m); delete waiting[m.id]; return; }
  if (m.method === "ui/notifications/tool-result") show(m.params);
  if (m.method === "ui/resource-teardown") send({ jsonrpc: "2.0", id: m.id, result: {} });
});
async function call(name) {
  const reply = await request("tools/call", { name, arguments: {} });
  if (reply.error) $("status").textContent = reply.error.message; else show(reply.result);
}
$("add").onclick = () => call("add_one");
$("reset").onclick = () => call("reset");
$("tell").onclick = async () => {
  const text = "The counter shows " + $("count").textContent + ".";
  const reply = await request("ui/message", { role: "user", content: [{ type: "text", text }] });
  $("status").textContent = reply.result && !reply.result.isError ? "sent" : "not sent";
};
(async () => {
  await request("ui/initialize", { appInfo: { name: "counter", version: "1" }, appCapabilities: {}, protocolVersion: "2026-01-26" });
  send({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
  send({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { height: document.body.scrollHeight + 16 } });
})();
</script></body></html>
"""


@server.resource("ui://counter/app.html", mime_type=APP_MIME, meta={"ui": {"prefersBorder": True}})
def counter_app() -> str:
    """The counter's interface."""
    return APP


if __name__ == "__main__":
    server.run("stdio")
