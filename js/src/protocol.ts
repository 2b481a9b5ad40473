// Wire shapes between the kernel and this front end (mirrors notebook_tools/widgets/_protocol.py).

export type PromptKind = "confirm" | "text" | "select" | "file" | "generic" | "approval";
export type PromptStatus = "pending" | "answered" | "skipped" | "timed_out" | "cancelled" | "failed";

export interface PromptState {
  tool_use_id: string;
  name: string;
  kind: PromptKind;
  input: Record<string, unknown>;
  description: string;
  status: PromptStatus;
  answer: string;
  error: string;
  timeout: number | null;
  requested_at: number;
  output_schema: Record<string, unknown> | null;
  input_schema: Record<string, unknown> | null;
}

export type Answer = ({ value: unknown } | { skip: true } | { status: "failed"; error_text: string }) & { at?: number };

export interface Item {
  id: string;
  kind?: "user" | "assistant" | "tool" | "notice";
  text?: string;
  name?: string;
  input?: Record<string, unknown>;
  executor?: "backend" | "frontend";
  status?: "running" | "pending" | "done" | "error";
  result?: string;
  is_error?: boolean;
  duration?: number;
  discarded?: boolean;
  level?: "info" | "error";
  retry?: boolean;
}

export interface Model {
  mode: "chat" | "ask";
  status: string;
  status_detail: string;
  busy: boolean;
  usage: Record<string, number>;
  prompts: Record<string, PromptState>;
  answers: Record<string, Answer>;
  error: string;
  notice: string;
  max_upload_bytes: number;
  tools: ToolInfo[];
}

export interface ToolInfo {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export type KernelMsg =
  | { type: "items"; items: Item[] }
  | { type: "delta"; id: string; text: string }
  | { type: "snapshot"; items: Item[]; page: number; pages: number }
  | { type: "upload_ack"; upload_id: string; received: number; ok: boolean; error?: string; done?: boolean }
  | { type: "listing"; request_id: string; path: string; entries: Entry[]; error?: string }
  | { type: "manual_result"; request_id: string; ok: boolean; is_error?: boolean; error?: string }
  | { type: "cleared" };

export interface Entry {
  name: string;
  path: string;
  is_dir: boolean;
  size: number;
}
