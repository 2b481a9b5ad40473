// The static copy of a chat's transcript, hidden where the live view shows the chat, and out of the page.
//
// The kernel displays a sanitized HTML copy of the transcript below the widget (a `div` with
// `data-nt-chat="<id>"`) for viewers without a kernel: GitHub, nbviewer, nbconvert. Where the widget
// runs, the conversation should show once: a view that has its kernel's transcript hides the copy of
// its own chat (its id comes as the class `nt-chat-<id>` in `_dom_classes`) with one style rule,
// which goes when the view goes.
//
// Hidden is not enough (issue 40): a 1,000-message session kept 9,415 nodes of its copy in the page,
// every message twice. The copy the notebook saves is the output's data in the notebook's model, which
// JupyterLab writes to the file whatever its page holds; so the view also takes the copy's content out
// of the page (the copy's own element stays, empty and hidden), again whenever JupyterLab draws a newer
// copy there (the kernel replaces it when a turn ends), and puts the last one back when the view goes,
// so that the cell then shows it. The kernel cannot build the copy only when the notebook is saved: it
// never hears of a save (JupyterLab writes the file from its model), and a kernel that dies sends nothing.
//
// Where this project's JupyterLab extension runs (js/src/lab/), the copy is not drawn at all while a
// view shows the chat; the view says so with its style element, there from the view's start:
// `data-nt-state="waiting"` while it waits for the kernel's transcript (no rule yet), "hidden" once it
// shows the transcript (the rule), "released" when its kernel went before it answered (no rule: the
// copy is the conversation), and gone when the view goes.

const PREFIX = "nt-chat-";
/** The attribute naming the chat on a view's style element, and the one saying where the view stands. */
export const STYLE_CHAT = "data-nt-static-copy";
export const STYLE_STATE = "data-nt-state";
const ID = /^[0-9a-f]{8,64}$/; // the kernel's uuid4 hex: safe inside a CSS attribute selector

/** This view's chat id, from its `_dom_classes`; null when there is none (or it looks wrong). */
export function chatId(classes: unknown): string | null {
  if (!Array.isArray(classes)) return null;
  for (const name of classes) {
    if (typeof name === "string" && name.startsWith(PREFIX) && ID.test(name.slice(PREFIX.length))) return name.slice(PREFIX.length);
  }
  return null;
}

/** The rule that hides the copy of chat `id`, and its output area's row in JupyterLab and Notebook 7. */
export function hidingRule(id: string): string {
  const copy = `[data-nt-chat="${id}"]`;
  return `${copy}, .jp-OutputArea-child:has(> .jp-OutputArea-output > ${copy}) { display: none !important; }`;
}

/** The elements of chat `id`'s copy under `root` (the view's output area, or the whole document). */
function copiesIn(root: ParentNode, id: string): Element[] {
  return Array.from(root.querySelectorAll(`[data-nt-chat="${id}"]`));
}

/**
 * Hides the copy (call `hide` once the view shows the transcript) and takes its content out of the
 * page: the copies in `scope` (the view's output area; the whole document by default), watched for
 * newer ones. `release` says the view will never show the transcript (its kernel went first);
 * `dispose` puts the last content back and shows it again.
 */
export function staticCopy(classes: unknown, doc: Document = document, scope: () => ParentNode | null = () => null): { hide(): void; release(): void; dispose(): void } {
  const id = chatId(classes);
  let hidden = false;
  // the view's word to the copy's renderer (above): waiting for the transcript, until hide() or release()
  let style: HTMLStyleElement | null = null;
  if (id) {
    style = doc.createElement("style");
    style.setAttribute(STYLE_CHAT, id);
    style.setAttribute(STYLE_STATE, "waiting");
    doc.head.append(style);
  }
  // each emptied copy's content, out of the page, to put back when the view goes
  const kept = new Map<Element, DocumentFragment>();
  let watcher: MutationObserver | null = null;
  const watched = new Set<Node>();

  // Empty every copy shown (a newer one JupyterLab drew included) and watch where the next one goes:
  // the copy's output (JupyterLab draws a replaced copy into the same node) and the output area (a new
  // output), their children only, never the view's own log below them.
  const empty = () => {
    if (!id) return;
    const root = scope() ?? doc;
    for (const el of Array.from(kept.keys())) if (!el.isConnected) kept.delete(el);
    for (const copy of copiesIn(root, id)) {
      if (copy.firstChild) {
        const content = doc.createDocumentFragment();
        content.append(...Array.from(copy.childNodes));
        kept.set(copy, content);
      }
      for (const node of [copy.parentNode, root === doc ? null : root]) {
        if (node && !watched.has(node) && typeof MutationObserver === "function") {
          watcher ??= new MutationObserver(empty);
          watcher.observe(node, { childList: true });
          watched.add(node);
        }
      }
    }
    if (root !== doc && !watched.has(root) && typeof MutationObserver === "function") {
      watcher ??= new MutationObserver(empty);
      watcher.observe(root, { childList: true }); // the copy's output may come after the view's snapshot
      watched.add(root);
    }
  };

  return {
    hide() {
      if (hidden || !id || !style) return; // no chat, or the view went
      hidden = true;
      style.textContent = hidingRule(id);
      style.setAttribute(STYLE_STATE, "hidden");
      empty();
    },
    release() {
      // the kernel went before this view had its transcript: the copy is the conversation
      if (hidden || !style) return;
      style.textContent = "";
      style.setAttribute(STYLE_STATE, "released");
    },
    dispose() {
      watcher?.disconnect();
      watcher = null;
      watched.clear();
      for (const [copy, content] of kept) if (copy.isConnected && !copy.firstChild) copy.append(content);
      kept.clear();
      style?.remove();
      style = null;
    },
  };
}
