// The frame every prompt shares: header, input summary, Skip, error line, answered state.
import type { Answer, KernelMsg, PromptState, ViewMsg } from "../wire/protocol";
import { h } from "../dom/dom";
import { plain, renderInlineMarkdown, setText } from "../text/sanitize";
import { parseEditedAnswer } from "./editedAnswer";
import { countdownAnnouncement, countdownText, countdownUrgent, secondsLeft } from "../text/format";
import { clamp } from "../dom/clamp";
import type { RendererModules } from "../renderers/api";

export interface PromptContext {
  prompt: PromptState;
  submit: (answer: Answer) => void;
  /** Send a custom message to the kernel (uploads, folder listings). */
  send: (content: ViewMsg, buffers?: ArrayBuffer[]) => void;
  /** Subscribe to custom messages from the kernel (and their binary buffers); returns an unsubscribe function. */
  onMessage: (handler: (msg: KernelMsg, buffers?: DataView[]) => void) => () => void;
  maxUploadBytes: number;
  /** The modules of this chat's own renderers (kind "custom"), as the kernel sent them. */
  renderers?: RendererModules;
}

export type Renderer = (ctx: PromptContext, body: HTMLElement, lock: () => void) => void;

export function question(prompt: PromptState): string {
  if (prompt.kind === "approval") return `Allow ${prompt.name} to run?`;
  const input = prompt.input;
  return String(input.message ?? input.prompt ?? prompt.description ?? prompt.name);
}

/** Open cards that can take a refusal in place, keeping what the person typed. */
const refreshers = new WeakMap<HTMLElement, (prompt: PromptState) => void>();

/** Show why an answer was refused on its open card and let the person fix it and send again;
 * false when `card` cannot (then draw a new one). */
export function showRefusal(card: HTMLElement, prompt: PromptState): boolean {
  const refresh = refreshers.get(card);
  if (!refresh) return false;
  refresh(prompt);
  return true;
}

/** Build a prompt card; `render` fills the body while the prompt is pending. */
export function promptCard(ctx: PromptContext, render: Renderer): HTMLElement {
  const { prompt } = ctx;
  const pending = prompt.status === "pending";
  // The question is the model's text: inline markdown (`code`, **bold**), sanitized like a reply.
  const asked = h("div", { class: "nt-question" }, renderInlineMarkdown(question(prompt)));
  const card = h("section", {
    class: `nt-prompt nt-prompt-${prompt.kind} nt-${prompt.status}`,
    "data-tool-use-id": prompt.tool_use_id,
    role: "group",
    "aria-label": `${prompt.name}: ${asked.textContent}`,
  });
  card.append(h("div", { class: "nt-prompt-head" }, h("span", { class: "nt-tool-name" }, prompt.name), timer(prompt)));
  card.append(asked);
  if (!pending) {
    const label: Record<string, string> = { answered: "Answered", skipped: "Skipped", timed_out: "Timed out", cancelled: "Cancelled", failed: "Not answered" };
    card.append(
      h("div", { class: "nt-answered", role: "status" },
        h("span", { class: "nt-badge" }, label[prompt.status] ?? prompt.status),
        answerView(prompt)),
    );
    return card;
  }
  // An open card takes focus itself (dom/focus.ts places it there; a click on the card's text does too),
  // so its keys work from it: Tab to its controls, arrows into its options, typing into its text box.
  card.tabIndex = -1;
  const body = h("div", { class: "nt-prompt-body" });
  const error = h("div", { class: "nt-error", role: "alert" }, prompt.error);
  const skip = h("button", { class: "nt-btn nt-skip", type: "button", "aria-label": "Skip this question" }, "Skip");
  let locked = false;
  let lockedControls: Array<HTMLButtonElement | HTMLInputElement | HTMLTextAreaElement> = [];
  const lock = () => {
    locked = true;
    card.classList.add("nt-sending");
    const controls = Array.from(card.querySelectorAll<HTMLButtonElement | HTMLInputElement | HTMLTextAreaElement>("button, input, textarea"));
    lockedControls = controls.filter((el) => !el.disabled);
    for (const el of lockedControls) el.disabled = true;
  };
  refreshers.set(card, (next) => {
    setText(error, next.error);
    locked = false;
    card.classList.remove("nt-sending");
    for (const el of lockedControls) el.disabled = false;
    lockedControls = [];
  });
  const guarded: PromptContext = {
    ...ctx,
    submit: (answer) => {
      if (locked) return; // double submit: the first answer stands
      lock();
      ctx.submit(answer);
    },
  };
  // Only the Skip button skips. No key does: Escape is how a JupyterLab user leaves edit mode, and a
  // prompt that takes the focus must not turn that habit into an answer the model reads.
  skip.addEventListener("click", () => guarded.submit({ skip: true }));
  try {
    render(guarded, body, lock);
  } catch (err) {
    // A renderer that cannot show this prompt says so, so the model is told instead of waiting.
    guarded.submit({ status: "failed", error_text: `the prompt could not be shown: ${(err as Error).message}` });
  }
  card.append(body, h("div", { class: "nt-prompt-foot" }, skip), error);
  return card;
}

/** The answer as shown on an answered card: a few lines with "Show more"; an edited approval as a
 * list of its arguments, the changed ones first. */
function answerView(prompt: PromptState): HTMLElement | null {
  if (!prompt.answer) return null;
  const edited = prompt.kind === "approval" ? parseEditedAnswer(prompt.answer, prompt.input) : null;
  if (!edited) return clamp(h("div", { class: "nt-answer-text" }, prompt.answer), 3);
  const count = edited.args.length;
  const summary = `${edited.head}: ${edited.changed} of ${count} argument${count === 1 ? "" : "s"} changed${edited.tail ? ` ${edited.tail}` : ""}`;
  const list = h("dl", { class: "nt-kv", "aria-label": "Arguments it ran with" },
    ...edited.args.map((arg) => h("div", { class: arg.changed ? "nt-kv-item nt-changed" : "nt-kv-item" },
      h("dt", { title: plain(arg.key) }, arg.key),
      h("dd", { title: plain(arg.value ?? "(removed)") }, arg.value ?? "(removed)"))));
  return h("div", { class: "nt-answer-text" }, h("div", { class: "nt-answer-summary" }, summary), clamp(list, 3, `all ${count} arguments`));
}

/** Seconds a countdown waits for its card to be put in the page before it stops (a card built, never shown). */
const UNSEEN_TICKS = 3;

/** A prompt's countdown, only where its author set a timeout: the time left as text and as a bar
 * that turns to the warning colour near the end; a timer role for assistive technology, which
 * hears the time left at a few marks (a polite live region), not every second. */
function timer(prompt: PromptState): HTMLElement | null {
  const timeout: unknown = prompt.timeout;
  // (a state without a usable timeout, missing or not a positive number, counts nothing down)
  if (prompt.status !== "pending" || typeof timeout !== "number" || !(timeout > 0) || !Number.isFinite(timeout)) return null;
  const text = h("span", { class: "nt-timer-text" });
  const fill = h("span", { class: "nt-timer-fill" });
  const said = h("span", { class: "nt-visually-hidden", "aria-live": "polite" });
  const el = h("span", { class: "nt-timer", role: "timer" }, text, h("span", { class: "nt-timer-bar", "aria-hidden": "true" }, fill), said);
  let last: number | null = null;
  let shown = false;
  let unseen = 0; // ticks before the card was ever in the page: one never put there stops soon
  const tick = () => {
    if (el.closest(".nt-gone")) return el.remove(); // the kernel went away: nothing counts down
    const left = secondsLeft(prompt.requested_at, timeout, Date.now() / 1000) ?? 0;
    setText(text, countdownText(left));
    el.setAttribute("aria-label", left > 0 ? `${countdownText(left)} to answer` : countdownText(left));
    fill.style.width = `${Math.min(100, (100 * left) / timeout)}%`;
    el.classList.toggle("nt-timer-urgent", countdownUrgent(left, timeout));
    el.classList.toggle("nt-timer-up", left <= 0);
    const announce = left !== last ? countdownAnnouncement(left, timeout) : null;
    if (announce) setText(said, announce);
    last = left;
    shown ||= el.isConnected;
    if (!shown) unseen++;
    if (el.isConnected || (!shown && unseen <= UNSEEN_TICKS)) window.setTimeout(tick, 1000); // until its card is gone
  };
  tick();
  return el;
}
