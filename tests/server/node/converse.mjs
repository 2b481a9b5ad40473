// Drives the server's AG-UI endpoint with the official client (@ag-ui/client's HttpAgent), the way a
// web app would, and reports what the client saw. tests/support/agui_client.py runs it.
//
// stdin: {"url", "token", "threadId", "tools": [...], "steps": [...], "timeout"?: seconds per run (60),
//   "asks"?: {prompt name: output object | {"status": "skipped" | "failed"} | {"stop": true}}}
// stdout: {"messages": agent.messages at the end, "runs": [one record per run], "threads": {threadId:
//   {"messages", "state", "pendingInterrupts"}}}. A run that fails is recorded (outcome "error") and
// ends the conversation unless its step says "expect_error": true; the exit code is 0 either way
// (the test asserts). Exit code 2: the input document itself was wrong.
//
// Steps: {"say": text, "abort_on"?: EVENT_TYPE} | {"answer": {toolCallId or tool name: output}} |
// {"answer_all": output} | {"fail": error text} | {"approve": bool, "reason"?, "editedArgs"?} |
// {"cancel": true} | {"reload": true} | {"run": true}; each may carry "expect_error": true and "asks".
// An answer goes to the last run's pending client tool calls: the calls its RUN_FINISHED named in
// pendingToolCallIds (AG-UI 1.0) get `tool` messages; calls it reported as "tool_call" interrupts
// (the client requires every open interrupt to be resumed) get resume entries. "via": "message" or
// "resume" forces one way; the record's answeredVia says which was used.
//
// Asks: a CUSTOM event "notebook_tools.ask" (a question a running call asks: a consent card, an MCP
// server's) whose metadata.name is in "asks" is answered at once by POST /api/tools/ack (same origin as
// "url", the bearer token): {"toolCallId": its id, "status": "success", "output": the object's JSON
// text}, or the given status with no output; {"stop": true} asks for Stop instead (POST /agui/stop).
// An ask not named there is left unanswered. The run goes on in the same stream. A step's own "asks"
// replaces the input's for its run.
//
// A run's record: step, kind, runId, sent {messageIds, resume?, protocolVersion?}, outcome
// ("success" | "interrupt" | "cancelled" from RUN_FINISHED, else "error"), pendingToolCallIds,
// interrupts, result, events (types in order), error (RUN_ERROR's message, the thrown error's,
// "timeout: ..." or "harness: ..." when the step could not be sent), errorCode (RUN_ERROR's code;
// "abort" after abortRun), status and payload (an HTTP error), aborted, timedOut, answeredVia,
// serverProtocolVersion (RUN_STARTED's), warnings (what the client logged), asks (the values of its
// "notebook_tools.ask" events), askClosed (those of "notebook_tools.ask_closed"), acked ({id, status,
// body}: each ack's HTTP answer), ms, and after the run:
// messages and pendingInterruptIds (agent.messages, agent.pendingInterrupts).
import { HttpAgent, buildResumeArray } from "@ag-ui/client";

const input = JSON.parse(await new Promise((resolve, reject) => {
  let text = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => resolve(text));
  process.stdin.on("error", reject);
}));
for (const field of ["url", "token", "threadId", "steps"]) {
  if (input[field] === undefined) usage(`the input has no "${field}"`);
}
const tools = input.tools ?? [];
const answers = input.asks ?? {};
const ackUrl = new URL("/api/tools/ack", input.url).href;
const stopUrl = new URL("/agui/stop", input.url).href;
const runTimeout = (input.timeout ?? 60) * 1000;
const counters = { user: 0, tool: 0 };
const runs = [];
const threads = {};
let agent = newAgent();
let last = null; // the record of the last run (its pendingToolCallIds)
let current = null; // the record of the run in progress (console warnings go there)

for (const kind of ["warn", "error"]) {
  const original = console[kind].bind(console);
  console[kind] = (...args) => {
    current?.warnings.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
    original(...args);
  };
}

function usage(why) {
  process.stderr.write(`converse.mjs: ${why}\n`);
  process.exit(2);
}

function newAgent() {
  const made = new HttpAgent({
    url: input.url,
    threadId: input.threadId,
    headers: { Authorization: `Bearer ${input.token}` },
  });
  threads[input.threadId] = made;
  return made;
}

function text(output) {
  return typeof output === "string" ? output : JSON.stringify(output);
}

function toolName(toolCallId) {
  for (const message of agent.messages) {
    const call = (message.toolCalls ?? []).find((c) => c.id === toolCallId);
    if (call) return call.function.name;
  }
  const interrupt = agent.pendingInterrupts.find((i) => i.toolCallId === toolCallId);
  return interrupt?.metadata?.toolName;
}

class StepError extends Error {}

// The pending client tool calls of the last run and how each is answered: {id, name, via}.
function pendingCalls(step) {
  const viaMessage = (last?.pendingToolCallIds ?? []).map((id) => ({ id, via: "message" }));
  const viaResume = agent.pendingInterrupts
    .filter((i) => i.reason === "tool_call" && i.toolCallId)
    .map((i) => ({ id: i.toolCallId, interruptId: i.id, via: "resume" }));
  const calls = [...viaMessage, ...viaResume.filter((r) => !viaMessage.some((m) => m.id === r.id))];
  if (calls.length === 0) {
    throw new StepError(
      `the last run left no client tool call to answer (pendingToolCallIds: ${JSON.stringify(last?.pendingToolCallIds ?? [])}, ` +
        `pending interrupts: ${JSON.stringify(agent.pendingInterrupts.map((i) => i.id))})`,
    );
  }
  return calls.map((c) => ({ ...c, name: toolName(c.id), via: step.via ?? c.via }));
}

// Appends tool messages and builds resume responses answering the pending calls; the run's parameters.
function answer(step, record) {
  const calls = pendingCalls(step);
  const responses = {};
  const given = step.answer ?? {};
  if (step.answer !== undefined) {
    const known = new Set(calls.flatMap((c) => [c.id, c.name]));
    const unknown = Object.keys(given).filter((k) => !known.has(k));
    if (unknown.length) throw new StepError(`no pending call is named ${JSON.stringify(unknown)}`);
  }
  record.answeredVia = {};
  for (const call of calls) {
    let output;
    if (step.fail === undefined) {
      output = step.answer_all !== undefined ? step.answer_all : (given[call.id] ?? given[call.name]);
      if (output === undefined) throw new StepError(`no answer for the call ${call.id} (${call.name})`);
    }
    record.answeredVia[call.id] = call.via;
    if (call.via === "message") {
      counters.tool += 1;
      const message = { id: `tool-${counters.tool}`, role: "tool", toolCallId: call.id };
      agent.addMessage(
        step.fail === undefined ? { ...message, content: text(output) } : { ...message, content: "", error: step.fail },
      );
    } else {
      const interruptId = call.interruptId ?? `tool_call:${call.id}`;
      responses[interruptId] =
        step.fail === undefined
          ? { status: "resolved", payload: output }
          : { status: "cancelled", metadata: { error: step.fail } };
    }
  }
  if (Object.keys(responses).length === 0) return { tools };
  return { tools, resume: resumeFor(responses) };
}

// The client's own resume builder: it throws unless `responses` covers exactly the open interrupts.
function resumeFor(responses) {
  return buildResumeArray(agent.pendingInterrupts, responses);
}

function decide(step) {
  const responses = {};
  for (const interrupt of agent.pendingInterrupts) {
    if (step.cancel) {
      responses[interrupt.id] = { status: "cancelled" };
    } else if (interrupt.reason === "confirmation") {
      const payload = { approved: Boolean(step.approve) };
      if (step.reason !== undefined) payload.reason = step.reason;
      if (step.editedArgs !== undefined) payload.editedArgs = step.editedArgs;
      responses[interrupt.id] = { status: "resolved", payload };
    }
  }
  if (Object.keys(responses).length === 0) {
    throw new StepError("the last run left no interrupt to resume (agent.pendingInterrupts is empty)");
  }
  return { tools, resume: resumeFor(responses) };
}

function say(content) {
  counters.user += 1;
  agent.addMessage({ id: `user-${counters.user}`, role: "user", content });
}

// Answers an ask as "asks" says (the request is not awaited here: the client goes on reading the stream).
function ack(value, record, asks) {
  const given = asks[value?.metadata?.name];
  if (given === undefined) return null;
  const object = given !== null && typeof given === "object";
  const skip = object && ["skipped", "failed"].includes(given.status);
  const stop = object && given.stop === true;
  const body = stop
    ? { threadId: input.threadId }
    : skip
      ? { toolCallId: value.id, status: given.status }
      : { toolCallId: value.id, status: "success", output: JSON.stringify(given) };
  return fetch(stop ? stopUrl : ackUrl, {
    method: "POST",
    headers: { Authorization: `Bearer ${input.token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  }).then(
    async (response) => record.acked.push({ id: value.id, status: response.status, body: await response.text() }),
    (error) => record.acked.push({ id: value.id, status: null, body: error?.message ?? String(error) }),
  );
}

// One run of agent.runAgent(parameters), recorded; never longer than the run timeout.
async function run(record, parameters, abortOn, asks) {
  let aborted = false;
  let finished = false;
  const acking = [];
  const subscriber = {
    onCustomEvent: ({ event }) => {
      if (event.name === "notebook_tools.ask") {
        record.asks.push(event.value);
        const sent = ack(event.value, record, asks);
        if (sent) acking.push(sent);
      } else if (event.name === "notebook_tools.ask_closed") {
        record.askClosed.push(event.value);
      }
    },
    onRunInitialized: ({ input: sent }) => {
      record.runId = sent.runId;
      record.sent = {
        messageIds: sent.messages.map((m) => m.id),
        ...(sent.resume !== undefined && { resume: sent.resume }),
        ...(sent.protocolVersion !== undefined && { protocolVersion: sent.protocolVersion }),
      };
    },
    onEvent: ({ event }) => {
      record.events.push(event.type);
      if (abortOn && event.type === abortOn && !aborted) {
        aborted = true;
        record.aborted = true;
        agent.abortRun();
      }
    },
    onRunStartedEvent: ({ event }) => {
      if (event.protocolVersion !== undefined) record.serverProtocolVersion = event.protocolVersion;
    },
    onRunFinishedEvent: (params) => {
      finished = true;
      record.outcome = params.outcome;
      record.pendingToolCallIds = params.pendingToolCallIds ?? [];
      record.interrupts = params.interrupts ?? [];
      record.result = params.result ?? null;
    },
    onRunErrorEvent: ({ event }) => {
      record.outcome = "error";
      record.error = event.message;
      record.errorCode = event.code ?? null;
    },
  };
  const started = performance.now();
  let timer;
  const timedOut = new Promise((resolve) => {
    timer = setTimeout(() => resolve("timeout"), runTimeout);
  });
  const running = agent.runAgent(parameters, subscriber).then(
    () => "done",
    (error) => {
      if (record.timedOut) return "late";
      record.outcome = "error";
      record.error = error?.message ?? String(error);
      if (error?.status !== undefined) record.status = error.status;
      if (error?.payload !== undefined) record.payload = error.payload;
      return "thrown";
    },
  );
  const ended = await Promise.race([running, timedOut]);
  clearTimeout(timer);
  await Promise.all(acking);
  record.ms = Math.round(performance.now() - started);
  if (ended === "timeout") {
    agent.abortRun();
    record.outcome = "error";
    record.timedOut = true;
    record.error = `timeout: the run did not end within ${runTimeout / 1000} s (aborted)`;
  } else if (record.outcome === null && !finished) {
    // An abort before the response arrived is swallowed by the client: runAgent resolves quietly.
    record.outcome = "error";
    record.error = "the run ended without RUN_FINISHED or RUN_ERROR";
  }
  record.messages = structuredClone(agent.messages);
  record.pendingInterruptIds = agent.pendingInterrupts.map((i) => i.id);
}

function kindOf(step) {
  const kinds = ["say", "answer", "answer_all", "fail", "approve", "cancel", "reload", "run"];
  const found = kinds.filter((k) => step[k] !== undefined);
  if (found.length !== 1 || (found[0] === "answer" && typeof step.answer !== "object")) {
    usage(`a step needs exactly one of ${kinds.join(", ")}: ${JSON.stringify(step)}`);
  }
  return found[0];
}

for (const [index, step] of input.steps.entries()) {
  const kind = kindOf(step);
  const record = {
    step: index,
    kind,
    outcome: null,
    pendingToolCallIds: [],
    interrupts: [],
    result: null,
    events: [],
    error: null,
    warnings: [],
    asks: [],
    askClosed: [],
    acked: [],
  };
  current = record;
  runs.push(record);
  try {
    let parameters = { tools };
    if (kind === "say") say(step.say);
    else if (kind === "answer" || kind === "answer_all" || kind === "fail") parameters = answer(step, record);
    else if (kind === "approve" || kind === "cancel") parameters = decide(step);
    else if (kind === "reload") agent = newAgent();
    await run(record, parameters, step.abort_on, step.asks ?? answers);
  } catch (error) {
    if (!(error instanceof StepError) && !/^buildResumeArray/.test(error?.message ?? "")) throw error;
    record.outcome = "error";
    record.error = `harness: ${error.message}`; // nothing was sent
  }
  current = null;
  last = record;
  if (record.outcome === "error" && !step.expect_error && !record.aborted) break;
}

const out = {
  messages: agent.messages,
  runs,
  threads: Object.fromEntries(
    Object.entries(threads).map(([id, a]) => [
      id,
      { messages: a.messages, state: a.state, pendingInterrupts: a.pendingInterrupts },
    ]),
  ),
};
process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
