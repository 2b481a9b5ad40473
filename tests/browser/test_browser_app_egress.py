"""An MCP app sends nothing out of the page, judged by what leaves it (issue 36), in real Chromium.

The app of tests/mcp/egress_app_server.py (tests/mcp/egress_app.html) runs in its tool's card in
JupyterLab and tries WebRTC (STUN, TURN over UDP and TCP), the clipboard (both APIs, with and
without a click), navigations (a link, a form, a meta refresh, a child frame's own), a document in
an `<object>` and an `<embed>`, and resource
hints (dns-prefetch, preconnect, prefetch, preload, prerender, modulepreload, speculation rules).
The same page served plain, outside any sandbox, is the control: each channel the test asserts
closed is one the control shows open, so the test can fail.

What observes the page leaving (this test's own Chromium, launched with the flags below):
- a UDP and a TCP listener on 127.0.0.1 named as the STUN/TURN servers: every packet, every connection;
- every host name the app chooses is `<channel>-<tag>.attacker.example`, and
  `--host-resolver-rules` maps each such name to a TCP listener of the test's: a name that is looked
  up and connected to lands there (a preconnect as an empty connection, a request with its Host);
- Chromium's own net log (`--log-net-log`): any mention of the app's names (resolver, socket pool,
  request events), read once the browser has closed and written it whole.
A lookup that goes nowhere after it (dns-prefetch's) is seen by none of these, nor are the
control's preconnect hint and speculation rules to these cross-site names (Chromium made no
connection for them here, plain page or not): the app's document turns DNS prefetching off, and its
attempts are still made and would land on the listener like any other (README's security model).

Two ways out stay open in Chromium 156, measured here and in the README: the app navigating its own
frame by `location`, and a frame it makes with an http src. The browser resolves the name and opens
a TCP connection to it (a preconnect) before the proxy's frame-src blocks the navigation, and no
script of ours can cancel either first. Their names start with `limit-` and map to a listener of
their own; the test asserts nothing else leaves, and reports what they did.

The observation window: the app's attempts are done when it says "tried"; what it started may
still send later (ICE gathering retransmits for seconds). The test waits, after the app is done,
for twice as long as the control took to show every channel (at least 3 s): a packet the control
sent later than that would not be counted, and the control shows none needs that long.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import re
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.egress_app_server import egress_page
from tests.mcp.servers import HERE, app_cell
from tests.support.lab import (
    CHROMIUM_ARGS,
    PATIENT,
    chromium_path,
    open_notebook,
    run_all,
    wait_for_file,
    write_notebook,
)
from tests.support.readiness import wait_until

pytestmark = pytest.mark.browser

CARD = 'div.nt-tool[data-tool-use-id="app"]'
LIMITS = {"limit-frame-src", "limit-location"}
"""The two ways out Chromium leaves open (the README's security model)."""
CONTROL_SEES = {
    "hint-prefetch",
    "hint-preload",
    "hint-modulepreload",
    "nav-child",
    "embed-object",
    "embed-embed",
    "nav-link",
    "nav-form",
    "nav-meta",
    "limit-frame-src",
    "limit-location",
}
"""Names the plain control page is seen asking for, every run: the test can see each channel."""
NAME = re.compile(r"([a-z][a-z-]*)-(app|control)\.attacker\.example")


class Listener:
    """A loopback socket that records every UDP packet or TCP connection (and the request's Host)."""

    def __init__(self, kind: int) -> None:
        self.sock = socket.socket(socket.AF_INET, kind)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.seen: list[tuple[float, bytes]] = []
        self.hosts: list[str] = []
        if kind == socket.SOCK_STREAM:
            self.sock.listen(64)
        threading.Thread(target=self._run, args=(kind,), daemon=True).start()

    def _run(self, kind: int) -> None:
        while True:
            try:
                if kind == socket.SOCK_DGRAM:
                    data, _ = self.sock.recvfrom(65536)
                    self.seen.append((time.monotonic(), data))
                    continue
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.seen.append((time.monotonic(), b""))
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        """Read a request if one comes (a preconnect sends none) and answer it with an empty page."""
        with conn:
            conn.settimeout(5)
            try:
                data = conn.recv(4096)
            except OSError:
                return
            host = re.search(rb"(?im)^host:\s*([^\s:]+)", data)
            if host:
                self.hosts.append(host.group(1).decode())
            if data:
                with contextlib.suppress(OSError):  # the browser may have gone
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    )

    def names(self, tag: str) -> set[str]:
        return {m.group(1) for h in self.hosts if (m := NAME.fullmatch(h)) and m.group(2) == tag}

    def close(self) -> None:
        self.sock.close()


def net_log_names(path: Path) -> dict[str, set[str]]:
    """The app-chosen names anywhere in Chromium's net log, by tag ("app", "control")."""
    found: dict[str, set[str]] = {"app": set(), "control": set()}
    for m in NAME.finditer(path.read_text(errors="replace")):
        found[m.group(2)].add(m.group(1))
    return found


def serve(html: str) -> tuple[http.server.ThreadingHTTPServer, str]:
    """The control page, plain, on a loopback port."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def egress_cell(config: dict[str, Any]) -> str:
    return app_cell(
        HERE / "egress_app_server.py",
        "egress",
        "egress_app",
        {"EGRESS": json.dumps(config)},
        "egress_turn.json",
    )


def said(log: Any) -> dict[str, str]:
    return dict(json.loads(log.inner_text() or "{}"))


def clipboard(page: Any) -> str:
    """What the clipboard holds, read by the top page (it must have the focus: a click on its corner)."""
    page.bring_to_front()
    page.mouse.click(1, 1)
    return str(page.evaluate("() => navigator.clipboard.readText()"))


def test_an_app_reaches_nothing_but_the_host_bridge_and_a_plain_page_is_seen_doing_the_same(lab, tmp_path):
    from playwright.sync_api import sync_playwright

    udp, turn_tcp, web, limit = (
        Listener(socket.SOCK_DGRAM),
        Listener(socket.SOCK_STREAM),
        Listener(socket.SOCK_STREAM),
        Listener(socket.SOCK_STREAM),
    )
    net_log = tmp_path / "netlog.json"
    rules = (
        f"MAP limit-*.attacker.example 127.0.0.1:{limit.port}, MAP *.attacker.example 127.0.0.1:{web.port}"
    )
    args = [a for a in CHROMIUM_ARGS if a != "--disable-background-networking"]  # hints need it
    args += [f"--log-net-log={net_log}", f"--host-resolver-rules={rules}"]

    def config(tag: str) -> dict[str, Any]:
        return {
            "tag": tag,
            "udp": udp.port,
            "tcp": turn_tcp.port,
            "secret": f"SECRET-{tag}",
            "control": tag == "control",
        }

    control_server, control_url = serve(egress_page(config("control")))
    write_notebook(lab.root / "egress.ipynb", [egress_cell(config("app"))])
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=args, headless=True)
            context = browser.new_context(viewport={"width": 1100, "height": 1200})
            for origin in (lab.base, control_url.rstrip("/")):
                context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)

            # the control: the same page, plain; every channel is seen leaving
            page = context.new_page()
            page.goto(control_url, wait_until="commit")
            page.evaluate("() => navigator.clipboard.writeText('before the control')")
            page.locator("#log", has_text='"ready":"yes"').wait_for(timeout=PATIENT)
            start = time.monotonic()
            page.locator("#arm").click()
            page.locator("#log", has_text='"tried":"yes"').wait_for(timeout=PATIENT)
            page.locator("#leave").click()

            def control_seen() -> bool:
                both = web.names("control") | limit.names("control")
                return bool(udp.seen and turn_tcp.seen) and both >= CONTROL_SEES

            wait_until(
                control_seen,
                "the control's packets, connections and requests",
                log=lambda: (
                    f"UDP {len(udp.seen)}, TURN TCP {len(turn_tcp.seen)}, names {web.hosts + limit.hosts}, "
                    f"it said {page.locator('#log').inner_text()}"
                ),
            )
            took = time.monotonic() - start
            control_said = said(page.locator("#log"))
            control_clipboard = clipboard(page)
            control_counts = (len(udp.seen), len(turn_tcp.seen))
            assert control_clipboard.startswith("PWNED"), control_clipboard
            page.close()

            # the app: the same attempts in its card reach nothing
            udp.seen.clear(), turn_tcp.seen.clear(), web.seen.clear(), limit.seen.clear()
            page = context.new_page()
            open_notebook(page, lab, "egress.ipynb")
            page.evaluate("() => navigator.clipboard.writeText('the person copied this')")
            run_all(page)
            wait_for_file(lab.root / "egress_turn.json", timeout=120)
            app = page.frame_locator(f"{CARD} iframe.nt-app-frame").frame_locator("iframe")
            log = app.locator("#log")
            ready = app.locator("#log", has_text='"ready":"yes"')
            wait_until(
                ready.count,
                "the app in its card to say it is ready",
                log=lambda: f"the card says {page.locator(CARD).inner_text()!r}",
            )
            app.locator("#arm").click()  # the person's click: the app has user activation
            stopped = page.locator(CARD, has_text="The app tried to leave its card and was stopped.")
            tried = app.locator("#log", has_text='"tried":"yes"')
            # done, or stopped early: a navigation the guard let through took the app away
            wait_until(lambda: tried.count() or stopped.count(), "the app to try everything")
            app_said = said(log) if tried.count() else {}
            done = time.monotonic()
            if not stopped.count():
                app.locator("#leave").click()
            stopped.wait_for(timeout=PATIENT)
            window = max(3.0, 2 * took)
            page.wait_for_timeout(
                (window - (time.monotonic() - done)) * 1000
            )  # the bounded window (docstring)
            app_clipboard = clipboard(page)
            browser.close()  # the net log is whole once the browser has closed
    finally:
        control_server.shutdown()
        control_server.server_close()
        for listener in (udp, turn_tcp, web, limit):
            listener.close()

    logged = net_log_names(net_log)
    print(
        f"control: {control_counts[0]} UDP packets, {control_counts[1]} TURN TCP connections, "
        f"names requested {sorted(web.names('control') | limit.names('control'))}, in the net log "
        f"{sorted(logged['control'])}, all within {took:.1f} s; it said {control_said}"
    )
    print(
        f"app: limits {len(limit.seen)} connections, in the net log {sorted(logged['app'])}; it said {app_said}"
    )
    assert logged["control"] >= CONTROL_SEES  # the net log names what the control asked for

    # nothing of the app's reached a listener but the two the README names, nor the clipboard
    assert udp.seen == [] and turn_tcp.seen == [], "WebRTC packets left the app"
    assert web.seen == [], f"the app's names were looked up and connected to: {web.hosts}"
    assert logged["app"] <= LIMITS, f"names the app chose in Chromium's net log: {sorted(logged['app'])}"
    assert limit.names("app") == set(), "the README says the two open ways send no request"
    assert app_clipboard == "the person copied this"
    assert app_said, "the app was stopped before it had tried everything"
    assert app_said["rtc"].startswith("blocked") and app_said["rtc_blank_child"].startswith("blocked")
    assert app_said["exec_copy"] == "false" and app_said["click_exec_copy"] == "false"
    assert app_said["write_text_done"].startswith("no") and app_said["click_write_done"].startswith("no")
