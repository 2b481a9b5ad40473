"""MCP Apps (the `ext-apps` extension): a tool's `ui://` interface, read and checked for a sandbox.

A tool names its interface in `_meta.ui.resourceUri` (the older `_meta["ui/resourceUri"]` too); the
resource is HTML of MIME type `text/html;profile=mcp-app` whose `_meta.ui` declares the origins it
needs (`csp`: connectDomains, resourceDomains, frameDomains, baseUriDomains), the browser
permissions it wants (camera, microphone, geolocation, clipboardWrite) and `prefersBorder`.
`_meta.ui.visibility` says who may call the tool: "model" (offered to Claude), "app" (callable from
its app), both by default.

Everything here is untrusted: a declared origin is kept only when it is a plain
`https://host[:port]` (or `http://localhost`), a `*.` subdomain wildcard at most, so nothing a server
writes can add a CSP keyword (`'unsafe-eval'`, `*`, `data:`) or a directive. The policy the frame
gets is built here from those origins alone.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any

from .._exceptions import MCPServerError

__all__ = [
    "APP_MIME",
    "MAX_APP_BYTES",
    "AppResource",
    "app_resource",
    "app_uri",
    "frame_allow",
    "frame_csp",
    "is_local",
    "visibility",
]

APP_MIME = "text/html;profile=mcp-app"
MAX_APP_BYTES = 5 * 1024 * 1024
"""An app's HTML larger than this is refused (a comm message carries it to the page)."""
_CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
_PERMISSIONS = {"camera": "camera", "microphone": "microphone", "geolocation": "geolocation"}
_PERMISSIONS["clipboardWrite"] = "clipboard-write"
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?"
_ORIGIN = re.compile(
    rf"https://(?:{_LABEL}(?:\.{_LABEL})*|\*\.{_LABEL}\.{_LABEL}(?:\.{_LABEL})*)(?::\d{{1,5}})?"
)
"""A plain origin: `https://host[:port]`, or `https://*.` a domain of two labels or more (not `*.com`)."""
_LOOPBACK = re.compile(r"https?://(?:localhost|127\.0\.0\.1)(?::\d{1,5})?")
_MAX_ORIGINS = 50


def app_uri(listed: dict[str, Any]) -> str | None:
    """The `ui://` resource a listed tool names for its interface (None: it has none)."""
    meta = listed.get("_meta")
    if not isinstance(meta, dict):
        return None
    ui = meta.get("ui")
    uri = ui.get("resourceUri") if isinstance(ui, dict) else None
    if uri is None:
        uri = meta.get("ui/resourceUri")
    if isinstance(uri, str) and uri.startswith("ui://") and len(uri) <= 2_000:
        return uri
    return None


def visibility(listed: dict[str, Any]) -> frozenset[str]:
    """Who may call the tool: {"model", "app"} unless `_meta.ui.visibility` says less."""
    meta = listed.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    said = ui.get("visibility") if isinstance(ui, dict) else None
    if not isinstance(said, list) or not all(isinstance(v, str) for v in said):
        return frozenset({"model", "app"})
    return frozenset(v for v in said if v in ("model", "app"))


def _origins(raw: object, local: bool) -> list[str]:
    if not isinstance(raw, list):
        return []
    kept = [o.lower().removesuffix("/") for o in raw if isinstance(o, str) and len(o) <= 300]
    good = [o for o in kept if _ORIGIN.fullmatch(o) or (local and _LOOPBACK.fullmatch(o))]
    return good[:_MAX_ORIGINS]


def is_local(server: Any) -> bool:
    """Whether a server runs on this machine (a child process, or an HTTP server on a loopback address).

    Only such a server's app may name `http://localhost` / `127.0.0.1` origins: a remote server's app
    could otherwise reach the services of the person's machine (the Jupyter server among them).
    """
    label = str(getattr(server, "label", ""))
    if not label.startswith(("http://", "https://")):
        return True
    from urllib.parse import urlsplit

    return (urlsplit(label).hostname or "") in ("localhost", "127.0.0.1", "::1")


@dataclass(frozen=True)
class AppResource:
    """An app's HTML and the sandbox it declared (origins and permissions already checked)."""

    uri: str
    html: str
    csp: dict[str, list[str]] = field(default_factory=dict)
    permissions: tuple[str, ...] = ()
    prefers_border: bool | None = None


def app_resource(uri: str, read: dict[str, Any], *, local: bool = False) -> AppResource:
    """The app in a `resources/read` result (JSON); `MCPServerError` saying why it is not one.

    `local`: its server runs on this machine (`is_local`), so loopback origins may be declared.
    """
    contents = read.get("contents")
    if not isinstance(contents, list) or not contents:
        raise MCPServerError(f"the server returned no content for {uri}")
    item = next((c for c in contents if isinstance(c, dict) and c.get("uri") == uri), contents[0])
    if not isinstance(item, dict):
        raise MCPServerError(f"the server's content for {uri} is not an object")
    mime = str(item.get("mimeType") or "").replace(" ", "").lower()
    if mime not in (APP_MIME, "text/html"):
        raise MCPServerError(f"{uri} is {mime or 'of no type'}, not an app ({APP_MIME})")
    if isinstance(item.get("text"), str):
        html = item["text"]
    elif isinstance(item.get("blob"), str):
        try:
            html = base64.b64decode(item["blob"], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise MCPServerError(f"{uri} is not UTF-8 HTML in base64") from exc
    else:
        raise MCPServerError(f"{uri} has neither text nor blob")
    if len(html.encode("utf-8", "replace")) > MAX_APP_BYTES:
        raise MCPServerError(f"{uri} is over {MAX_APP_BYTES // (1024 * 1024)} MB")
    meta = item.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    ui = ui if isinstance(ui, dict) else {}
    csp_raw = ui["csp"] if isinstance(ui.get("csp"), dict) else {}
    csp = {key: _origins(csp_raw.get(key), local) for key in _CSP_KEYS}
    wanted = ui["permissions"] if isinstance(ui.get("permissions"), dict) else {}
    permissions = tuple(_PERMISSIONS[k] for k in _PERMISSIONS if k in wanted)
    border = ui.get("prefersBorder")
    return AppResource(uri, html, csp, permissions, border if isinstance(border, bool) else None)


def frame_csp(app: AppResource) -> str:
    """The Content-Security-Policy the app's frame enforces: inline code, its declared origins only."""
    res = " ".join(app.csp.get("resourceDomains", []))
    connect = " ".join(app.csp.get("connectDomains", [])) or "'none'"
    frames = " ".join(app.csp.get("frameDomains", [])) or "'none'"
    base = " ".join(app.csp.get("baseUriDomains", [])) or "'none'"
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src 'unsafe-inline' {res}".rstrip(),
            f"style-src 'unsafe-inline' {res}".rstrip(),
            f"img-src data: blob: {res}".rstrip(),
            f"font-src data: {res}".rstrip(),
            f"media-src data: blob: {res}".rstrip(),
            f"connect-src {connect}",
            f"frame-src {frames}",
            f"base-uri {base}",
            "form-action 'none'",
            "object-src 'none'",
            "worker-src 'none'",
            "manifest-src 'none'",
            # CSP3's WebRTC directive; Chromium 156 does not enforce it (the app's guard script
            # removes RTCPeerConnection there), browsers that do close WebRTC by policy.
            "webrtc 'block'",
        ]
    )


def frame_allow(app: AppResource) -> str:
    """The frame's `allow` (permissions policy): what the resource declared, nothing more.

    (`*`: the frame's origin is opaque, so `'src'` would match nothing; frames inside it are held to
    the declared `frameDomains` by the policy above.)
    """
    return "; ".join(f"{p} *" for p in app.permissions)
