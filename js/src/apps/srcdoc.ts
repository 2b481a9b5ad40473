// An MCP app's document as its frame gets it: the server's HTML with the kernel's
// Content-Security-Policy as the very first thing in <head>, so it governs every resource the
// document names (a policy in a <meta> covers only what comes after it). No DOM of the page's: the
// HTML is parsed by the DOMParser given, into a document of its own, where no script runs.

/** What of a DOMParser this needs (the page's, or jsdom's in a test). */
export interface HtmlParser {
  parseFromString(text: string, type: "text/html"): Document;
}

/** `html` with the policy `csp` and a no-referrer policy first in its <head>, serialized again. */
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
  head.prepend(policy, referrer);
  // Comments and the doctype outside <html> are dropped: nothing of the app's comes before the policy.
  return `<!DOCTYPE html>${doc.documentElement.outerHTML}`;
}
