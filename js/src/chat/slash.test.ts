// Slash commands (slash.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { coerceArg, parseSlash, splitWords } from "./slash";

test("coerceArg follows the schema's type", () => {
  assert.equal(coerceArg("42", { type: "integer" }), 42);
  assert.throws(() => coerceArg("4.2", { type: "integer" }), /not a whole number/);
  assert.equal(coerceArg("4.5", { type: "number" }), 4.5);
  assert.equal(coerceArg("yes", { type: "boolean" }), true);
  assert.equal(coerceArg(" keep spaces ", { type: "string" }), " keep spaces ");
  assert.deepEqual(coerceArg('["a", 1]', {}), ["a", 1]);
  assert.equal(coerceArg("not json", {}), "not json");
});

test("slash commands", () => {
  assert.equal(parseSlash("hello"), null);
  assert.deepEqual(parseSlash("/help"), { kind: "help" });
  assert.deepEqual(parseSlash("/tools"), { kind: "tools" });
  assert.deepEqual(parseSlash("/clear"), { kind: "clear" });
  assert.deepEqual(parseSlash("/status"), { kind: "status" });
  assert.deepEqual(parseSlash('/tool refresh --source "s3 bucket" --force'), { kind: "tool", name: "refresh", args: { source: "s3 bucket", force: "true" } });
  assert.deepEqual(parseSlash("/refresh --source=disk"), { kind: "tool", name: "refresh", args: { source: "disk" } });
  assert.equal(parseSlash("/tool")?.kind, "error");
  assert.equal(parseSlash("/refresh stray")?.kind, "error");
  assert.deepEqual(parseSlash("/plugins"), { kind: "plugins" });
  assert.deepEqual(parseSlash("/expand cleaning"), { kind: "plugin", name: "cleaning", action: "expand" });
  assert.deepEqual(parseSlash("/collapse cleaning"), { kind: "plugin", name: "cleaning", action: "collapse" });
  assert.deepEqual(parseSlash("/expand"), { kind: "error", message: "usage: /expand NAME" });
  assert.deepEqual(parseSlash("/collapse a b"), { kind: "error", message: "usage: /collapse NAME" });
  assert.deepEqual(parseSlash("/expand --name x"), { kind: "error", message: "usage: /expand NAME" });
  assert.equal(parseSlash("/plugins all")?.kind, "error");
  assert.deepEqual(splitWords(`a "b c" 'd e' f`), ["a", "b c", "d e", "f"]);
});
