// What an MCP app is told of the page it sits in: JupyterLab's theme (light or dark, and its colours
// and fonts as MCP Apps' style variables), the person's locale and time zone, and a watch on the
// theme, which JupyterLab marks on <body> when the person switches it.
import { type Theme, styleVariables, themeOf } from "./hostContext";

export function pageTheme(): Theme {
  const prefersDark = typeof window.matchMedia === "function" && window.matchMedia("(prefers-color-scheme: dark)").matches;
  return themeOf(document.body.getAttribute("data-jp-theme-light"), prefersDark);
}

/** The style variables as `el` sees JupyterLab's (the page's root when `el` is not on it). */
export function pageVariables(el: Element): Record<string, string> {
  const style = getComputedStyle(el.isConnected ? el : document.documentElement);
  return styleVariables((name) => style.getPropertyValue(name));
}

export function locale(): { locale: string; timeZone: string } {
  let timeZone = "UTC";
  try {
    timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || timeZone;
  } catch {
    /* no Intl time zones: UTC */
  }
  return { locale: navigator.language || "en", timeZone };
}

/** Call `onChange` when JupyterLab's theme changes; returns the function that stops watching. */
export function watchTheme(onChange: () => void): () => void {
  if (typeof MutationObserver === "undefined") return () => undefined;
  const observer = new MutationObserver(onChange);
  observer.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
  return () => observer.disconnect();
}
