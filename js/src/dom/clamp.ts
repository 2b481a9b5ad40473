// Long content shown a few lines high, with "Show more" when (and only when) there is more.
//
// Whether content overflows depends on its width, which changes with the notebook's layout, so a
// ResizeObserver shows or hides the toggle; nothing is guessed from the text's length. The height
// comes from a class (nt-clamp-2 ... nt-clamp-8), never an inline style.
import { h } from "./dom";

export type ClampLines = 2 | 3 | 4 | 6 | 8;

function watch(targets: Element[], measure: () => void): void {
  if (typeof ResizeObserver === "undefined") return; // no layout (node tests): the toggle stays hidden
  // One observer per clamp: it lives as long as its elements do, so a card drawn again leaks nothing.
  const observer = new ResizeObserver(() => {
    if (targets[0].isConnected) measure();
  });
  for (const target of targets) observer.observe(target);
}

/** `content` at most `lines` lines high, followed by a "Show more" / "Show less" toggle when it is taller. */
export function clamp(content: HTMLElement, lines: ClampLines = 3, what = "more"): HTMLElement {
  content.classList.add("nt-clamped", `nt-clamp-${lines}`);
  const toggle = h("button", { class: "nt-btn nt-link nt-more", type: "button", "aria-expanded": "false", hidden: true }, `Show ${what}`);
  const box = h("div", { class: "nt-clamp" }, content, toggle);
  toggle.addEventListener("click", () => {
    const open = box.classList.toggle("nt-open");
    toggle.textContent = open ? "Show less" : `Show ${what}`;
    toggle.setAttribute("aria-expanded", String(open));
  });
  const measure = () => {
    if (box.classList.contains("nt-open")) return;
    const over = content.scrollHeight > content.clientHeight + 1;
    box.classList.toggle("nt-overflowing", over);
    toggle.hidden = !over;
  };
  // The box's width changes what fits; the content's height changes when it is shorter than the clamp.
  watch([box, content], measure);
  return box;
}
