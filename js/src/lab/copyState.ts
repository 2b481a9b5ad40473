// Whether a chat's static copy is drawn, read from the page around it (issue 40).
//
// The kernel puts a sanitized HTML copy of a chat's transcript in the cell (for GitHub, nbviewer,
// nbconvert and a notebook opened without its kernel), in the output after the chat's widget. Where
// the widget runs, the copy is the conversation a second time. JupyterLab's own HTML renderer drew it
// anyway (sanitizing and laying out 280 KB for a 1,000-message session before the view could empty
// it). The copy's output also carries `application/vnd.notebook-tools.copy` ("nt-chat-<id>"), which
// this project's JupyterLab extension renders instead of the HTML: it draws the copy only where no live
// view of the chat shows it. The notebook's model keeps the HTML all along, so a saved file holds it.
//
// What decides, from what the chat's views say (js/src/chat/staticCopy.ts: each view's style element,
// from its start until it goes) and the output just before the copy, where the kernel put the chat's
// view (`StaticCopy.display` shows the view, then the copy, in one cell):
// - "live": a view shows the chat's transcript (its style element says "hidden").
// - "pending": a view waits for its kernel's transcript ("waiting"); or the view's output holds an
//   element but no view has said anything yet (JupyterLab puts the view's element there before the
//   view starts, its classes coming later still); or it says "Loading widget..." (or is empty) and no
//   view has said anything before. Wait, rather than draw the copy only to take it out a moment later.
// - "free": no view shows the chat or will: one whose kernel went before it had the transcript
//   ("released"), an error in the view's output ("Error displaying widget: model not found", which
//   carries the class `jupyter-widgets`), a view's output left empty or hidden after a view that went,
//   no view's output at all (an untrusted notebook shows none): the copy is drawn.
import { STYLE_CHAT, STYLE_STATE } from "../chat/staticCopy";

export const COPY_MIME = "application/vnd.notebook-tools.copy";

const VALUE = /^nt-chat-([0-9a-f]{8,64})$/; // the kernel's uuid4 hex: safe in a selector

export type CopyState = "live" | "pending" | "free";
export type ViewsSay = "hidden" | "waiting" | "released" | null;

/** The chat id a copy's `application/vnd.notebook-tools.copy` value names, or null when it names none. */
export function copyChat(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const match = VALUE.exec(value.trim());
  return match ? match[1] : null;
}

/** The output just before the copy's `own` in its output area (JupyterLab's rows), or null. */
export function viewOutput(own: Element): Element | null {
  const row = own.closest(".jp-OutputArea-child");
  const before = row?.previousElementSibling;
  return before?.matches(".jp-OutputArea-child") ? before.querySelector(":scope > .jp-OutputArea-output") : null;
}

/** What the views of chat `chat` in `doc` say, the strongest first: one shows it, one waits, all went. */
export function viewsSay(doc: Document, chat: string): ViewsSay {
  const states = Array.from(doc.querySelectorAll(`style[${STYLE_CHAT}="${chat}"]`), (style) => style.getAttribute(STYLE_STATE));
  if (states.includes("hidden")) return "hidden";
  if (states.includes("waiting")) return "waiting";
  return states.length ? "released" : null;
}

/**
 * Where chat `chat`'s copy stands: `doc` is the page, `before` the output before the copy (`viewOutput`),
 * `heard` whether a view of the chat has said anything while this copy watched, so that an empty
 * output later means a view that went, not one still coming.
 */
export function copyState(doc: Document, before: Element | null, chat: string | null, heard: boolean): CopyState {
  if (chat === null) return "free"; // no chat named: plain HTML, drawn
  const said = viewsSay(doc, chat);
  if (said === "hidden") return "live";
  if (said === "waiting") return "pending";
  if (said === "released" || before === null) return "free";
  if (before.classList.contains("jupyter-widgets") || before.classList.contains("lm-mod-hidden")) return "free";
  // "Loading widget...", nothing yet, or a view's element before the view starts; once a view has been
  // heard from and says nothing more, it went
  return heard ? "free" : "pending";
}
