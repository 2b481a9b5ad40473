// Where focus goes when prompts open: the first open prompt in reading order, and never a control
// that answers it.
//
// The card itself takes focus (tabindex=-1; its role=group and aria-label carry the question), not a
// control inside it. Renderers used to focus their own control as they were built, so the last card
// built won: a text box whose default a stray Enter submitted, or Approve on a call scrolled out of
// sight. No control is safe for every kind: Enter on a confirm button or a radio answers, Enter in a
// text box sends its default (or ""), and a delay that ignores early Enters only moves the accident
// later. On the card Enter does nothing, Tab reaches the first control, and typing starts a text
// answer: the box takes focus with its default selected, so the typing replaces it. That is what
// JupyterLab's dialogs do with their input box, without a default button that Enter presses.
//
// Focus moves on its own only when the set of open prompts changes (one opens, one is answered), or
// once a (re)loaded view has received its transcript; and only from nowhere (the page's body: the
// control that had it went away, or the person clicked outside the notebook) or from this very view.
// Never from anywhere else: a cell's editor, a cell in command mode (its keys are JupyterLab's
// shortcuts), a dialog, another widget or another chat; nor, inside this view, from an open prompt
// being answered or a box being typed in. So after Run All or a reload, where JupyterLab focuses a
// cell, the prompts wait for the person to click one; once they answer one, the next takes the focus.
// (Restart & Run All itself puts the notebook in command mode when the run starts, which takes the
// focus from a cell's editor with no widget on the page at all: that one is JupyterLab's.)
//
// Arrow keys on a focused card enter its list of options (a select's radio group or checkboxes), on
// the chosen option or else the first (ArrowDown, Home) or last (ArrowUp, End), as a WAI-ARIA radio
// group or listbox does when it receives focus; from there the options handle the arrows themselves.

const OPEN = "section.nt-prompt.nt-pending:not(.nt-sending)";
/** Where typing on a focused card goes: the box of a prompt whose answer is text, or an options filter. */
const ANSWER_FIELD = ".nt-prompt-text .nt-input, .nt-prompt-generic .nt-input, .nt-filter";
const NOT_TYPED_IN = new Set(["button", "checkbox", "radio", "submit", "reset", "file", "image", "range", "color"]);
/** How long a view waits for the kernel's snapshot before placing focus without it. */
const READY_MS = 1500;

/** Whether focus may move from `active` to a prompt of the view `root`: from nowhere, or from a control
 * of this view that is neither in an open prompt nor a place being typed in. */
export function mayTakeFocus(active: Element | null, root: Element): boolean {
  if (!active || active === active.ownerDocument.body || !active.isConnected) return true;
  if (!root.contains(active)) return false; // a cell, its editor, a dialog, another widget or chat
  return !active.closest(OPEN) && !typedIn(active);
}

function typedIn(active: Element): boolean {
  if ((active as HTMLInputElement).disabled) return false; // e.g. the message box, disabled once sent
  if ((active as HTMLElement).isContentEditable || active.closest("[contenteditable]:not([contenteditable=false])")) return true;
  if (active instanceof HTMLTextAreaElement || active instanceof HTMLSelectElement) return true;
  return active instanceof HTMLInputElement && !NOT_TYPED_IN.has(active.type);
}

/** Give the focus to `control`, which a card offers after it was drawn (a Save button once the bytes
 * came), only from that card or from nowhere: never from a cell, a dialog or another widget. */
export function focusInCard(control: HTMLElement): void {
  const active = document.activeElement;
  const card = control.closest("section.nt-prompt");
  if (!active || active === document.body || (card !== null && card.contains(active))) control.focus({ preventScroll: true });
}

/** The first open prompt card in `root`, in reading order. */
export function firstOpenPrompt(root: ParentNode): HTMLElement | null {
  return root.querySelector<HTMLElement>(OPEN);
}

const OPTIONS = ".nt-options input:not(:disabled)";
const FIRST = new Set(["ArrowDown", "ArrowRight", "Home"]);
const LAST = new Set(["ArrowUp", "ArrowLeft", "End"]);

/** The option that `key` pressed on the focused `card` moves to: the chosen one (for an arrow) or
 * else the first or last; null when the key does not enter the card's options, or it has none. */
export function optionToEnter(card: ParentNode, key: string): HTMLInputElement | null {
  if (!FIRST.has(key) && !LAST.has(key)) return null;
  const options = Array.from(card.querySelectorAll<HTMLInputElement>(OPTIONS));
  const chosen = key.startsWith("Arrow") ? options.find((o) => o.checked) : undefined;
  return chosen ?? (FIRST.has(key) ? options[0] : options[options.length - 1]) ?? null;
}

export interface PromptFocus {
  /** Call after the prompt cards were redrawn. */
  update(): void;
  /** Call when the view has its transcript (the kernel's snapshot): cards are where they will stay. */
  ready(): void;
  dispose(): void;
}

/** Focus management for the prompt cards in `root`; `ownScroll` runs a scroll of the log as the widget's own. */
export function promptFocus(root: HTMLElement, ownScroll: (scroll: () => void) => void): PromptFocus {
  let open = "";
  let isReady = false;
  let frame = 0;

  const place = () => {
    frame = 0;
    const card = firstOpenPrompt(root);
    if (!card || !mayTakeFocus(document.activeElement, root)) return;
    if (card.getBoundingClientRect().width === 0) return; // in a hidden tab: focus cannot go there
    if (!card.hasAttribute("tabindex")) card.tabIndex = -1;
    card.focus({ preventScroll: true });
    ownScroll(() => card.scrollIntoView({ block: "nearest" }));
  };
  const schedule = () => {
    // After the frame's drawing, so the cards are laid out and the log has followed its content.
    if (isReady && !frame) frame = requestAnimationFrame(place);
  };
  const update = () => {
    const now = Array.from(root.querySelectorAll<HTMLElement>(OPEN), (c) => c.dataset.toolUseId ?? "").join(" ");
    if (now === open) return;
    open = now;
    schedule();
  };
  const ready = () => {
    if (isReady) return;
    isReady = true;
    window.clearTimeout(fallback);
    // Before the snapshot, cards wait outside the log, and moving a focused card would drop its focus.
    if (open) schedule();
  };
  const fallback = window.setTimeout(ready, READY_MS);

  const typeToAnswer = (event: KeyboardEvent) => {
    const card = event.target as HTMLElement;
    if (!card.matches?.(OPEN) || event.ctrlKey || event.metaKey || event.altKey) return;
    const option = optionToEnter(card, event.key);
    if (option) {
      event.preventDefault(); // the arrow moves focus, it does not scroll the log
      option.focus();
      return;
    }
    if (event.key.length !== 1 || event.key === " ") return;
    const field = card.querySelector<HTMLInputElement | HTMLTextAreaElement>(ANSWER_FIELD);
    if (!field || field.disabled) return;
    // Focus moves before the key's default action, so the character lands in the field.
    field.focus();
    field.select();
  };
  root.addEventListener("keydown", typeToAnswer);

  return {
    update,
    ready,
    dispose: () => {
      window.clearTimeout(fallback);
      cancelAnimationFrame(frame);
      root.removeEventListener("keydown", typeToAnswer);
    },
  };
}
