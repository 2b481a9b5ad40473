// What a renderer module receives, and how this view finds one: your own modules come from the kernel
// (the "renderers" message on hello) and are imported from blob URLs, as anywidget loads `_esm`; the
// built-ins (./openUrl, ./clipboard, ./download, ./notify) are in this bundle under "nt.<tool>".
import type { KernelMsg, ViewMsg } from "../wire/protocol";

/** What a renderer's exported function is called with. */
export interface RendererApi {
  /** The tool call's arguments (checked by the kernel against the tool's input schema). */
  input: Record<string, unknown>;
  /** Render into this element (inside the prompt's card). */
  el: HTMLElement;
  /** JupyterLab's theme: "dark" when `body[data-jp-theme-light="false"]`. */
  theme: "light" | "dark";
  /** The call's id. */
  toolUseId: string;
  /** Answer: a string as it is, any other JSON value as JSON; checked against the output schema. */
  submit: (answer: unknown) => void;
  /** Do not answer; the model is told, with the reason when one is given. */
  skip: (reason?: string) => void;
  /** The renderer could not do its job; the model is told why (an `is_error` result). */
  fail: (error: string) => void;
}

/** A built-in also acks with its output and may ask the kernel for data (a download's bytes). */
export interface BuiltinApi extends RendererApi {
  ack: (output: Record<string, unknown>) => void;
  send: (content: ViewMsg) => void;
  onMessage: (handler: (msg: KernelMsg, buffers?: DataView[]) => void) => () => void;
  /** This page already ran this call (a card drawn again): offer the button, do not act again. */
  again: boolean;
}

export type RendererFn = (api: RendererApi) => unknown;

export function theme(): "light" | "dark" {
  return document.body?.dataset.jpThemeLight === "false" ? "dark" : "light";
}

export const MODULE_WAIT_MS = 10_000;

/** The modules of one view's chat, by tool name, as the kernel sent them. */
export class RendererModules {
  private sources: Record<string, string> | null = null;
  private waiting: Array<() => void> = [];

  set(sources: Record<string, string>): void {
    this.sources = { ...sources };
    for (const wake of this.waiting.splice(0)) wake();
  }

  /** The render function of `name`'s module; rejects with a reason a person can read. */
  async load(name: string, waitMs = MODULE_WAIT_MS): Promise<RendererFn> {
    if (this.sources === null) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`its module did not arrive from the kernel within ${waitMs / 1000} s`)), waitMs);
        this.waiting.push(() => (clearTimeout(timer), resolve()));
      });
    }
    const source = this.sources?.[name];
    if (source === undefined) throw new Error(`the kernel sent no renderer module for ${name}`);
    let module: Record<string, unknown>;
    try {
      module = await importSource(source);
    } catch (err) {
      throw new Error(`its module could not be loaded: ${(err as Error).message}`);
    }
    const fn = pickRender(module);
    if (!fn) throw new Error("its module exports no function (export default a function, or `render`)");
    return fn;
  }
}

const imported = new Map<string, Promise<Record<string, unknown>>>();

/** Import an ES module from its source (once per page per source). */
export function importSource(source: string): Promise<Record<string, unknown>> {
  let module = imported.get(source);
  if (!module) {
    const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    module = (import(/* webpackIgnore: true */ url) as Promise<Record<string, unknown>>).finally(() => URL.revokeObjectURL(url));
    module.catch(() => imported.delete(source)); // a failed load may be tried again
    imported.set(source, module);
  }
  return module;
}

export function pickRender(module: Record<string, unknown>): RendererFn | null {
  const first = module.default;
  if (typeof first === "function") return first as RendererFn;
  const nested = (first as { render?: unknown } | undefined)?.render;
  if (typeof nested === "function") return nested as RendererFn;
  return typeof module.render === "function" ? (module.render as RendererFn) : null;
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
