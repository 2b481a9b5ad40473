import type { Renderer } from "./common";
import { h } from "../dom";
import { FILTER_THRESHOLD, filterOptions } from "../filter";

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
  if (options.length > FILTER_THRESHOLD) {
    const filter = h("input", { class: "nt-input nt-filter", type: "search", placeholder: "Filter options", "aria-label": "Filter options" });
    filter.addEventListener("input", () => draw(filter.value));
    body.append(filter);
  }
  draw("");
  body.append(list, h("div", { class: "nt-row" }, send));
};
