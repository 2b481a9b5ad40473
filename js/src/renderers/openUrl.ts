// nt.open_url: open the page in a new tab; where the browser blocks the pop-up, an "Open" button
// (a click is the gesture browsers ask for) and the kernel waits for it, up to the tool's timeout.
import { h } from "../dom/dom";
import type { BuiltinApi } from "./api";
import { errorText } from "./api";
import { focusInCard } from "../dom/focus";

export function openUrl(api: BuiltinApi): void {
  const url = String(api.input.url ?? "");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return api.fail(`${url} is not a valid address`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return api.fail(`only http(s) addresses are opened, not ${parsed.protocol}`);
  // An MCP server's URL request: the person's consent, so the page opens on their click only.
  const consent = api.input.consent === true;
  if (consent) {
    api.el.append(
      h("div", { class: "nt-browser-line" }, String(api.input.server ?? "A server"), " asks you to open a page on ", h("strong", {}, String(api.input.host ?? parsed.hostname))),
      h("div", { class: "nt-browser-line nt-server-message" }, String(api.input.server_message ?? "")),
    );
  }
  const line = h("div", { class: "nt-browser-line" }, "Opening ", h("code", {}, url), " in a new tab.");
  const button = h("button", { class: "nt-btn nt-primary nt-open", type: "button" }, "Open");
  api.el.append(line);
  const open = (via: "auto" | "button"): boolean => {
    let tab: Window | null;
    try {
      tab = window.open(parsed.href, "_blank");
    } catch (err) {
      api.fail(`the browser could not open ${url}: ${errorText(err)}`);
      return true;
    }
    if (!tab) return false;
    try {
      tab.opener = null; // the page cannot reach back into JupyterLab
    } catch {
      /* a cross-origin tab refuses; it has no handle on us either way */
    }
    api.ack({ url: consent ? url : parsed.href, via }); // consent: the very address the server asked for
    return true;
  };
  const offerButton = (why: string) => {
    line.replaceChildren(why, " ", h("code", {}, url));
    api.el.append(button);
    button.addEventListener("click", () => {
      if (!open("button")) api.fail("the browser blocked the pop-up even after a click");
    });
    focusInCard(button); // never from a cell being typed in
  };
  if (api.again || consent) return offerButton("Open this page in a new tab:");
  if (!open("auto")) offerButton("The browser blocked the pop-up. Open it yourself:");
}
