// generated from notebook_tools/widgets/_wire.py — do not edit.
// Regenerate with `cd js && npm run gen` (via src/generated/protocol.schema.json); tests/widgets/test_wire.py checks it.

/**
 * Every message the kernel sends to its views, told apart by `type`.
 */
export type KernelMessage =
  | ItemsMsg
  | DeltaMsg
  | SnapshotMsg
  | UploadAckMsg
  | ListingMsg
  | ManualResultMsg
  | PluginResultMsg
  | ClearedMsg
  | RenderersMsg
  | DownloadChunkMsg
  | ResultRowsMsg
  | AppResourceMsg
  | AppReplyMsg;
/**
 * One answer to one prompt, in the `answer` message or the `answers` trait.
 */
export type Answer = ValueAnswer | SkipAnswer | SuccessAck | FailedAck | TimeoutAck;
/**
 * Every message a view sends to the kernel, told apart by `type`.
 */
export type ViewMessage =
  | HelloMsg
  | PingMsg
  | ByeMsg
  | RetryMsg
  | ManualToolMsg
  | ClearMsg
  | SendMsg
  | StopMsg
  | AnswerMsg
  | UploadStartMsg
  | UploadChunkMsg
  | ListDirMsg
  | DownloadMsg
  | PluginMsg
  | ResultPageMsg
  | ContinueMsg
  | AppOpenMsg
  | AppRequestMsg;

/**
 * What crosses the widget's comm (notebook_tools/widgets/_wire.py).
 */
export interface WireProtocol {
  kernel: KernelMessage;
  traits: Traits;
  view: ViewMessage;
}
/**
 * Transcript items added or changed.
 */
export interface ItemsMsg {
  items: Item[];
  type: "items";
}
/**
 * One transcript entry; only `id` is always there, since an update carries what changed.
 */
export interface Item {
  /**
   * What a running tool last reported (None once its call ended: the result replaces it).
   */
  activity?: Activity | null;
  /**
   * A turn notice's advice: what to do about it.
   */
  advice?: string;
  /**
   * A tool whose MCP server ships an interface: the app the card shows (its HTML: `app_resource`).
   */
  app?: AppRef;
  /**
   * A turn notice that offers a Continue button (the `continue` message).
   */
  can_continue?: boolean;
  /**
   * An error notice's technical details (error class, HTTP status, the API's message), shown folded.
   */
  details?: string;
  /**
   * Streamed text of a request that is being retried: hidden.
   */
  discarded?: boolean;
  /**
   * Seconds the tool ran.
   */
  duration?: number;
  /**
   * A code execution's code and output.
   */
  execution?: Execution;
  /**
   * Who runs the tool: the kernel, or the person through a prompt.
   */
  executor?: "backend" | "frontend";
  /**
   * A turn notice's explanation from the API (a refusal's category and reason).
   */
  explanation?: string;
  /**
   * A tool search's result: the names of the tools it found.
   */
  found?: string[];
  /**
   * Stable across updates: an update is merged into the item with this id.
   */
  id: string;
  /**
   * A tool card's arguments.
   */
  input?: {
    [k: string]: unknown;
  };
  is_error?: boolean;
  /**
   * "prompt": a closed prompt with no tool card of its own (`nt.ask`); "event": a one-line note of
   * something that happened (a plugin expanded, a skill activated, tools changed by a result, a block
   * this front end does not know); "thinking": the model's thinking (streamed, shown folded);
   * "server_tool": a call the API ran itself (web search, web fetch, code execution, MCP, ...) with its
   * result; "compaction": the earlier conversation summarized (`text` is the summary).
   */
  kind?: "user" | "assistant" | "tool" | "notice" | "prompt" | "event" | "thinking" | "server_tool" | "compaction";
  /**
   * A notice's level ("warning": the turn ended early, `TurnNotice`).
   */
  level?: "info" | "warning" | "error";
  /**
   * A server tool's result as links: web search results, a fetched page.
   */
  links?: Link[];
  /**
   * An assistant item's citation markers: footnote numbers at offsets of `text`.
   */
  marks?: Mark[];
  /**
   * A tool card's tool.
   */
  name?: string;
  /**
   * A closed prompt (answered, skipped, timed out, ...) shown on its card. Open prompts live in
   * the `prompts` trait; once one closes it moves here, so the synced (and saved) state stays small.
   */
  prompt?: PromptState;
  /**
   * A thinking section whose content the API encrypted (shown as "Thinking (redacted)").
   */
  redacted?: boolean;
  /**
   * A preview of the tool's result (what the model read).
   */
  result?: string;
  /**
   * An error notice that offers a Retry button.
   */
  retry?: boolean;
  /**
   * The result's rich form when the tool returned one (a table, a diff, an image): its view.
   */
  shown?: Shown;
  /**
   * An assistant item's cited sources, numbered as its `marks` refer to them.
   */
  sources?: Source[];
  /**
   * A tool's; a thinking section's "running" while it streams, "done" once complete.
   */
  status?: "running" | "pending" | "done" | "error";
  /**
   * An app's call whose arguments are still streaming in (`input` is as far as they go).
   */
  streaming?: boolean;
  /**
   * A message's text or a notice's (streamed assistant text grows by `delta`s).
   */
  text?: string;
}
/**
 * A running call's latest reports, sent at most about ten times a second (`Transcript`).
 */
export interface Activity {
  /**
   * How far along, 0.0-1.0 (None: unknown, no bar).
   */
  fraction: number | null;
  /**
   * What it said with its progress.
   */
  message: string;
  /**
   * Its latest partial result, cut.
   */
  preview: string;
  /**
   * Its latest step on one line, "scraping · urls_scraped 3 / urls_total 5" ("" before any).
   */
  step: string;
}
/**
 * A tool card's MCP app: which server's interface, for which of its tools.
 */
export interface AppRef {
  /**
   * The server's name (its plugin's).
   */
  server: string;
  /**
   * The tool's name on the server (what the app's `tools/call` names).
   */
  tool: string;
  /**
   * The `ui://` resource holding the app's HTML.
   */
  uri: string;
}
/**
 * Code the API ran (code execution, bash, the text editor) and what came out.
 */
export interface Execution {
  /**
   * The code or command ("" until the call's input is known).
   */
  code: string;
  /**
   * How to colour `code` ("python", "bash", "" for none).
   */
  language: string;
  /**
   * None until it ran (or when the tool gives none, like the text editor).
   */
  return_code: number | null;
  stderr: string;
  stdout: string;
}
/**
 * A page a server tool found or fetched.
 */
export interface Link {
  /**
   * A search result's age ("2 days ago"), a fetched page's type, or "".
   */
  detail: string;
  title: string;
  /**
   * As the API gave it; only http(s) URLs become links.
   */
  url: string;
}
/**
 * A footnote marker: after `at` characters of the item's text, source `n` is cited.
 */
export interface Mark {
  at: number;
  /**
   * The source's number in `sources`.
   */
  n: number;
  /**
   * The text cited from the source (the marker's tooltip).
   */
  quote: string;
}
/**
 * One prompt: an open one in the `prompts` trait (by tool_use_id), a closed one on its item.
 */
export interface PromptState {
  /**
   * What was answered, as shown to the person (empty while pending).
   */
  answer: string;
  description: string;
  /**
   * An approval card: whether it offers to edit the arguments (false for an agent that takes no
   * edited input, an ACP agent).
   */
  editable: boolean;
  /**
   * Why the last answer was refused (empty when none was).
   */
  error: string;
  input: {
    [k: string]: unknown;
  };
  /**
   * For approval cards the schema the "edit the arguments" form is built from; for a custom tool's
   * card (kind "generic"), where its arguments' descriptions come from.
   */
  input_schema: {
    [k: string]: unknown;
  } | null;
  kind: "confirm" | "text" | "select" | "file" | "generic" | "approval" | "custom";
  name: string;
  output_schema: {
    [k: string]: unknown;
  } | null;
  /**
   * An approval card whose tool previews its calls: the diff or command that will run, shown above
   * the arguments (None for other cards, and once the prompt is closed).
   */
  preview: PromptPreview | null;
  /**
   * An approval card: why this call asks (empty when the tool gives no reasons).
   */
  reasons: string[];
  /**
   * Kind "custom": the renderer's name (the tool's own module, from `renderers`, or a built-in
   * of the widget's bundle: "nt.open_url" and the like); "" for every other kind.
   */
  renderer: string;
  /**
   * When it opened, in seconds since the epoch (the view counts the timeout down from it).
   */
  requested_at: number;
  /**
   * An approval card whose tool has scopes: what "remember for calls like this" covers ("" for
   * other cards: no such choice).
   */
  scope: string;
  status: "pending" | "answered" | "skipped" | "timed_out" | "cancelled" | "failed";
  /**
   * Seconds the prompt waits for an answer (None: no limit).
   */
  timeout: number | null;
  tool_use_id: string;
}
/**
 * What an approval card's call will do (its tool's `approval_preview`), shown as plain text.
 */
export interface PromptPreview {
  /**
   * "diff": lines starting "+" and "-" are added and removed; "command": shell input; "text": as it is.
   */
  kind: "diff" | "command" | "text";
  text: string;
}
/**
 * What the person sees of a tool's result: its kind's view, the data cut to a bound.
 */
export interface Shown {
  /**
   * The kind's fields (a table: its first page, never the whole frame).
   */
  data: unknown;
  display: ShownDisplay;
  files: ShownFile[];
  /**
   * A well-known kind (text, diff, file_content, file_list, json, table, binary) or a custom one
   * ("git.status"), shown as a JSON tree.
   */
  kind: string;
  mime_type: string | null;
  /**
   * What was cut to keep the message small (long texts, long lists, deep nesting).
   */
  note?: string;
  /**
   * One line, always shown (also when the view is hidden or folded).
   */
  summary: string | null;
}
/**
 * The result's display hints (see `notebook_tools.results.DisplayHints`).
 */
export interface ShownDisplay {
  /**
   * Start folded: only the summary shows until the person opens it.
   */
  collapsed: boolean;
  /**
   * For `code`: the language to highlight.
   */
  language: string | null;
  /**
   * Pixels before the view scrolls.
   */
  max_height: number | null;
  /**
   * The preferred view (None: the kind's own).
   */
  view: ("text" | "markdown" | "code" | "table" | "tree" | "hidden") | null;
}
/**
 * A binary part of a result (an image, a PDF, any file).
 */
export interface ShownFile {
  /**
   * The bytes as base64; absent when the file is over the size a card carries (see `note`).
   */
  data?: string;
  filename: string | null;
  mime_type: string;
  /**
   * Why the bytes are not here.
   */
  note?: string;
  /**
   * Bytes of the whole file.
   */
  size: number;
}
/**
 * A cited source: a web page (http(s) `url`) or a document (title only).
 */
export interface Source {
  n: number;
  /**
   * The first text cited from it.
   */
  quote: string;
  title: string;
  /**
   * The page's URL as the API gave it; "" for a document. Only http(s) URLs become links.
   */
  url: string;
}
/**
 * More streamed text for an assistant item.
 */
export interface DeltaMsg {
  id: string;
  /**
   * Appended to the item's text.
   */
  text: string;
  type: "delta";
}
/**
 * The whole transcript for a view that said hello, in pages of about 1 MiB.
 */
export interface SnapshotMsg {
  items: Item[];
  /**
   * 0, 1, ... of `pages`.
   */
  page: number;
  pages: number;
  type: "snapshot";
}
/**
 * The reply to `upload_start` and to each `upload_chunk`.
 */
export interface UploadAckMsg {
  /**
   * Every byte arrived: the file is saved.
   */
  done?: boolean;
  /**
   * Why the upload was refused (when not ok).
   */
  error?: string;
  ok: boolean;
  /**
   * Bytes received so far.
   */
  received: number;
  type: "upload_ack";
  upload_id: string;
}
/**
 * The reply to `list_dir`.
 */
export interface ListingMsg {
  /**
   * Folders first, then the files `accept` takes; hidden ones and links out of the root are left out.
   */
  entries: Entry[];
  /**
   * Why the folder could not be listed (entries is then empty).
   */
  error?: string;
  /**
   * The folder's full path on the kernel's machine (absent when it could not be listed).
   */
  folder?: string;
  /**
   * Hidden files and links out of the root, never offered.
   */
  hidden?: number;
  /**
   * Files the filter left out.
   */
  other?: number;
  path: string;
  request_id: string;
  type: "listing";
}
/**
 * One file or folder in a `listing`.
 */
export interface Entry {
  is_dir: boolean;
  /**
   * What its name implies ("" for a folder).
   */
  media_type: string;
  name: string;
  /**
   * Relative to the chat's root, with "/" separators.
   */
  path: string;
  /**
   * Bytes (0 for a folder).
   */
  size: number;
}
/**
 * The reply to `manual_tool`.
 */
export interface ManualResultMsg {
  /**
   * When it did not run: why.
   */
  error?: string;
  /**
   * When it ran: whether its result is an error.
   */
  is_error?: boolean;
  /**
   * The tool ran (its result may still be an error).
   */
  ok: boolean;
  request_id: string;
  type: "manual_result";
}
/**
 * The reply to `plugin`.
 */
export interface PluginResultMsg {
  /**
   * Why the plugin was not changed (busy, unknown name).
   */
  error?: string;
  ok: boolean;
  request_id: string;
  type: "plugin_result";
}
/**
 * The conversation was cleared: views empty their transcript.
 */
export interface ClearedMsg {
  type: "cleared";
}
/**
 * The modules of the chat's custom renderers, sent to a view that said hello (before its snapshot).
 *
 * A message, not a synced trait: the sources are not saved in the notebook with the widget state.
 */
export interface RenderersMsg {
  /**
   * Tool name -> the ES module's source.
   */
  renderers: {
    [k: string]: string;
  };
  type: "renderers";
}
/**
 * A piece of a `download`'s file as the message's one binary buffer (none when `error`).
 */
export interface DownloadChunkMsg {
  /**
   * Why the file cannot be sent (outside the root, hidden, missing, too big).
   */
  error?: string;
  /**
   * What to save it as.
   */
  filename: string;
  /**
   * The file is complete (or refused).
   */
  last: boolean;
  media_type: string;
  request_id: string;
  seq: number;
  /**
   * The whole file's bytes.
   */
  size: number;
  type: "download_chunk";
}
/**
 * The reply to `result_page`: a page of rows, or why there is none.
 */
export interface ResultRowsMsg {
  /**
   * Why there are no rows (the table is gone after a restart, the start is past the end, ...).
   */
  error?: string;
  /**
   * The rows' index labels (empty with `error`).
   */
  index: unknown[];
  request_id: string;
  /**
   * Cells, row by row, in the table's columns (empty with `error`).
   */
  rows: unknown[][];
  /**
   * The page's first row (as asked, or the error's request).
   */
  start: number;
  tool_use_id: string;
  type: "result_rows";
}
/**
 * The reply to `app_open`: the app's HTML and the sandbox it asked for, or why there is none.
 */
export interface AppResourceMsg {
  /**
   * The frame's permissions policy (`allow`): the permissions the resource declared, nothing more.
   */
  allow: string;
  /**
   * The Content-Security-Policy the frame enforces, built from the declared domains only.
   */
  csp: string;
  /**
   * Why the app cannot be shown (the server is gone, the resource is not an app, too big, ...).
   */
  error?: string;
  /**
   * The app's document (empty with `error`).
   */
  html: string;
  /**
   * The resource's `prefersBorder` (None: it did not say).
   */
  prefers_border: boolean | null;
  request_id: string;
  /**
   * The tool as the server listed it (the app's host context names it).
   */
  tool: {
    [k: string]: unknown;
  };
  tool_use_id: string;
  type: "app_resource";
}
/**
 * The reply to `app_request`: the JSON-RPC result, or its error.
 */
export interface AppReplyMsg {
  error?: AppError;
  request_id: string;
  result?: {
    [k: string]: unknown;
  };
  tool_use_id: string;
  type: "app_reply";
}
/**
 * A JSON-RPC error for the app.
 */
export interface AppError {
  code: number;
  message: string;
}
/**
 * The Chat widget's synced traits (the front end's `Model`).
 */
export interface Traits {
  /**
   * A view may answer here instead of by `answer` message (ours never does).
   */
  answers: {
    [k: string]: Answer;
  };
  busy: boolean;
  /**
   * The last refused message or answer ("" once dismissed).
   */
  error: string;
  max_upload_bytes: number;
  /**
   * "chat" with an agent; "ask" for prompts only (`nt.ask`).
   */
  mode: "chat" | "ask";
  notice: string;
  /**
   * The plugins of the session (empty without plugins).
   */
  plugins: PluginInfo[];
  /**
   * The open prompts only (answered ones are on their transcript items).
   */
  prompts: {
    [k: string]: PromptState;
  };
  status: string;
  status_detail: string;
  tools: ToolInfo[];
  /**
   * Token counts and cost of the session, of this turn, and how full the context window is.
   */
  usage: UsageState;
}
/**
 * The person's answer; its shape depends on the prompt's kind (the kernel checks it).
 */
export interface ValueAnswer {
  /**
   * When the view submitted it: a new attempt with the same value is still a new answer.
   * Only its change matters (our front end sends milliseconds, ScriptedUser seconds).
   */
  at?: number;
  /**
   * A confirm: "yes" or "no"; a text: a string; a select: a list of options; a file:
   * {"uploads": [upload_id, ...]} or {"paths": [...]}; an approval: {"approved": ...}.
   */
  value: unknown;
}
/**
 * The person pressed Skip (no key skips in the widget; in the terminal, Esc or /skip).
 */
export interface SkipAnswer {
  at?: number;
  /**
   * Why, in the person's (or a renderer's) words: the model is told it.
   */
  reason?: string;
  skip: true;
}
/**
 * An ack in its long form: the front end ran the tool and this is its output.
 */
export interface SuccessAck {
  at?: number;
  output: unknown;
  status: "success";
}
/**
 * The front end could not show or run the prompt; the model is told why.
 */
export interface FailedAck {
  at?: number;
  error_text: string;
  status: "failed";
}
/**
 * The front end's own timer ran out.
 */
export interface TimeoutAck {
  at?: number;
  status: "timeout";
}
/**
 * A plugin of the session, as the Tools menu shows it.
 */
export interface PluginInfo {
  description: string;
  /**
   * Its tools are offered to the model (else only its container is).
   */
  expanded: boolean;
  name: string;
  skills: SkillInfo[];
  /**
   * Its tools' names (those a person may run by hand are in `tools` too).
   */
  tools: string[];
}
/**
 * A skill of a plugin.
 */
export interface SkillInfo {
  active: boolean;
  description: string;
  name: string;
}
/**
 * A tool the person may run by hand.
 */
export interface ToolInfo {
  description: string;
  input_schema: {
    [k: string]: unknown;
  };
  name: string;
}
/**
 * The `usage` trait: the session's counts, and this turn's and the context window's fill.
 */
export interface UsageState {
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  /**
   * Input tokens of the last request: how full the context window is.
   */
  context_tokens?: number;
  /**
   * The model's window (None when the prices file does not know the model: no meter).
   */
  context_window?: number | null;
  cost_usd?: number;
  input_tokens?: number;
  output_tokens?: number;
  requests?: number;
  scripted_requests?: number;
  server_tool_use?: {
    [k: string]: number;
  };
  /**
   * This turn's counts (None before the first response of a session shown).
   */
  turn?: UsageCounts | null;
  unpriced_requests?: number;
}
/**
 * Token counts, server-tool requests and estimated cost (`session._state.Usage`).
 */
export interface UsageCounts {
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  /**
   * Estimated cost in US dollars (`api/model_prices.json`).
   */
  cost_usd?: number;
  input_tokens?: number;
  output_tokens?: number;
  requests?: number;
  /**
   * Requests a scripted model answered: estimated tokens, no cost.
   */
  scripted_requests?: number;
  /**
   * Server-tool requests by kind (`web_search_requests`, ...).
   */
  server_tool_use?: {
    [k: string]: number;
  };
  /**
   * Requests whose model has no price (not in `cost_usd`).
   */
  unpriced_requests?: number;
}
/**
 * A view attached (or reloaded): the kernel answers with the transcript in snapshot pages.
 */
export interface HelloMsg {
  type: "hello";
  /**
   * This view's id, the same in its pings and its bye ("" for an anonymous view).
   */
  view_id?: string;
}
/**
 * A view is still open (every 5 s): a person may be there to answer prompts.
 */
export interface PingMsg {
  type: "ping";
  /**
   * This view's id, as in its hello.
   */
  view_id?: string;
}
/**
 * A view closed.
 */
export interface ByeMsg {
  type: "bye";
  /**
   * This view's id, as in its hello.
   */
  view_id?: string;
}
/**
 * The Retry button of an error notice: repeat the failed request.
 */
export interface RetryMsg {
  type: "retry";
}
/**
 * The person runs a tool by hand (the Tools panel or `/tool`); answered by `manual_result`.
 */
export interface ManualToolMsg {
  /**
   * Its arguments (the tool checks them against its input schema).
   */
  input: {
    [k: string]: unknown;
  };
  /**
   * The tool to run.
   */
  name: string;
  /**
   * Echoed in the `manual_result` reply.
   */
  request_id: string;
  type: "manual_tool";
}
/**
 * `/clear`: start a new conversation; answered by `cleared`.
 */
export interface ClearMsg {
  type: "clear";
}
/**
 * The person sent a chat message.
 */
export interface SendMsg {
  /**
   * What they typed (not blank).
   */
  text: string;
  type: "send";
}
/**
 * The Stop button: end the running turn.
 */
export interface StopMsg {
  type: "stop";
}
/**
 * A prompt was answered; sent as a message, since a trait update is held back while a cell runs.
 */
export interface AnswerMsg {
  /**
   * An `Answer`. Its shape is checked by the kernel against the prompt's kind, not here,
   * so that a wrong answer is refused on its prompt card and the prompt stays open.
   */
  answer: Answer;
  /**
   * The prompt (and the tool call) it answers.
   */
  tool_use_id: string;
  type: "answer";
}
/**
 * A file upload begins; answered by an `upload_ack` (received 0).
 */
export interface UploadStartMsg {
  /**
   * Its MIME type as the browser reports it ("" when unknown).
   */
  media_type?: string;
  /**
   * The file's name on the person's computer.
   */
  name: string;
  /**
   * Its size in bytes (over `max_upload_bytes` is refused before any byte is sent).
   */
  size: number;
  /**
   * The pending file prompt it is for.
   */
  tool_use_id: string;
  type: "upload_start";
  /**
   * Chosen by the view; names the upload in its chunks, its acks and the answer.
   */
  upload_id: string;
}
/**
 * The next piece of an upload, as the message's one binary buffer; acked one at a time.
 */
export interface UploadChunkMsg {
  /**
   * 0, 1, 2, ...: a repeated chunk is ignored, one out of order refused.
   */
  seq: number;
  type: "upload_chunk";
  /**
   * As in its `upload_start`.
   */
  upload_id: string;
}
/**
 * The file picker lists a folder of the kernel's; answered by `listing`.
 */
export interface ListDirMsg {
  /**
   * The prompt's `accept`: only the files it takes are listed.
   */
  accept?: string;
  /**
   * A folder relative to the chat's root ("" for the root itself).
   */
  path?: string;
  /**
   * Echoed in the `listing` reply.
   */
  request_id: string;
  type: "list_dir";
}
/**
 * A `download_file` card asks for its file's bytes; answered by `download_chunk`s.
 */
export interface DownloadMsg {
  /**
   * Echoed in every `download_chunk` reply.
   */
  request_id: string;
  /**
   * The pending `download_file` prompt: the kernel reads the path its call names.
   */
  tool_use_id: string;
  type: "download";
}
/**
 * The person expands or collapses a plugin (the Tools menu); answered by `plugin_result`.
 *
 * The model is told with the next message.
 */
export interface PluginMsg {
  action: "expand" | "collapse";
  /**
   * The plugin (one of the `plugins` trait).
   */
  name: string;
  /**
   * Echoed in the `plugin_result` reply.
   */
  request_id: string;
  type: "plugin";
}
/**
 * A table view asks for rows of a kept DataFrame; answered by one `result_rows`.
 */
export interface ResultPageMsg {
  /**
   * Echoed in the `result_rows` reply.
   */
  request_id: string;
  /**
   * The first row of the page (0-based).
   */
  start: number;
  /**
   * The tool call whose table it is.
   */
  tool_use_id: string;
  type: "result_page";
}
/**
 * The Continue button of a turn notice (a reply cut at `max_tokens`, a paused turn): carry on.
 */
export interface ContinueMsg {
  type: "continue";
}
/**
 * A card asks for its app's HTML and sandbox; answered by one `app_resource`.
 */
export interface AppOpenMsg {
  /**
   * Echoed in the reply.
   */
  request_id: string;
  /**
   * The tool call whose card shows the app.
   */
  tool_use_id: string;
  type: "app_open";
}
/**
 * An app's JSON-RPC request, passed on by its card; answered by one `app_reply`.
 */
export interface AppRequestMsg {
  /**
   * The app's method.
   */
  method: "tools/call" | "resources/read" | "ui/message" | "ui/open-link" | "ui/update-model-context";
  /**
   * Its params, as the app sent them (untrusted: the kernel checks them).
   */
  params: {
    [k: string]: unknown;
  };
  /**
   * Echoed in the reply.
   */
  request_id: string;
  /**
   * The tool call whose card shows the app.
   */
  tool_use_id: string;
  type: "app_request";
}
