// Keys pressed inside the chat belong to the chat: JupyterLab's notebook shortcuts never see them.
//
// JupyterLab runs every shortcut through Lumino's CommandRegistry, from one keydown listener on the
// document. Focus on a button, radio or checkbox in an output puts the notebook in command mode (its
// focusin handler), where `d d`, `m`, `b`, `a`, `y` and the arrows are bound with the selector
// `.jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus`: a person answering a prompt
// deleted, converted and moved cells. (Text fields were spared by the notebook's `jp-mod-readWrite`
// class; nothing else was.) Lumino's documented opt-out is the `data-lm-suppress-shortcuts`
// attribute: to match a binding it walks up from the event's target and gives up at the first
// element that carries the attribute, before testing it against the selector. That selector matches
// the focused element itself, so the attribute has to be on the event's target, not on the widget's
// root (tried in JupyterLab 4.6: on the root alone, `m` still turned the cell into Markdown). The
// notebook docs say the same ("set it on the host element"). Each keydown is marked on its way down
// to the target, before Lumino's listener sees it bubble up to the document; the browser's own
// handling (arrows between radio options, typing, Enter, Space) is untouched.

const SUPPRESS = "data-lm-suppress-shortcuts";

/** Saving is the one application shortcut people press from anywhere: Accel+S (and Accel+Shift+S, Save As) still reach JupyterLab. */
export function reachesJupyterLab(event: KeyboardEvent): boolean {
  return (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "s";
}

/** Keep JupyterLab's shortcuts away from keys pressed in `root`, except what `reachesJupyterLab` lets through. */
export function keepKeysInWidget(root: HTMLElement): void {
  // Capturing on the widget runs before Lumino's listener, which bubbles on the document. Without
  // the exception, Ctrl+S would open the browser's "Save page" dialog instead of saving the notebook.
  root.addEventListener("keydown", (event) => {
    const target = event.target as Element;
    if (reachesJupyterLab(event)) target.removeAttribute(SUPPRESS);
    else if (!target.hasAttribute(SUPPRESS)) target.setAttribute(SUPPRESS, "true");
  }, true);
}

/** Escape inside `panel`, or on the button that opened it, closes it and puts focus back on the button. */
export function closeOnEscape(panel: HTMLElement, opener: HTMLElement, close: () => void): void {
  const onKey = (event: KeyboardEvent) => {
    if (event.key !== "Escape" || panel.hidden) return;
    event.preventDefault();
    close();
    opener.focus();
  };
  panel.addEventListener("keydown", onKey);
  opener.addEventListener("keydown", onKey);
}
