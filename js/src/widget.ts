// Entry point of the Chat widget (anywidget): transcript, inline prompts, input box, Stop, status.
import type { RenderProps } from "@anywidget/types";
import type { Answer, Item, KernelMsg, Model, PromptState, ViewMsg } from "./protocol";
import { h } from "./dom";
import { setText } from "./sanitize";
import { statusLine } from "./logic";
import { type PromptContext, type Renderer, promptCard, showRefusal } from "./prompts/common";
import { renderConfirm } from "./prompts/confirm";
import { renderText } from "./prompts/text";
import { renderSelect } from "./prompts/select";
import { renderFile } from "./prompts/file";
import { renderApproval } from "./prompts/approval";
import { renderCustom } from "./renderers/custom";
import { RendererModules } from "./renderers/api";
import { coerceArg, parseSlash } from "./logic";
import { renderItem } from "./transcript";
import type { ResultsContext } from "./results/index";
import { toolsPanel } from "./toolsPanel";
import { pluginProblem, pluginsText } from "./toolGroups";
import { keepKeysInWidget } from "./keys";
import { promptFocus } from "./focus";
import { followLog } from "./follow";
import { CLOSED, watchKernel } from "./liveness";
import { staticCopy } from "./staticCopy";
import "./widget.css";

const PING_MS = 5000;

const RENDERERS: Record<string, Renderer> = {
  confirm: renderConfirm,
  text: renderText,
  generic: renderText,
  select: renderSelect,
  file: renderFile,
  approval: renderApproval,
  custom: renderCustom,
};

const HELP = [
  "/help: this list",
  "/tools: the tools you can run by hand",
  "/tool NAME --arg value (or /NAME --arg value): run a tool by hand",
  "/plugins: the plugins, expanded or not, and their skills",
  "/expand NAME, /collapse NAME: offer a plugin's tools to the model, or fold them away",
  "/clear: start a new conversation",
  "/status: the agent's state and token counts",
].join("\n");

function render({ model, el }: RenderProps<Model>): () => void {
  const items = new Map<string, { item: Item; el: HTMLElement }>();
  const handlers = new Set<(msg: KernelMsg, buffers?: DataView[]) => void>();
  const modules = new RendererModules(); // this chat's own renderers, sent by the kernel on hello
  const promptEls = new Map<string, { key: string; el: HTMLElement }>();

  const root = h("div", { class: "nt-chat", role: "region", "aria-label": "Claude chat" });
  const notice = h("div", { class: "nt-banner nt-scripted", role: "note" });
  const errorBar = h("div", { class: "nt-banner nt-error-banner", role: "alert" });
  const errorText = h("span");
  const dismiss = h("button", { class: "nt-btn nt-link", type: "button", "aria-label": "Dismiss error" }, "Dismiss");
  errorBar.append(errorText, dismiss);
  const log = h("div", { class: "nt-log", "aria-live": "polite" });
  const loose = h("div", { class: "nt-loose-prompts" });
  const input = h("textarea", { class: "nt-input nt-compose", rows: "2", placeholder: "Message Claude (Enter to send, Shift+Enter for a new line)", "aria-label": "Message" });
  const sendBtn = h("button", { class: "nt-btn nt-primary", type: "button" }, "Send");
  const stopBtn = h("button", { class: "nt-btn nt-stop", type: "button", "aria-label": "Stop the agent" }, "Stop");
  const status = h("div", { class: "nt-status", role: "status" });
  const menu = toolsPanel(model, (msg) => send(msg));
  const { button: toolsBtn, panel: menuPanel, tools, plugins } = menu;
  const composer = h("div", { class: "nt-composer" }, input, h("div", { class: "nt-col" }, sendBtn, stopBtn, toolsBtn));
  const follow = followLog(log);
  root.append(notice, errorBar, follow.el, loose, menuPanel, composer, status);
  el.append(root);
  keepKeysInWidget(root);
  const focus = promptFocus(root, follow.ownScroll);
  const copy = staticCopy((model as unknown as { get(name: string): unknown }).get("_dom_classes"));

  // A view whose kernel restarted or went away says so and takes no more input (see liveness.ts).
  const goneBar = h("div", { class: "nt-banner nt-gone-banner", role: "alert", hidden: true });
  root.prepend(goneBar);
  let gone = false;
  let ping = 0;
  const markGone = (reason: string) => {
    if (gone) return;
    gone = true;
    window.clearInterval(ping);
    setText(goneBar, reason);
    goneBar.hidden = false;
    root.classList.add("nt-gone");
    for (const part of [errorBar, follow.el, loose, menuPanel, composer]) part.inert = true;
    setText(status, "disconnected from the kernel");
  };
  const send = (content: ViewMsg, buffers?: ArrayBuffer[]) => {
    if (gone) return;
    try {
      model.send(content, undefined, buffers);
    } catch {
      markGone(CLOSED); // JupyterLab's "Cannot send": the comm closed under us
    }
  };
  const onMessage = (handler: (msg: KernelMsg, buffers?: DataView[]) => void) => {
    handlers.add(handler);
    return () => handlers.delete(handler);
  };

  const results = { send, onMessage }; // a table view asks the kernel for its pages

  // Answers go as custom messages: ipywidgets holds back a second state update until the kernel
  // reports idle, which it does not while a cell awaits `chat.send`. "at" marks each attempt.
  const submit = (id: string, answer: Answer) => send({ type: "answer", tool_use_id: id, answer: { ...answer, at: Date.now() } });

  // An open prompt comes from the `prompts` trait; a closed one from its transcript item.
  const cardFor = (id: string, item: Item | undefined = items.get(id)?.item): HTMLElement | null => {
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
    const ctx: PromptContext = { prompt, submit: (a) => submit(id, a), send, onMessage, maxUploadBytes: model.get("max_upload_bytes"), renderers: modules };
    const card = promptCard(ctx, RENDERERS[prompt.kind] ?? renderText);
    promptEls.set(id, { key, el: card });
    return card;
  };

  const drawItem = (id: string) => {
    const entry = items.get(id);
    if (!entry) return;
    const fresh = renderItemSafe(entry.item, cardFor, results);
    entry.el.replaceWith(fresh);
    entry.el = fresh;
  };

  const upsert = (item: Item) => {
    const entry = items.get(item.id);
    if (entry) {
      entry.item = { ...entry.item, ...item };
      drawItem(item.id);
    } else {
      const el = renderItemSafe(item, cardFor, results);
      // A copy: every view of the model receives the same message object, and deltas mutate items.
      items.set(item.id, { item: { ...item }, el });
      log.append(el);
    }
  };

  // Streamed text: re-render the markdown at most once per frame.
  const dirty = new Set<string>();
  let frame = 0;
  const delta = (id: string, text: string) => {
    const entry = items.get(id);
    if (!entry) return upsert({ id, kind: "assistant", text });
    entry.item.text = (entry.item.text ?? "") + text;
    dirty.add(id);
    if (!frame) {
      frame = requestAnimationFrame(() => {
        frame = 0;
        for (const d of dirty) drawItem(d);
        dirty.clear();
      });
    }
  };

  const drawPrompts = () => {
    const prompts = (model.get("prompts") ?? {}) as Record<string, PromptState>;
    const focused = document.activeElement;
    // Cards of open prompts, and of prompts that just closed (their card now comes from the item).
    for (const id of new Set([...Object.keys(prompts), ...promptEls.keys()])) {
      if (!items.has(id)) continue;
      const before = promptEls.get(id)?.el;
      const card = cardFor(id);
      if (card !== (before ?? null)) drawItem(id);
    }
    for (const id of Array.from(promptEls.keys())) if (!(id in prompts) && !items.get(id)?.item.prompt) promptEls.delete(id);
    loose.replaceChildren(...Object.keys(prompts).filter((id) => !items.has(id)).map((id) => cardFor(id)!).filter(Boolean));
    if (focused instanceof HTMLElement && focused.isConnected) focused.focus();
    drawChrome();
  };

  const drawChrome = () => {
    if (gone) return; // what the view shows stays as it was when the kernel went away
    const prompts = Object.values((model.get("prompts") ?? {}) as Record<string, PromptState>);
    const waiting = prompts.some((p) => p.status === "pending");
    const busy = model.get("busy");
    input.disabled = busy || waiting;
    sendBtn.disabled = busy || waiting;
    stopBtn.disabled = !busy;
    composer.hidden = model.get("mode") !== "chat";
    status.hidden = model.get("mode") !== "chat";
    setText(status, statusLine(waiting ? "waiting for your answer" : model.get("status"), model.get("usage") ?? {}));
    setText(notice, model.get("notice"));
    notice.hidden = !model.get("notice");
    setText(errorText, model.get("error"));
    errorBar.hidden = !model.get("error");
  };

  let localNotices = 0;
  const localNotice = (text: string, level: "info" | "error" = "info") =>
    upsert({ id: `local-${++localNotices}`, kind: "notice", text, level });

  const slash = (text: string): boolean => {
    const command = parseSlash(text);
    if (command === null) return false;
    if (command.kind === "help") localNotice(HELP);
    else if (command.kind === "tools") localNotice(tools().map((t) => `${t.name}: ${t.description.split("\n")[0]}`).join("\n") || "No tool here can be run by hand.");
    else if (command.kind === "status") localNotice(statusLine(model.get("status"), model.get("usage") ?? {}));
    else if (command.kind === "clear") send({ type: "clear" });
    else if (command.kind === "plugins") localNotice(pluginsText(plugins()));
    else if (command.kind === "plugin") {
      const problem = pluginProblem(command.name, plugins());
      if (problem) localNotice(problem, "error");
      else menu.changePlugin(command.name, command.action);
    }
    else if (command.kind === "error") localNotice(command.message, "error");
    else {
      const tool = tools().find((t) => t.name === command.name);
      if (!tool) return localNotice(`No tool named ${command.name} can be run by hand; /tools lists them.`, "error"), true;
      try {
        const props = ((tool.input_schema as any).properties ?? {}) as Record<string, { type?: string }>;
        const args = Object.fromEntries(
          Object.entries(command.args).map(([k, v]) => {
            try {
              return [k, coerceArg(v, props[k])];
            } catch (err) {
              throw new Error(`${k}: ${(err as Error).message}`);
            }
          }),
        );
        // A required argument not given: the tool's form, with what was given filled in.
        const required: string[] = (tool.input_schema as any).required ?? [];
        if (required.some((k) => !(k in args))) {
          menu.openForm(tool, args);
          return true;
        }
        menu.runTool(tool.name, args);
      } catch (err) {
        localNotice((err as Error).message, "error");
      }
    }
    return true;
  };

  const sendInput = () => {
    const text = input.value.trim();
    if (!text || input.disabled) return;
    input.value = "";
    follow.toEnd();
    if (slash(text)) return;
    send({ type: "send", text });
  };
  sendBtn.addEventListener("click", sendInput);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      sendInput();
    }
  });
  stopBtn.addEventListener("click", () => send({ type: "stop" }));
  dismiss.addEventListener("click", () => {
    model.set("error", "");
    model.save_changes();
  });

  const onCustom = (msg: KernelMsg, buffers?: DataView[]) => {
    if (msg.type === "renderers") modules.set(msg.renderers);
    else if (msg.type === "items") msg.items.forEach(upsert);
    else if (msg.type === "delta") delta(msg.id, msg.text);
    else if (msg.type === "snapshot") {
      msg.items.forEach((item) => (items.has(item.id) ? null : upsert(item)));
      focus.ready();
      copy.hide(); // this view has the kernel's transcript: the static copy below would show it twice
    } else if (msg.type === "cleared") {
      items.clear();
      promptEls.clear();
      log.replaceChildren();
    }
    menu.onMessage(msg);
    for (const handler of Array.from(handlers)) handler(msg, buffers);
    drawChrome();
  };
  const newPromptFocus = () => {
    drawPrompts();
    focus.update();
  };
  log.addEventListener("click", (event) => {
    const target = event.target as HTMLElement;
    if (target.classList.contains("nt-retry")) {
      (target as HTMLButtonElement).disabled = true;
      send({ type: "retry" });
    }
  });
  model.on("msg:custom", onCustom);
  model.on("change:prompts", newPromptFocus);
  for (const name of ["busy", "status", "usage", "error", "notice", "mode"]) model.on(`change:${name}`, drawChrome);

  drawPrompts();
  focus.update();
  // Announce this view (the kernel answers with a snapshot) and keep pinging, so the kernel knows a
  // person can see the prompts; a closed tab stops pinging and its view expires.
  const viewId = `view-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  send({ type: "hello", view_id: viewId });
  ping = window.setInterval(() => send({ type: "ping", view_id: viewId }), PING_MS);
  const unwatch = watchKernel((model as unknown as { widget_manager?: unknown }).widget_manager, markGone);
  return () => {
    unwatch();
    copy.dispose();
    window.clearInterval(ping);
    send({ type: "bye", view_id: viewId });
    model.off("msg:custom", onCustom);
    model.off("change:prompts", newPromptFocus);
    menu.dispose();
    focus.dispose();
    follow.dispose();
    for (const name of ["busy", "status", "usage", "error", "notice", "mode"]) model.off(`change:${name}`, drawChrome);
  };
}

function sameButError(cachedKey: string, prompt: PromptState): boolean {
  const before = JSON.parse(cachedKey) as PromptState;
  return JSON.stringify({ ...before, error: "" }) === JSON.stringify({ ...prompt, error: "" });
}

function renderItemSafe(item: Item, cardFor: (id: string, item: Item) => HTMLElement | null, results: ResultsContext): HTMLElement {
  try {
    return renderItem(item, cardFor, results);
  } catch (err) {
    return h("div", { class: "nt-notice nt-error" }, `Could not show this item: ${(err as Error).message}`);
  }
}


export default { render };
