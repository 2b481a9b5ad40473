// Links to pages the model cited or a server tool found or fetched: only http(s) URLs become links
// (javascript:, data:, file:, relative and malformed ones stay text), opened in a new tab with
// rel="noopener noreferrer"; the title is untrusted text and the host is shown beside it.
import { h } from "../dom/dom";
import { plain, setText } from "../text/sanitize";

export const WEB_LINK_REL = "noopener noreferrer";

/** The URL when it is an absolute http(s) one, else null. */
export function webUrl(href: unknown): URL | null {
  if (typeof href !== "string" || !href) return null;
  try {
    const url = new URL(href); // relative URLs throw: there is no base
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

/** `title` linking to `url` (its host after it), or the title as text when the URL is not http(s). */
export function webLink(title: unknown, url: unknown): HTMLElement {
  const safe = webUrl(url);
  const label = plain(title) || plain(url) || "untitled";
  const box = h("span", { class: "nt-weblink" });
  if (!safe) {
    box.append(h("span", { class: "nt-weblink-text" }, label));
    return box;
  }
  const a = document.createElement("a"); // not h(): it refuses href, which takes only a checked URL here
  setText(a, label);
  a.href = safe.href;
  a.title = safe.href;
  a.target = "_blank";
  a.rel = WEB_LINK_REL;
  a.className = "nt-weblink-a";
  box.append(a, h("span", { class: "nt-weblink-host" }, safe.host));
  return box;
}
