// The chat's prompt cards: the renderer for each kind of prompt, one card per prompt kept for as long
// as the prompt's state is the same (so what the person typed stays through redraws), a refusal
// shown on the card in place, and the answer sent to the kernel as a custom message.
import type { RenderProps } from "@anywidget/types";
import type { Answer, Item, Model, PromptState } from "../wire/protocol";
import { type PromptContext, type Renderer, promptCard, showRefusal } from "../prompts/common";
import { renderConfirm } from "../prompts/confirm";
import { renderText } from "../prompts/text";
import { renderSelect } from "../prompts/select";
import { renderFile } from "../prompts/file";
import { renderApproval } from "../prompts/approval";
import { renderCustom } from "../renderers/custom";
import type { RendererModules } from "../renderers/api";
import type { Connection } from "./connection";

const RENDERERS: Record<string, Renderer> = {
  confirm: renderConfirm,
  text: renderText,
  generic: renderText,
  select: renderSelect,
  file: renderFile,
  approval: renderApproval,
  custom: renderCustom,
};

export interface PromptCards {
  /** The card of prompt `id` (null when there is no such prompt): an open prompt comes from the
   * `prompts` trait, a closed one from its transcript item (`item`, else the one `itemOf` finds). */
  cardFor(id: string, item?: Item): HTMLElement | null;
  /** The card given last for `id`, if any. */
  drawn(id: string): HTMLElement | undefined;
  /** The ids of the prompts that have a card. */
  ids(): string[];
  forget(id: string): void;
  clear(): void;
}

export function promptCards(
  model: RenderProps<Model>["model"],
  link: Pick<Connection, "send" | "onMessage">,
  renderers: RendererModules,
  itemOf: (id: string) => Item | undefined,
): PromptCards {
  const promptEls = new Map<string, { key: string; el: HTMLElement }>();
  const { send, onMessage } = link;

  // Answers go as custom messages: ipywidgets holds back a second state update until the kernel
  // reports idle, which it does not while a cell awaits `chat.send`. "at" marks each attempt.
  const submit = (id: string, answer: Answer) => send({ type: "answer", tool_use_id: id, answer: { ...answer, at: Date.now() } });

  const cardFor = (id: string, item: Item | undefined = itemOf(id)): HTMLElement | null => {
    const prompt = ((model.get("prompts") ?? {})[id] as PromptState | undefined) ?? item?.prompt;
    if (!prompt) return null;
    const key = JSON.stringify(prompt);
    const cached = promptEls.get(id);
    if (cached && cached.key === key) return cached.el;
    // Only the refusal reason changed: show it on the same card, so what the person typed stays.
    if (cached && prompt.status === "pending" && sameButError(cached.key, prompt) && showRefusal(cached.el, prompt)) {
      promptEls.set(id, { key, el: cached.el });
      return cached.el;
    }
    const ctx: PromptContext = { prompt, submit: (a) => submit(id, a), send, onMessage, maxUploadBytes: model.get("max_upload_bytes"), renderers };
    const card = promptCard(ctx, RENDERERS[prompt.kind] ?? renderText);
    promptEls.set(id, { key, el: card });
    return card;
  };

  return {
    cardFor,
    drawn: (id) => promptEls.get(id)?.el,
    ids: () => Array.from(promptEls.keys()),
    forget: (id) => void promptEls.delete(id),
    clear: () => promptEls.clear(),
  };
}

function sameButError(cachedKey: string, prompt: PromptState): boolean {
  const before = JSON.parse(cachedKey) as PromptState;
  return JSON.stringify({ ...before, error: "" }) === JSON.stringify({ ...prompt, error: "" });
}
