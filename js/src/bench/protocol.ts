// The bench's messages, mirroring notebook_tools/widgets/_bench.py (BenchView traits, _ViewMsg, _post).

/** A tool as `Tool.metadata()` gives it. */
export interface BenchTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  output_schema: Record<string, unknown> | null;
  executor: string;
  mode: string;
  needs_approval: boolean | string;
  timeout: number | null;
  category: string | null;
  tags: string[];
  icon: string | null;
  version: string | null;
  display: Record<string, unknown>;
}

export interface BenchModel {
  tools: BenchTool[];
  running: string;
}

export interface ToolEventData {
  type: string;
  call_id: string;
  tool_name: string;
  timestamp: number;
  message: string | null;
  show_spinner: boolean;
  data: Record<string, unknown>;
}

export interface CostModel { name: string; api: string; input_per_million: number | null; estimated_cost_usd: number | null }

export interface CostEstimate {
  char_count: number;
  estimated_tokens: number;
  chars_per_token: number;
  method: "estimate" | "count_tokens";
  prices_taken: string;
  models: CostModel[];
}

export interface Validation { status: "pass" | "fail" | "none" | "skipped"; errors?: { path: string; message: string }[]; message?: string }

export interface FinalPayload {
  model_facing_result: { tool_use_id: string; name: string; content: unknown; is_error: boolean };
  full_result: Record<string, unknown>;
  cost_estimate: CostEstimate | null;
  output_schema: Record<string, unknown> | null;
  validation: Validation;
}

export type StreamEvent =
  | { event: "status_update"; data: { status: string; message: string } }
  | { event: "tool_event"; data: ToolEventData }
  | { event: "error"; data: { message: string } }
  | { event: "data"; data: FinalPayload }
  | { event: "end"; data: Record<string, never> };

export type KernelMsg =
  | { type: "event"; call_id: string; event: StreamEvent; skipped?: number }
  | { type: "refused"; message: string }
  | { type: "state"; running: string; approval?: ApprovalRequest | null };

/** A call waiting for the person's yes before it runs (the run's `approval_required`). */
export interface ApprovalRequest { call_id: string; name: string; arguments: Record<string, unknown> }

export type ViewMsg =
  | { type: "execute"; name: string; arguments: Record<string, unknown> }
  | { type: "cancel" }
  | { type: "hello" }
  | { type: "approve"; call_id: string; approved: boolean };
