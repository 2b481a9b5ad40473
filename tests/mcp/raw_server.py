"""A hostile MCP server (stdio) that writes its JSON-RPC by hand: what the SDK's own server would never send.

Run as `python tests/mcp/raw_server.py`. It speaks the handshake era (2025-11-25): `server/discover` is
refused, so the client falls back to `initialize`. With `RAW_BAD_TOOL=1` its listing also holds a tool
whose inputSchema is not an object; with `RAW_DEEP_LISTING=1`, one whose schema is nested 500 deep,
which no client can parse. Its tools:

- `echo`: answers `{"text"}` as text; `bad_bytes`: first writes a line that is not UTF-8, then answers;
- `deep` (structured content nested 500 deep) and `surrogate` (a lone surrogate): replies the SDK cannot parse;
- `not_a_list` (content is a string), `contradicts` (structured content its outputSchema refuses),
  `svg` (an image/svg+xml image), `bad_png` (an image/png whose data is not base64);
- `storm`: sends 2,000 `notifications/tools/list_changed` before answering; `count`: how many
  `tools/list` requests came so far;
- `sample_images`: asks to sample with an image/svg+xml image, then with an image/png that is not
  base64, and answers what the client said to each;
- a `ping` is answered, then followed by an elicitation and a sampling request of the server's own,
  while none of its calls is in progress; `late_answers`: what the client said to those two.

`python tests/mcp/raw_server.py --http PORT` serves the request-and-reply tools (`echo`, `deep`,
`surrogate`, `not_a_list`, ...) over streamable HTTP on 127.0.0.1, each reply a JSON body; it prints
"listening" once it does.
"""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OUT = sys.stdout.buffer
GOOD = {"type": "object", "properties": {"text": {"type": "string"}}}
OUTPUT = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
NAMES = [
    "echo",
    "bad_bytes",
    "deep",
    "surrogate",
    "not_a_list",
    "svg",
    "bad_png",
    "storm",
    "count",
    "sample_images",
    "late_answers",
]
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
SVG = "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4="  # <svg xmlns="http://www.w3.org/2000/svg"/>


def nested(depth: int) -> dict:
    """A schema `depth` objects deep (`items` of `items` of ...)."""
    value: dict = {"type": "string"}
    for _ in range(depth - 1):
        value = {"items": value}
    return value


def tools() -> list[dict]:
    listed = [{"name": name, "description": f"The {name} tool.", "inputSchema": GOOD} for name in NAMES]
    listed.append({"name": "contradicts", "inputSchema": GOOD, "outputSchema": OUTPUT})
    if os.environ.get("RAW_BAD_TOOL"):
        listed.append(
            {"name": "bad_schema", "description": "Its schema is a string.", "inputSchema": "a string"}
        )
    if os.environ.get("RAW_DEEP_LISTING"):
        listed.append(
            {"name": "deep_schema", "inputSchema": {"type": "object", "additionalProperties": nested(500)}}
        )
    return listed


def send(message: dict) -> None:
    OUT.write(json.dumps(message).encode() + b"\n")
    OUT.flush()


def text(value: str) -> dict:
    return {"content": [{"type": "text", "text": value}]}


def call(name: str, arguments: dict, state: dict) -> dict:
    """The result of tool `name`."""
    if name == "echo":
        return text(str(arguments.get("text", "")))
    if name == "bad_bytes":
        OUT.write(b"\xff\xfe\x80 this line is not UTF-8 \xc3\x28\n")
        OUT.flush()
        return text("answered after a line that is not UTF-8")
    if name == "deep":
        return {**text("deep"), "structuredContent": nested(500)}
    if name == "not_a_list":
        return {"content": "a string where a list belongs"}
    if name == "contradicts":
        return {**text("seven"), "structuredContent": {"n": "seven"}}
    if name == "svg":
        return {"content": [{"type": "image", "mimeType": "image/svg+xml", "data": SVG}]}
    if name == "bad_png":
        return {"content": [{"type": "image", "mimeType": "image/png", "data": "not base64 at all!"}]}
    if name == "storm":
        for _ in range(2000):
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return text("stormed")
    if name == "count":
        return text(str(state["listings"]))
    return {**text(f"unknown tool {name}"), "isError": True}


def sampling(image: dict) -> dict:
    content = [{"type": "text", "text": "What is in this image?"}, {"type": "image", **image}]
    return {"messages": [{"role": "user", "content": content}], "maxTokens": 100}


def ask(ident: str, method: str, params: dict) -> None:
    send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})


ASKED = {"sample_images": ("s-1", "s-2"), "late_answers": ("late-1", "late-2")}
"""The requests of ours each call answers with the client's answers to (once all are in)."""


def answer_waiting(state: dict) -> None:
    """Answer each waiting call whose requests the client has all answered: its answers, as JSON."""
    for call_name, keys in ASKED.items():
        if call_name in state["waiting"] and all(key in state["answers"] for key in keys):
            answered = {key: state["answers"][key] for key in keys}
            send(
                {
                    "jsonrpc": "2.0",
                    "id": state["waiting"].pop(call_name),
                    "result": text(json.dumps(answered)),
                }
            )


def main() -> None:
    state: dict = {"listings": 0, "answers": {}, "waiting": {}}
    for raw in sys.stdin.buffer:
        message = json.loads(raw)
        method, ident = message.get("method"), message.get("id")
        if method is None:  # the client answers a request of ours
            state["answers"][ident] = message
            if ident == "s-1":
                ask(
                    "s-2",
                    "sampling/createMessage",
                    sampling({"mimeType": "image/png", "data": "not base64!"}),
                )
            answer_waiting(state)
            continue
        if ident is None:
            continue  # a notification
        if method == "initialize":
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "raw", "version": "1"},
            }
        elif method == "tools/list":
            state["listings"] += 1
            result = {"tools": tools()}
        elif method == "ping":  # answered, then two requests of its own while no call is in progress
            send({"jsonrpc": "2.0", "id": ident, "result": {}})
            elicit = {"mode": "form", "message": "Who are you?", "requestedSchema": GOOD}
            ask("late-1", "elicitation/create", elicit)
            ask("late-2", "sampling/createMessage", sampling({"mimeType": "image/png", "data": PNG}))
            continue
        elif method == "tools/call":
            params = message.get("params") or {}
            name = params.get("name")
            if name in ASKED:
                state["waiting"][name] = ident
                if name == "sample_images":
                    ask("s-1", "sampling/createMessage", sampling({"mimeType": "image/svg+xml", "data": SVG}))
                answer_waiting(state)
                continue
            if name == "surrogate":  # json.dumps would escape it as "\\ud800"
                OUT.write(b'{"jsonrpc": "2.0", "id": %d, "result": {"content": [' % ident)
                OUT.write(b'{"type": "text", "text": "lone \\ud800 surrogate"}]}}\n')
                OUT.flush()
                continue
            result = call(name, params.get("arguments") or {}, state)
        else:
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no {method}"}})
            continue
        send({"jsonrpc": "2.0", "id": ident, "result": result})


def http_reply(message: dict) -> bytes | None:
    """The JSON body answering one message over HTTP (None: nothing to answer)."""
    method, ident = message.get("method"), message.get("id")
    if method is None or ident is None:
        return None
    if method == "initialize":
        info = {"name": "raw", "version": "1"}
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
    elif method == "tools/list":
        result = {"tools": tools()}
    elif method == "tools/call" and (message.get("params") or {}).get("name") == "surrogate":
        body = b'{"jsonrpc": "2.0", "id": %d, "result": {"content": [' % ident
        return body + b'{"type": "text", "text": "lone \\ud800 surrogate"}]}}'
    elif method == "tools/call":
        params = message.get("params") or {}
        result = call(params.get("name"), params.get("arguments") or {}, {"listings": 0})
    else:
        error = {"code": -32601, "message": f"no {method}"}
        return json.dumps({"jsonrpc": "2.0", "id": ident, "error": error}).encode()
    return json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}).encode()


class Handler(BaseHTTPRequestHandler):
    """Streamable HTTP with JSON replies: POST answers, GET and DELETE are not offered."""

    def do_POST(self) -> None:
        body = http_reply(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(202 if body is None else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body or b"")))
        self.end_headers()
        self.wfile.write(body or b"")

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_DELETE = do_GET

    def log_message(self, *args: object) -> None:
        pass


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        httpd = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler)
        print("listening", flush=True)
        httpd.serve_forever()
    else:
        main()
