// Entry point of the tool bench (anywidget): tool list, detail, argument form, and a run's panels.
import type { RenderProps } from "@anywidget/types";
import { h } from "../dom/dom";
import { setText } from "../text/sanitize";
import { keepKeysInWidget } from "../dom/keys";
import { schemaForm, type SchemaForm } from "../form/form";
import { ALL, categories, filterTools, kindText } from "./logic";
import { resultPanels } from "./panels";
import type { ApprovalRequest, BenchModel, BenchTool, KernelMsg, ViewMsg } from "./protocol";
import "./bench.css";

let views = 0; // ids of form fields stay unique when a bench is shown twice

function row(dl: HTMLElement, term: string, value: string): void {
  dl.append(h("dt", {}, term), h("dd", {}, value));
}

function parametersList(schema: Record<string, any>): HTMLElement {
  const props: Record<string, any> = schema?.properties ?? {};
  const required = new Set<string>(Array.isArray(schema?.required) ? schema.required : []);
  const names = Object.keys(props);
  if (!names.length) return h("p", { class: "nt-bench-note" }, "No parameters");
  return h("ul", { class: "nt-bench-params" }, ...names.map((name) => {
    const p = props[name] ?? {};
    const type = p.type ?? (p.enum ? "enum" : p.anyOf ? "any of" : "any");
    return h("li", {}, h("code", {}, name), required.has(name) ? " *" : "", ` (${Array.isArray(type) ? type.join(" | ") : String(type)})`,
      p.description ? ` — ${String(p.description)}` : "", p.default !== undefined ? ` · default ${JSON.stringify(p.default)}` : "");
  }));
}

function detail(tool: BenchTool): HTMLElement {
  const dl = h("dl", { class: "nt-bench-meta" });
  row(dl, "Kind", kindText(tool));
  row(dl, "Category", tool.category ?? "—");
  row(dl, "Tags", tool.tags?.length ? tool.tags.join(", ") : "—");
  row(dl, "Icon", tool.icon ?? "—");
  row(dl, "Version", tool.version ?? "—");
  row(dl, "Timeout", tool.timeout === null ? "none" : `${tool.timeout} s`);
  const notes = [`needs approval: ${String(tool.needs_approval)}`, ...Object.entries(tool.display ?? {}).map(([k, v]) => `${k}: ${JSON.stringify(v)}`)];
  row(dl, "Annotations", notes.join(" · "));
  const output = tool.output_schema
    ? h("pre", { class: "nt-bench-json" }, JSON.stringify(tool.output_schema, null, 2))
    : h("p", { class: "nt-bench-note" }, "No output schema registered");
  return h("div", { class: "nt-bench-detail" },
    h("h3", {}, tool.name),
    h("p", { class: "nt-bench-desc" }, tool.description),
    dl,
    h("details", { class: "nt-bench-more", open: true }, h("summary", {}, "Parameters"), parametersList(tool.input_schema)),
    h("details", { class: "nt-bench-more" }, h("summary", {}, "Output schema"), output));
}

function render({ model, el }: RenderProps<BenchModel>): () => void {
  const view = ++views;
  const send = (msg: ViewMsg) => model.send(msg);
  const search = h("input", { class: "nt-bench-input", type: "search", placeholder: "Search tools", "aria-label": "Search tools" });
  const category = h("select", { class: "nt-bench-input", "aria-label": "Category" });
  const list = h("ul", { class: "nt-bench-list", "aria-label": "Tools" });
  const count = h("div", { class: "nt-bench-note", "aria-live": "polite" });
  const side = h("nav", { class: "nt-bench-side", "aria-label": "Tool list" }, search, category, count, list);
  const detailBox = h("div", { class: "nt-bench-detail-box" });
  const formBox = h("div", { class: "nt-bench-form" });
  const execute = h("button", { class: "nt-bench-btn nt-bench-primary", type: "button" }, "▶ Execute");
  const cancel = h("button", { class: "nt-bench-btn", type: "button", "aria-keyshortcuts": "Escape" }, "Cancel");
  const problem = h("div", { class: "nt-bench-problem", role: "alert" });
  // A tool that needs approval waits here for the person's yes; the kernel runs it only after it.
  const question = h("p", { class: "nt-bench-question", "aria-live": "polite" });
  const askedArgs = h("pre", { class: "nt-bench-json" });
  const approve = h("button", { class: "nt-bench-btn nt-bench-primary", type: "button" }, "Approve and run");
  const deny = h("button", { class: "nt-bench-btn", type: "button" }, "Deny");
  const approval = h("div", { class: "nt-bench-approval", role: "group", "aria-label": "Approval needed", hidden: true },
    question, askedArgs, h("div", { class: "nt-bench-actions" }, approve, deny));
  const results = resultPanels();
  const argsPanel = h("section", { class: "nt-bench-panel", "aria-label": "Arguments" }, h("h4", {}, "Arguments"), formBox,
    h("div", { class: "nt-bench-actions" }, execute, cancel), approval, problem);
  const main = h("div", { class: "nt-bench-main" }, detailBox, argsPanel, results.el);
  const root = h("div", { class: "nt-bench", role: "region", "aria-label": "Tool bench" }, side, main);
  el.append(root);
  keepKeysInWidget(root);

  let selected: BenchTool | null = null;
  let form: SchemaForm | null = null;
  let shownCall = "";
  let asking = "";

  const ask = (request: ApprovalRequest | null | undefined) => {
    asking = request && typeof request.call_id === "string" ? request.call_id : "";
    approval.hidden = !asking;
    approve.disabled = deny.disabled = !asking;
    if (!request || !asking) return;
    setText(question, `${String(request.name)} needs your approval before it runs. Run it with these arguments?`);
    setText(askedArgs, JSON.stringify(request.arguments ?? {}, null, 2));
  };
  const answer = (approved: boolean) => {
    if (!asking) return;
    send({ type: "approve", call_id: asking, approved });
    approve.disabled = deny.disabled = true; // one answer; the run's next event closes the card
  };
  approve.addEventListener("click", () => answer(true));
  deny.addEventListener("click", () => answer(false));

  const tools = (): BenchTool[] => model.get("tools") ?? [];
  const running = (): boolean => !!model.get("running");

  const buttons = () => {
    execute.disabled = !selected || running();
    cancel.disabled = !running();
  };

  const buildForm = () => {
    if (!selected) return;
    const tool = selected;
    form = schemaForm(tool.input_schema as any, {}, `nt-bench${view}-${tool.name}`, { onSubmit: () => execute.click() });
    form.watch(problem);
    formBox.replaceChildren(form.el);
    setText(problem, "");
  };

  const select = (tool: BenchTool) => {
    selected = tool;
    for (const b of list.querySelectorAll<HTMLButtonElement>("button")) b.setAttribute("aria-pressed", String(b.dataset.tool === tool.name));
    detailBox.replaceChildren(detail(tool));
    buildForm();
    buttons();
  };

  const fillCategories = () => {
    const current = category.value;
    category.replaceChildren(h("option", { value: ALL }, "All categories"), ...categories(tools()).map((c) => h("option", { value: c }, c)));
    category.value = [...category.options].some((o) => o.value === current) ? current : ALL;
  };

  const fillList = () => {
    const shown = filterTools(tools(), category.value, search.value);
    list.replaceChildren(...shown.map((t) => {
      const b = h("button", { class: "nt-bench-tool", type: "button", "data-tool": t.name, "aria-pressed": String(selected?.name === t.name) },
        h("span", { class: "nt-bench-tool-name" }, t.name), h("span", { class: "nt-bench-tool-cat" }, t.category ?? ""));
      b.addEventListener("click", () => select(t));
      return h("li", {}, b);
    }));
    setText(count, `${shown.length} of ${tools().length} tools`);
  };

  list.addEventListener("keydown", (event) => {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const all = [...list.querySelectorAll<HTMLButtonElement>("button")];
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    const next = all[at + (event.key === "ArrowDown" ? 1 : -1)];
    if (next) {
      event.preventDefault();
      next.focus();
    }
  });
  search.addEventListener("input", fillList);
  category.addEventListener("change", fillList);
  execute.addEventListener("click", () => {
    if (!selected || !form || running()) return;
    let args: Record<string, unknown>;
    try {
      args = form.values();
    } catch (err) {
      setText(problem, (err as Error).message);
      return;
    }
    setText(problem, "");
    results.clear();
    send({ type: "execute", name: selected.name, arguments: args });
  });
  cancel.addEventListener("click", () => send({ type: "cancel" }));
  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && running()) {
      event.preventDefault();
      send({ type: "cancel" });
    }
  });

  const onMsg = (msg: KernelMsg) => {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "event") {
      if (msg.call_id !== shownCall) {
        shownCall = msg.call_id;
        results.clear();
      }
      results.event(msg.event, typeof msg.skipped === "number" ? msg.skipped : 0);
      const ev = msg.event;
      if (ev.event === "tool_event" && ev.data.type === "approval_required") {
        ask({ call_id: msg.call_id, name: ev.data.tool_name, arguments: (ev.data.data?.arguments ?? {}) as Record<string, unknown> });
      } else if (asking) {
        ask(null); // approved, denied, cancelled or ended: the question is gone
      }
    } else if (msg.type === "state") {
      shownCall = ""; // the last run's events follow: shown afresh, never twice
      ask(msg.approval);
    } else if (msg.type === "refused") {
      setText(problem, msg.message);
    }
  };
  const onTools = () => {
    fillCategories();
    fillList();
    const again = selected && tools().find((t) => t.name === selected!.name);
    if (again) select(again);
  };
  model.on("msg:custom", onMsg);
  model.on("change:running", buttons);
  model.on("change:tools", onTools);
  onTools();
  if (!selected && tools().length) select(tools()[0]);
  buttons();
  send({ type: "hello" });
  return () => {
    model.off("msg:custom", onMsg);
    model.off("change:running", buttons);
    model.off("change:tools", onTools);
  };
}

export default { render };
