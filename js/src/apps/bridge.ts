// An MCP app's JSON-RPC, as the host hears it: what a message from the frame is (or why it is
// refused), how many the host takes, and which answer each one gets. No DOM: what an answer needs of
// the page (the host context, the frame's size, the kernel) comes through `AppHost`, so node tests
// can drive the whole exchange.
//
// An app is untrusted code. Its messages are checked here before anything acts on them: a JSON-RPC
// 2.0 object (no batches), at most MAX_MESSAGE_BYTES of JSON, at most RATE_LIMIT a second.

/** The methods whose answer is the kernel's (each goes through the person's consent there). */
export const KERNEL_METHODS = ["tools/call", "resources/read", "ui/message", "ui/open-link", "ui/update-model-context"] as const;
export type KernelMethod = (typeof KERNEL_METHODS)[number];

export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** Messages an app may send in a second; the rest are dropped (a request among them gets an error). */
export const RATE_LIMIT = 50;
/** Requests of one app the kernel may have waiting at once: a flood of them would queue consent cards. */
export const MAX_WAITING = 20;

export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** JSON-RPC's range for a server's own errors: here, too many messages or requests. */
export const TOO_MANY = -32000;

export type RpcId = string | number;
export interface RpcError { code: number; message: string }

/** A message from an app, checked. A response answers one of the host's own requests. */
export type Rpc =
  | { kind: "request"; id: RpcId; method: string; params: unknown }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "response"; id: RpcId; result?: unknown; error?: unknown };

/** A message refused, with the request id to answer when there is one. */
export interface Refused { kind: "refused"; id: RpcId | null; reason: string }

/** What the host side does for the app; a frame implements it with the page's DOM and the kernel. */
export interface AppHost {
  /** The `ui/initialize` result. */
  initialize(): Record<string, unknown>;
  /** The app said `ui/notifications/initialized`: notifications may flow. */
  initialized(): void;
  /** The display mode asked for (unchecked); returns the mode now. */
  displayMode(requested: unknown): string;
  /** The app's content height in px, clamped (`clampHeight`). */
  resize(height: number): void;
  /** The number of this app's requests the kernel has not answered yet. */
  waiting(): number;
  /** Pass a request to the kernel; `answer` is called once, with its result or its error. */
  forward(method: KernelMethod, params: Record<string, unknown>, answer: (reply: { result: unknown } | { error: RpcError }) => void): void;
  /** An answer to one of the host's own requests (`ui/resource-teardown`). */
  response(id: RpcId): void;
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);

const isId = (v: unknown): v is RpcId => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));

/** How large `data` is as JSON, for the size limit: UTF-8 bytes where that decides, else its length,
 * which is then on the same side of the limit. Null when it is no JSON (a cycle, a BigInt, a function). */
export function jsonBytes(data: unknown): number | null {
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch {
    return null;
  }
  if (text === undefined) return null;
  // UTF-8 takes 1-3 bytes per UTF-16 unit: count exactly only where the bounds do not decide.
  if (text.length > MAX_MESSAGE_BYTES || text.length * 3 <= MAX_MESSAGE_BYTES) return text.length;
  return new TextEncoder().encode(text).length;
}

/** What `data` (a message event's, as the frame sent it) is: a request, a notification, a response, or refused. */
export function parseMessage(data: unknown, maxBytes = MAX_MESSAGE_BYTES): Rpc | Refused {
  if (!isPlainObject(data) || data.jsonrpc !== "2.0") return { kind: "refused", id: null, reason: "not a JSON-RPC 2.0 object" };
  const id = "id" in data ? data.id : undefined;
  const answerable = isId(id) && typeof data.method === "string" ? id : null;
  const size = jsonBytes(data);
  if (size === null) return { kind: "refused", id: answerable, reason: "not JSON" };
  if (size > maxBytes) return { kind: "refused", id: answerable, reason: `larger than ${maxBytes} bytes` };
  if ("method" in data) {
    if (typeof data.method !== "string") return { kind: "refused", id: null, reason: "its method is not a string" };
    if (id === undefined) return { kind: "notification", method: data.method, params: data.params };
    if (!isId(id)) return { kind: "refused", id: null, reason: "its id is neither a string nor a number" };
    return { kind: "request", id, method: data.method, params: data.params };
  }
  if (isId(id) && ("result" in data || "error" in data)) return { kind: "response", id, result: data.result, error: data.error };
  return { kind: "refused", id: null, reason: "neither a request, a notification nor a response" };
}

/** A token bucket: `limit` messages at once, refilled at `limit` a second. */
export function rateLimiter(limit = RATE_LIMIT, now: () => number = Date.now): () => boolean {
  let tokens = limit;
  let last = now();
  return () => {
    const t = now();
    tokens = Math.min(limit, tokens + ((t - last) / 1000) * limit);
    last = t;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}

export const HEIGHT_MIN = 48;
export const HEIGHT_MAX = 640;

/** The inline frame's height for an app's reported height: null for what is no number. */
export function clampHeight(height: unknown): number | null {
  if (typeof height !== "number" || Number.isNaN(height)) return null;
  return Math.round(Math.min(HEIGHT_MAX, Math.max(HEIGHT_MIN, height)));
}

/** The display modes this host has; another asked for leaves the mode as it is. */
export function nextMode(current: string, requested: unknown): string {
  return requested === "inline" || requested === "fullscreen" ? requested : current;
}

export const result = (id: RpcId, value: unknown) => ({ jsonrpc: "2.0" as const, id, result: value });
export const failure = (id: RpcId | null, code: number, message: string) => ({ jsonrpc: "2.0" as const, id, error: { code, message } });
export const notice = (method: string, params: Record<string, unknown>) => ({ jsonrpc: "2.0" as const, method, params });

/** The kernel's error as the app receives it: a whole-number code and a message, whatever came. */
export function rpcError(error: unknown): RpcError {
  const e = isPlainObject(error) ? error : {};
  return {
    code: typeof e.code === "number" && Number.isInteger(e.code) ? e.code : INTERNAL_ERROR,
    message: typeof e.message === "string" ? e.message : "the kernel refused the request",
  };
}

/** Handle one checked message: the host acts, and `reply` carries the answer to a request (once). */
export function dispatch(rpc: Rpc, host: AppHost, reply: (message: object) => void): void {
  if (rpc.kind === "response") return host.response(rpc.id);
  if (rpc.kind === "notification") {
    if (rpc.method === "ui/notifications/initialized") host.initialized();
    else if (rpc.method === "ui/notifications/size-changed") {
      const height = clampHeight(isPlainObject(rpc.params) ? rpc.params.height : undefined);
      if (height !== null) host.resize(height);
    }
    return; // logging (notifications/message) and every other notification: nothing to do
  }
  const { id, method, params } = rpc;
  switch (method) {
    case "ui/initialize":
      return reply(result(id, host.initialize()));
    case "ping":
      return reply(result(id, {}));
    case "ui/request-display-mode":
      return reply(result(id, { mode: host.displayMode(isPlainObject(params) ? params.mode : undefined) }));
  }
  if (!(KERNEL_METHODS as readonly string[]).includes(method)) return reply(failure(id, METHOD_NOT_FOUND, "method not found"));
  if (!isPlainObject(params)) return reply(failure(id, INVALID_PARAMS, "params must be an object"));
  if (host.waiting() >= MAX_WAITING) return reply(failure(id, TOO_MANY, `too many requests waiting (at most ${MAX_WAITING})`));
  host.forward(method as KernelMethod, params, (answer) =>
    reply("error" in answer ? failure(id, answer.error.code, answer.error.message) : result(id, answer.result ?? {})));
}

/** The host's ear for one app: every message the frame sends goes through here. */
export function bridge(host: AppHost, reply: (message: object) => void, now: () => number = Date.now): (data: unknown) => void {
  const take = rateLimiter(RATE_LIMIT, now);
  return (data) => {
    if (!take()) {
      // Dropped unread; a request among them still learns why (its id is read, nothing else).
      const id = isPlainObject(data) && typeof data.method === "string" && isId(data.id) ? data.id : null;
      if (id !== null) reply(failure(id, TOO_MANY, `too many messages (at most ${RATE_LIMIT} a second)`));
      return;
    }
    const rpc = parseMessage(data);
    if (rpc.kind === "refused") {
      if (rpc.id !== null) reply(failure(rpc.id, INVALID_REQUEST, `invalid request: ${rpc.reason}`));
      return;
    }
    dispatch(rpc, host, reply);
  };
}
