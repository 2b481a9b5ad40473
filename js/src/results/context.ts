// What a result view may use of its widget: send a message to the kernel, hear its replies.
import type { Item, KernelMsg, ViewMsg } from "../wire/protocol";

export interface ResultsContext {
  send: (msg: ViewMsg) => void;
  onMessage: (handler: (msg: KernelMsg) => void) => () => void;
  /** The view's MCP apps (apps/registry.ts): a card's app element. None with no kernel to run them. */
  apps?: { frameFor(item: Item): HTMLElement };
}

/** For a view with no kernel to ask (a test, a copy of the transcript): nothing is sent. */
export const NO_KERNEL: ResultsContext = { send: () => undefined, onMessage: () => () => undefined };
