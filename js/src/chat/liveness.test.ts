import { test } from "node:test";
import assert from "node:assert/strict";
import { CLOSED, RESTARTED, STOPPED, goneReason, watchKernel } from "./liveness";

class FakeSignal<T> {
  slots = new Set<(sender: unknown, value: T) => void>();
  connect(slot: (sender: unknown, value: T) => void) { this.slots.add(slot); return true; }
  disconnect(slot: (sender: unknown, value: T) => void) { return this.slots.delete(slot); }
  emit(value: T) { for (const slot of Array.from(this.slots)) slot(this, value); }
}

function fakeKernel(status = "idle") {
  return { status, statusChanged: new FakeSignal<string>(), disposed: new FakeSignal<void>() };
}

test("goneReason: only a restart or a dead kernel ends a view", () => {
  for (const status of ["idle", "busy", "starting", "unknown", "connecting", "terminating"]) assert.equal(goneReason(status), null);
  assert.equal(goneReason("restarting"), RESTARTED);
  assert.equal(goneReason("autorestarting"), RESTARTED);
  assert.equal(goneReason("dead"), STOPPED);
});

test("watchKernel reports once, on a restart, and stops listening when undone", () => {
  const kernel = fakeKernel();
  const seen: string[] = [];
  const undo = watchKernel({ kernel }, (why) => seen.push(why));
  kernel.statusChanged.emit("busy");
  kernel.statusChanged.emit("idle");
  assert.deepEqual(seen, []);
  kernel.statusChanged.emit("restarting");
  kernel.statusChanged.emit("dead");
  kernel.disposed.emit();
  assert.deepEqual(seen, [RESTARTED]);
  undo();
  assert.equal(kernel.statusChanged.slots.size, 0);
  assert.equal(kernel.disposed.slots.size, 0);
});

test("watchKernel: a replaced kernel (disposed connection) and an already dead one", () => {
  const replaced = fakeKernel();
  const seen: string[] = [];
  watchKernel({ kernel: replaced }, (why) => seen.push(why));
  replaced.disposed.emit();
  assert.deepEqual(seen, [CLOSED]);
  const dead: string[] = [];
  watchKernel({ kernel: fakeKernel("dead") }, (why) => dead.push(why));
  assert.deepEqual(dead, [STOPPED]);
});

test("watchKernel outside JupyterLab (no manager or no kernel) does nothing and never throws", () => {
  for (const manager of [undefined, null, {}, { kernel: null }, { kernel: {} }, 42, "x"]) {
    const undo = watchKernel(manager, () => assert.fail("no kernel, no report"));
    undo();
  }
});
