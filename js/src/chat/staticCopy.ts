// The static copy of a chat's transcript, hidden where the live view shows the chat.
//
// The kernel displays a sanitized HTML copy of the transcript below the widget (a `div` with
// `data-nt-chat="<id>"`) for viewers without a kernel: GitHub, nbviewer, nbconvert. Where the widget
// runs, the conversation should show once: a view that has its kernel's transcript hides the copy of
// its own chat (its id comes as the class `nt-chat-<id>` in `_dom_classes`) with one style rule,
// which goes when the view goes.

const PREFIX = "nt-chat-";
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

/** Hides the copy (call `hide` once the view shows the transcript); `dispose` shows it again. */
export function staticCopy(classes: unknown, doc: Document = document): { hide(): void; dispose(): void } {
  const id = chatId(classes);
  let style: HTMLStyleElement | null = null;
  return {
    hide() {
      if (style || !id) return;
      style = doc.createElement("style");
      style.dataset.ntStaticCopy = id;
      style.textContent = hidingRule(id);
      doc.head.append(style);
    },
    dispose() {
      style?.remove();
      style = null;
    },
  };
}
