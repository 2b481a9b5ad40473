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
// from its start until it goes) and what the copy's own output area (the cell's outputs) holds:
// - "live": a view shows the chat's transcript (its style element says "hidden").
// - "pending": a view waits for its kernel's transcript ("waiting"), or is in the page and has not
//   started yet (its element carries the class `nt-chat-<id>`), or another output beside the copy is
//   still being drawn (`drawing`: JupyterLab creates a widget's view asynchronously) and nothing has
//   settled before: wait, rather than draw the copy only to take it out a moment later.
// - "free": no view shows the chat or will (none in the page, one whose kernel went before it had the
//   transcript: "released", a widget output that says "model not found", a view that went with its
//   kernel): the copy is drawn.
import { STYLE_CHAT, STYLE_STATE } from "../chat/staticCopy";

export const COPY_MIME = "application/vnd.notebook-tools.copy";

const VALUE = /^nt-chat-([0-9a-f]{8,64})$/; // the kernel's uuid4 hex: safe in a selector and a class name

export type CopyState = "live" | "pending" | "free";
export type ViewsSay = "hidden" | "waiting" | "released" | null;

/** The chat id a copy's `application/vnd.notebook-tools.copy` value names, or null when it names none. */
export function copyChat(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const match = VALUE.exec(value.trim());
  return match ? match[1] : null;
}

/** The other outputs of the copy's output area (JupyterLab's rows: `.jp-OutputArea-child > .jp-OutputArea-output`). */
export function otherOutputs(area: Element | null, own: Element | null): Element[] {
  if (!area) return [];
  return Array.from(area.querySelectorAll(":scope > .jp-OutputArea-child > .jp-OutputArea-output")).filter((output) => output !== own);
}

/** What the views of chat `chat` in `doc` say, the strongest first: one shows it, one waits, all went. */
export function viewsSay(doc: Document, chat: string): ViewsSay {
  const states = Array.from(doc.querySelectorAll(`style[${STYLE_CHAT}="${chat}"]`), (style) => style.getAttribute(STYLE_STATE));
  if (states.includes("hidden")) return "hidden";
  if (states.includes("waiting")) return "waiting";
  return states.length ? "released" : null;
}

/**
 * Where chat `chat`'s copy stands: `doc` is the page, `others` the other outputs of its output area,
 * `settled` whether this copy has seen a view of its chat or an output beside it draw something
 * before, so that an empty output later means a view that went, not one still coming.
 */
export function copyState(doc: Document, others: Element[], chat: string | null, settled: boolean): CopyState {
  if (chat === null) return "free"; // no chat named: plain HTML, drawn
  const said = viewsSay(doc, chat);
  if (said === "hidden") return "live";
  if (said === "waiting") return "pending";
  if (said === "released") return "free";
  if (doc.getElementsByClassName(`nt-chat-${chat}`).length > 0) return "pending"; // a view not started yet
  if (!settled && others.some(drawing)) return "pending";
  return "free";
}

/**
 * Whether an output is still being drawn: nothing in it but text, and no error. JupyterLab's widget
 * output (@jupyter-widgets/jupyterlab-manager) says "Loading widget..." until the view is made, and
 * stays so until the widgets are restored when the model is not there yet; an error ("Error displaying
 * widget: model not found") carries the class `jupyter-widgets`; a view that went leaves it hidden.
 */
export function drawing(output: Element): boolean {
  return !output.firstElementChild && !output.classList.contains("jupyter-widgets") && !output.classList.contains("lm-mod-hidden");
}

/** Whether what is in the page now settles the question "is a view coming" (see `copyState`). */
export function settles(doc: Document, others: Element[], chat: string | null): boolean {
  return (chat !== null && viewsSay(doc, chat) !== null) || others.some((output) => !drawing(output));
}
