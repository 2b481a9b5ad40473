import type { Renderer } from "./common";
import { h } from "../dom/dom";
import { FILTER_THRESHOLD, filterOptions } from "../form/filter";

export const renderSelect: Renderer = (ctx, body) => {
  const options = (ctx.prompt.input.options as unknown[]).map(String);
  const multiple = Boolean(ctx.prompt.input.multiple);
  const chosen = new Set<string>();
  const list = h("div", { class: "nt-options", role: multiple ? "group" : "radiogroup", "aria-label": "Options" });
  const group = `nt-${ctx.prompt.tool_use_id}`;
  const send = h("button", { class: "nt-btn nt-primary", type: "button" }, "Submit");
  const draw = (filter: string) => {
    list.replaceChildren();
    for (const option of filterOptions(options, filter)) {
      const box = h("input", { type: multiple ? "checkbox" : "radio", name: group, value: option });
      box.checked = chosen.has(option);
      box.addEventListener("change", () => {
        if (!multiple) chosen.clear();
        if (box.checked) chosen.add(option);
        else chosen.delete(option);
      });
      box.addEventListener("keydown", (event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          if (!multiple) {
            chosen.clear();
            chosen.add(option);
          }
          submit();
        }
      });
      list.append(h("label", { class: "nt-option" }, box, h("span", {}, option)));
    }
  };
  const submit = () => {
    if (chosen.size === 0) return;
    ctx.submit({ value: options.filter((o) => chosen.has(o)) });
  };
  send.addEventListener("click", submit);
  // Radios move among themselves with the arrows (the browser's own); checkboxes do not, so here the
  // arrows, Home and End move the focus among them as in a listbox, and Space ticks.
  list.addEventListener("keydown", (event) => {
    const boxes = Array.from(list.querySelectorAll<HTMLInputElement>("input:not(:disabled)"));
    const at = boxes.indexOf(event.target as HTMLInputElement);
    const to = multiple && at >= 0 ? moveTo(event.key, at, boxes.length) : null;
    if (to === null || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    boxes[to].focus();
  });
  if (options.length > FILTER_THRESHOLD) {
    const filter = h("input", { class: "nt-input nt-filter", type: "search", placeholder: "Filter options", "aria-label": "Filter options" });
    filter.addEventListener("input", () => draw(filter.value));
    filter.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowDown") return;
      const first = list.querySelector<HTMLInputElement>("input:checked") ?? list.querySelector<HTMLInputElement>("input");
      if (!first) return;
      event.preventDefault(); // from the filter into the options it left, as a combobox does
      first.focus();
    });
    body.append(filter);
  }
  draw("");
  body.append(list, h("div", { class: "nt-row" }, send));
};

/** Where a key moves the focus in a list of `count` checkboxes from index `at`; null for other keys. */
export function moveTo(key: string, at: number, count: number): number | null {
  if (key === "ArrowDown" || key === "ArrowRight") return Math.min(at + 1, count - 1);
  if (key === "ArrowUp" || key === "ArrowLeft") return Math.max(at - 1, 0);
  if (key === "Home") return 0;
  if (key === "End") return count - 1;
  return null;
}
