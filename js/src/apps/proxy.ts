// The sandbox proxy an MCP app runs inside (ext-apps' double frame): a document of ours in the card's
// frame, which makes the app's own frame within it, hands it its HTML, and passes messages both ways.
//
// Why a second frame: an app may navigate its own frame (`location.href = "https://x/?" + data`).
// Nothing in the app's own policy forbids that, and the request leaves before any load event can
// tell. A frame's navigations are governed by its embedder's `frame-src`, so with this document as
// the embedder the app may go only where it declared frames (usually nowhere). The app's document is
// srcdoc, which `frame-src` does not restrict, and inherits this document's policy on top of its own.
// No DOM here: the document is text, and node tests read it.

export const PROXY_READY = "ui/notifications/sandbox-proxy-ready";
export const RESOURCE_READY = "ui/notifications/sandbox-resource-ready";
/** The proxy's word that the app's frame loaded a second document (it navigated): the app is stopped. */
export const APP_LEFT = "nt/app-left";

/** A host source in a `frame-src` (what the kernel keeps of declared frameDomains); keywords and bare schemes are not. */
const ORIGIN = /^https?:\/\/[^\s;,'"]+$/i;

/** The origins the kernel's policy lets the app frame: its `frame-src` host sources, none if it has none. */
export function frameOrigins(csp: string): string[] {
  for (const directive of csp.split(";")) {
    const [name, ...values] = directive.trim().split(/\s+/);
    if (name.toLowerCase() === "frame-src") return values.filter((v) => ORIGIN.test(v));
  }
  return [];
}

/** The kernel's policy `csp` with its `frame-src` (the first; a browser ignores the rest) made of the declared origins alone. */
export function proxyPolicy(csp: string): string {
  const frames = `frame-src ${frameOrigins(csp).join(" ") || "'none'"}`;
  let seen = false;
  const directives: string[] = [];
  for (const raw of csp.split(";")) {
    const directive = raw.trim();
    if (!directive) continue;
    if (directive.split(/\s+/)[0].toLowerCase() !== "frame-src") directives.push(directive);
    else if (!seen) {
      seen = true;
      directives.push(frames);
    }
  }
  if (!seen) directives.push(frames);
  return directives.join("; ");
}

/** `value` as JavaScript source safe inside <script>: JSON with no `<` to end the element. */
const jsString = (value: string) => JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
const attribute = (value: string) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * The proxy's script. It trusts only its parent (the page): the first resource-ready makes the app's
 * frame, with the HTML as srcdoc, and later ones are dropped; anything else from the parent goes to
 * the app, anything from the app goes to the parent, anything from elsewhere is dropped. The frame is
 * made with its srcdoc already set, so its first load is the app's; a second is a navigation.
 * Styles are set through the CSSOM, which no policy restricts.
 */
function proxyScript(allow: string, title: string): string {
  return `(function () {
"use strict";
var ALLOW = ${jsString(allow)}, TITLE = ${jsString(title)};
var FILL = "margin:0;height:100%;overflow:hidden";
document.documentElement.style.cssText = FILL;
document.body.style.cssText = FILL;
var inner = null, served = false, loads = 0;
function up(message) { parent.postMessage(message, "*"); }
function open(html) {
  var frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts allow-forms");
  frame.setAttribute("allow", ALLOW);
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.setAttribute("title", TITLE);
  frame.style.cssText = "width:100%;height:100%;border:0;display:block";
  frame.addEventListener("load", function () {
    if (++loads < 2 || inner !== frame) return;
    inner = null;
    frame.remove();
    up({ jsonrpc: "2.0", method: "${APP_LEFT}", params: {} });
  });
  frame.srcdoc = html;
  inner = frame;
  document.body.appendChild(frame);
}
addEventListener("message", function (event) {
  var data = event.data;
  if (event.source === null) return;
  if (event.source === parent) {
    if (data && data.jsonrpc === "2.0" && data.method === "${RESOURCE_READY}") {
      var html = data.params && data.params.html;
      if (!served && typeof html === "string") { served = true; open(html); }
    } else if (inner && inner.contentWindow) inner.contentWindow.postMessage(data, "*");
  } else if (inner && event.source === inner.contentWindow) up(data);
});
up({ jsonrpc: "2.0", method: "${PROXY_READY}", params: {} });
})();`;
}

/** The proxy's document for the kernel's policy `csp`, the app's permissions `allow` and its frame's `title`. */
export function proxyDocument(csp: string, allow: string, title: string): string {
  return `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${attribute(proxyPolicy(csp))}">`
    + `<meta name="referrer" content="no-referrer"><title>${attribute(title)}</title></head>`
    + `<body><script>${proxyScript(allow, title)}</script></body></html>`;
}

/** Which of the proxy's own notifications `data` is, if any (a request by those names is the app's, not the proxy's). */
export function proxyNotice(data: unknown): "ready" | "left" | null {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return null;
  const m = data as Record<string, unknown>;
  if (m.jsonrpc !== "2.0" || "id" in m) return null;
  return m.method === PROXY_READY ? "ready" : m.method === APP_LEFT ? "left" : null;
}
