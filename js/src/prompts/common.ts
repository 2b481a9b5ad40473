// The frame every prompt shares: header, input summary, Skip, error line, answered state.
import type { Answer, KernelMsg, PromptState, ViewMsg } from "../protocol";
import { h } from "../dom";
import { plain, renderInlineMarkdown, setText } from "../sanitize";
import { parseEditedAnswer } from "../editedAnswer";
import { secondsLeft } from "../format";
import { clamp } from "../clamp";
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
  skip.addEventListener("click", () => guarded.submit({ skip: true }));
  card.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      guarded.submit({ skip: true });
    }
  });
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

function timer(prompt: PromptState): HTMLElement | null {
  if (prompt.status !== "pending" || prompt.timeout === null) return null;
  const el = h("span", { class: "nt-timer", "aria-live": "off" });
  const tick = () => {
    if (el.closest(".nt-gone")) return setText(el, ""); // the kernel went away: nothing counts down
    const left = secondsLeft(prompt.requested_at, prompt.timeout, Date.now() / 1000);
    setText(el, left === null ? "" : `${left}s left`);
    if (el.isConnected || left === null || left > 0) window.setTimeout(tick, 1000);
  };
  tick();
  return el;
}
