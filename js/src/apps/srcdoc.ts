// An MCP app's document as its frame gets it: the server's HTML with the kernel's
// Content-Security-Policy as the very first thing in <head>, so it governs every resource the
// document names (a policy in a <meta> covers only what comes after it), then our guard script,
// which runs before any of the app's. No DOM of the page's: the HTML is parsed by the DOMParser
// given, into a document of its own, where no script runs.
//
// Why a script, when policy is what the browser enforces: in Chromium 156 (measured with a UDP and
// a TCP listener and the browser's net log, tests/browser/test_browser_app_egress.py) neither the
// sandbox nor CSP touches three ways out. An RTCPeerConnection sends STUN/TURN packets to any host
// it names (CSP's `webrtc 'block'` is not enforced; the kernel's policy carries it for browsers that
// do). `document.execCommand("copy")` in a click overwrites the person's clipboard (the `allow`
// attribute's clipboard-write 'none' does not cover it). A navigation of the app's frame resolves
// its host name and opens a TCP connection to it (the browser's preconnect) before the proxy's
// frame-src blocks it; the Navigation API's `navigate` event, which could cancel it first, is not
// fired in an opaque-origin document. So the guard takes WebRTC and the clipboard away, cancels link
// clicks and meta refreshes, and removes any frame the app makes whose document it could write
// (srcdoc, about:blank: a realm with pristine objects) before that document loads. The app cannot
// undo it: it runs after, and every frame it could reach a fresh realm through is gone. What the
// guard cannot stop (`location.href = …`, a frame made with an http(s) src: the Location object and
// the frame's first navigation are not scriptable) is in the README's security model.

/** What of a DOMParser this needs (the page's, or jsdom's in a test). */
export interface HtmlParser {
  parseFromString(text: string, type: "text/html"): Document;
}

/**
 * The guard, the first script of the app's document (see the top of this file). Kept in ES5 and free
 * of `</`, so it is safe inside <script> and runs in any browser that runs the app.
 */
export const GUARD = `(function () {
"use strict";
var stop = window.stop.bind(window), detach = Element.prototype.remove, matches = Element.prototype.matches;
["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "RTCIceTransport", "RTCSctpTransport", "RTCDtlsTransport",
 "RTCRtpSender", "RTCRtpReceiver", "RTCRtpTransceiver", "RTCSessionDescription", "RTCIceCandidate"].forEach(function (name) {
  try { delete window[name]; Object.defineProperty(window, name, { value: undefined }); } catch (e) { /* not in this browser */ }
});
var refuse = function () { return Promise.reject(new DOMException("An MCP app may not use the clipboard.", "NotAllowedError")); };
if (window.Clipboard) ["write", "writeText", "read", "readText"].forEach(function (m) { Object.defineProperty(Clipboard.prototype, m, { value: refuse }); });
var exec = Document.prototype.execCommand;
Object.defineProperty(Document.prototype, "execCommand", { value: function (command) {
  return /^(copy|cut|paste)$/i.test(String(command)) ? false : exec.apply(this, arguments);
} });
["copy", "cut"].forEach(function (type) { window.addEventListener(type, function (e) { e.stopImmediatePropagation(); }, true); });
window.addEventListener("click", function (e) {
  for (var n = e.target; n; n = n.parentNode) {
    if (n.nodeType === 1 && /^(a|area)$/i.test(n.localName) && n.hasAttribute("href")) { e.preventDefault(); return; }
  }
}, true);
var FRAMES = "iframe,frame,object,embed,fencedframe,portal", REFRESH = 'meta[http-equiv="refresh" i]';
function sweep(node) {
  if (node.nodeType !== 1) return;
  [node].concat(Array.prototype.slice.call(node.querySelectorAll(FRAMES + "," + REFRESH))).forEach(function (el) {
    if (matches.call(el, REFRESH)) { detach.call(el); stop(); }
    else if (matches.call(el, FRAMES) && (el.hasAttribute("srcdoc") || !/^https?:[/][/]/i.test(el.getAttribute("src") || ""))) detach.call(el);
  });
}
new MutationObserver(function (records) {
  records.forEach(function (r) { if (r.type === "attributes") sweep(r.target); else r.addedNodes.forEach(sweep); });
}).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["srcdoc", "src", "http-equiv"] });
})();`;

/** `html` with the policy `csp`, a no-referrer policy, no DNS prefetching and the guard first in its <head>, serialized again. */
export function appDocument(html: string, csp: string, parser: HtmlParser): string {
  const doc = parser.parseFromString(html, "text/html");
  // The HTML parser always makes <html> and <head>, whatever the text (even empty, even a frameset).
  const head = doc.head ?? doc.documentElement.insertBefore(doc.createElement("head"), doc.documentElement.firstChild);
  const policy = doc.createElement("meta");
  policy.setAttribute("http-equiv", "Content-Security-Policy");
  policy.setAttribute("content", csp);
  const referrer = doc.createElement("meta");
  referrer.setAttribute("name", "referrer");
  referrer.setAttribute("content", "no-referrer");
  const prefetch = doc.createElement("meta");
  prefetch.setAttribute("http-equiv", "x-dns-prefetch-control");
  prefetch.setAttribute("content", "off");
  const guard = doc.createElement("script");
  guard.textContent = GUARD;
  head.prepend(policy, referrer, prefetch, guard);
  // Comments and the doctype outside <html> are dropped: nothing of the app's comes before the policy.
  return `<!DOCTYPE html>${doc.documentElement.outerHTML}`;
}
