// The card body of a prompt of kind "custom": a renderer of your own (loaded from the kernel) or a
// built-in browser-executed tool. Whatever it does, the prompt ends: a renderer that throws, rejects
// or cannot be loaded shows why on the card and acks `failed` (the model gets an is_error result);
// one that never answers runs into the tool's timeout in the kernel.
import type { PromptContext } from "../prompts/common";
import { h } from "../dom/dom";
import { setText } from "../text/sanitize";
import { type BuiltinApi, type RendererApi, type RendererFn, errorText, theme } from "./api";
import { openUrl } from "./openUrl";
import { copyToClipboard } from "./clipboard";
import { downloadFile } from "./download";
import { notify } from "./notify";
import "./renderers.css";

export const BUILTINS: Record<string, (api: BuiltinApi) => unknown> = {
  "nt.open_url": openUrl,
  "nt.copy_to_clipboard": copyToClipboard,
  "nt.download_file": downloadFile,
  "nt.notify": notify,
};

// Calls this page has run already, so a card drawn again (a reload of the trait, a second view of
// the same widget) offers its button instead of opening, copying or downloading a second time.
const ran: Set<string> = ((globalThis as { __ntRan?: Set<string> }).__ntRan ??= new Set<string>());

export function renderCustom(ctx: PromptContext, body: HTMLElement): void {
  const { prompt } = ctx;
  const el = h("div", { class: "nt-custom", "data-renderer": prompt.renderer });
  const problem = h("div", { class: "nt-error nt-renderer-error", role: "alert" });
  body.append(el, problem);
  let failed = false;
  const fail = (text: string) => {
    if (failed) return;
    failed = true;
    setText(problem, `This prompt could not be shown: ${text}`);
    el.setAttribute("aria-hidden", "true");
    ctx.submit({ status: "failed", error_text: text });
  };
  const api: RendererApi = {
    input: prompt.input,
    el,
    theme: theme(),
    toolUseId: prompt.tool_use_id,
    submit: (answer) => ctx.submit({ value: answer }),
    skip: (reason) => ctx.submit(typeof reason === "string" && reason.trim() ? { skip: true, reason } : { skip: true }),
    fail: (error) => fail(String(error || "the renderer failed")),
  };
  const call = (fn: RendererFn | ((api: BuiltinApi) => unknown), withApi: RendererApi) => {
    try {
      const out = fn(withApi as BuiltinApi);
      if (out && typeof (out as Promise<unknown>).then === "function") {
        (out as Promise<unknown>).then(undefined, (err) => fail(`the renderer failed: ${errorText(err)}`));
      }
    } catch (err) {
      fail(`the renderer threw ${errorText(err)}`);
    }
  };
  const builtin = BUILTINS[prompt.renderer];
  if (builtin) {
    const again = ran.has(prompt.tool_use_id);
    ran.add(prompt.tool_use_id);
    const full: BuiltinApi = {
      ...api,
      ack: (output) => ctx.submit({ status: "success", output }),
      send: (content) => ctx.send(content),
      onMessage: (handler) => ctx.onMessage(handler),
      again,
    };
    call(builtin, full);
    return;
  }
  if (!ctx.renderers) return fail("this view has no renderer modules");
  setText(el, "Loading…");
  ctx.renderers.load(prompt.renderer).then(
    (fn) => {
      if (failed) return;
      el.replaceChildren();
      call(fn, api);
    },
    (err) => fail(`the renderer for ${prompt.name}: ${(err as Error).message}`),
  );
}
