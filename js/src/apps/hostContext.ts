// What the host tells an MCP app: who it is and how it looks (the `ui/initialize` result, its theme
// as MCP Apps' style variables, read from JupyterLab's), and the tool call it shows (its input, then
// its result, each once, and only once the app said it is initialized). No DOM: the page's values
// come in as arguments.
import type { Item } from "../wire/protocol";
import { isPlainObject } from "./bridge";

export const PROTOCOL_VERSION = "2026-01-26";
export const HOST_INFO = { name: "notebook_tools", version: "1.0.0" };
export const DISPLAY_MODES = ["inline", "fullscreen"] as const;

export type Theme = "light" | "dark";

// MCP Apps' style variables from JupyterLab's: a `--jp-*` name is read from the page, anything else
// is the value itself. Keys JupyterLab has nothing for are left out (the spec lets a host give any subset).
const STYLE_SOURCES: Record<string, string> = {
  "--color-background-primary": "--jp-layout-color0",
  "--color-background-secondary": "--jp-layout-color1",
  "--color-background-tertiary": "--jp-layout-color2",
  "--color-background-inverse": "--jp-inverse-layout-color0",
  "--color-background-ghost": "transparent",
  "--color-background-info": "--jp-info-color3",
  "--color-background-danger": "--jp-error-color3",
  "--color-background-success": "--jp-success-color3",
  "--color-background-warning": "--jp-warn-color3",
  "--color-background-disabled": "--jp-layout-color3",
  "--color-text-primary": "--jp-ui-font-color0",
  "--color-text-secondary": "--jp-ui-font-color1",
  "--color-text-tertiary": "--jp-ui-font-color2",
  "--color-text-inverse": "--jp-ui-inverse-font-color0",
  "--color-text-ghost": "--jp-ui-font-color3",
  "--color-text-info": "--jp-info-color0",
  "--color-text-danger": "--jp-error-color0",
  "--color-text-success": "--jp-success-color0",
  "--color-text-warning": "--jp-warn-color0",
  "--color-text-disabled": "--jp-ui-font-color3",
  "--color-border-primary": "--jp-border-color1",
  "--color-border-secondary": "--jp-border-color2",
  "--color-border-tertiary": "--jp-border-color3",
  "--color-border-inverse": "--jp-inverse-border-color",
  "--color-border-ghost": "transparent",
  "--color-border-info": "--jp-info-color1",
  "--color-border-danger": "--jp-error-color1",
  "--color-border-success": "--jp-success-color1",
  "--color-border-warning": "--jp-warn-color1",
  "--color-border-disabled": "--jp-border-color3",
  "--color-ring-primary": "--jp-brand-color1",
  "--color-ring-secondary": "--jp-brand-color2",
  "--color-ring-info": "--jp-info-color1",
  "--color-ring-danger": "--jp-error-color1",
  "--color-ring-success": "--jp-success-color1",
  "--color-ring-warning": "--jp-warn-color1",
  "--font-sans": "--jp-ui-font-family",
  "--font-mono": "--jp-code-font-family",
  "--font-weight-normal": "400",
  "--font-weight-medium": "500",
  "--font-weight-semibold": "600",
  "--font-weight-bold": "700",
  "--font-text-xs-size": "--jp-ui-font-size0",
  "--font-text-sm-size": "--jp-ui-font-size1",
  "--font-text-md-size": "--jp-content-font-size1",
  "--font-text-lg-size": "--jp-content-font-size2",
  "--font-heading-xs-size": "--jp-content-font-size1",
  "--font-heading-sm-size": "--jp-content-font-size2",
  "--font-heading-md-size": "--jp-content-font-size3",
  "--font-heading-lg-size": "--jp-content-font-size4",
  "--font-heading-xl-size": "--jp-content-font-size5",
  "--font-text-md-line-height": "--jp-content-line-height",
  "--font-heading-md-line-height": "--jp-content-heading-line-height",
  "--border-radius-xs": "--jp-border-radius",
  "--border-radius-sm": "--jp-border-radius",
  "--border-radius-md": "--jp-border-radius",
  "--border-radius-full": "9999px",
  "--border-width-regular": "--jp-border-width",
  "--shadow-sm": "--jp-elevation-z1",
  "--shadow-md": "--jp-elevation-z4",
  "--shadow-lg": "--jp-elevation-z8",
};

/** MCP Apps' style variables, with `read(name)` giving a `--jp-*` variable's computed value ("" when unset). */
export function styleVariables(read: (jpName: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, source] of Object.entries(STYLE_SOURCES)) {
    const value = source.startsWith("--jp-") ? String(read(source) ?? "").trim() : source;
    if (value) out[key] = value;
  }
  return out;
}

/** The theme from JupyterLab's `data-jp-theme-light` on the body; without it, the system's preference. */
export function themeOf(lightAttr: string | null, prefersDark: boolean): Theme {
  if (lightAttr === "true") return "light";
  if (lightAttr === "false") return "dark";
  return prefersDark ? "dark" : "light";
}

export interface HostState {
  toolUseId: string;
  /** The tool as its server listed it (from `app_resource`). */
  tool: Record<string, unknown>;
  theme: Theme;
  variables: Record<string, string>;
  displayMode: string;
  dimensions: Record<string, number>;
  locale: string;
  timeZone: string;
}

export function hostContext(s: HostState): Record<string, unknown> {
  return {
    toolInfo: { id: s.toolUseId, tool: s.tool },
    theme: s.theme,
    styles: { variables: s.variables },
    displayMode: s.displayMode,
    availableDisplayModes: [...DISPLAY_MODES],
    containerDimensions: s.dimensions,
    locale: s.locale,
    timeZone: s.timeZone,
    platform: "web",
  };
}

export function initializeResult(s: HostState): Record<string, unknown> {
  return {
    protocolVersion: PROTOCOL_VERSION,
    hostInfo: { ...HOST_INFO },
    hostCapabilities: { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, message: { text: {} } },
    hostContext: hostContext(s),
  };
}

/** The `ui/notifications/tool-result` params for the call as `item` has it; null while it runs. */
export function toolResult(item: Item): Record<string, unknown> | null {
  const text = (isError: boolean) => ({ content: [{ type: "text", text: item.result ?? "" }], isError });
  if (item.status === "error") return text(true);
  if (item.status !== "done") return null;
  // The server's own CallToolResult when the kernel kept it; else (a transcript rebuilt from
  // history after a restart) what the model read.
  const data = item.shown?.kind === "mcp.app" && isPlainObject(item.shown.data) ? item.shown.data.result : undefined;
  if (isPlainObject(data) && Array.isArray(data.content)) return data;
  return text(item.is_error === true);
}

/** Which of the call's notifications an app has had. */
export interface Delivery { initialized: boolean; input: boolean; result: boolean; partial?: string }

export const NOTHING_DELIVERED: Delivery = { initialized: false, input: false, result: false };

/** The notifications due to an app for `item`, and what it will then have had. Nothing before it is initialized. */
export function due(state: Delivery, item: Item): { state: Delivery; out: Array<{ method: string; params: Record<string, unknown> }> } {
  if (!state.initialized) return { state, out: [] };
  const out: Array<{ method: string; params: Record<string, unknown> }> = [];
  const next = { ...state };
  if (!state.input && item.streaming) {
    // The arguments as far as they have streamed: each new form once (the final ones come as tool-input).
    const partial = JSON.stringify(item.input ?? {});
    if (partial !== state.partial) {
      out.push({ method: "ui/notifications/tool-input-partial", params: { arguments: item.input ?? {} } });
      next.partial = partial;
    }
    return { state: next, out };
  }
  if (!state.input) {
    out.push({ method: "ui/notifications/tool-input", params: { arguments: item.input ?? {} } });
    next.input = true;
  }
  const params = state.result ? null : toolResult(item);
  if (params) {
    out.push({ method: "ui/notifications/tool-result", params });
    next.result = true;
  }
  return { state: next, out };
}
