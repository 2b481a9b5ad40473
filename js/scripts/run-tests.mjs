// Runs every test of the front end: each src/**/*.test.ts, found by its name, bundled for node, then `node --test`.
//
//   node scripts/run-tests.mjs
//
// The bundles are what `esbuild <tests> --bundle --platform=node --format=esm --outdir=build
// --out-extension:.js=.mjs --external:jsdom --outbase=src` makes: build/ mirrors src/ (src/chat/log.test.ts
// becomes build/chat/log.test.mjs). Only the bundles of this run are tested, never a stale one left in build/.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const JS = join(dirname(fileURLToPath(import.meta.url)), "..");
const SRC = join(JS, "src");
const OUT = join(JS, "build");

function testFiles(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? testFiles(path) : name.endsWith(".test.ts") ? [path] : [];
    });
}

const tests = testFiles(SRC);
if (!tests.length) {
  console.error(`run-tests: no *.test.ts under ${relative(JS, SRC)}`);
  process.exit(1);
}

await build({
  entryPoints: tests,
  bundle: true,
  platform: "node",
  format: "esm",
  outdir: OUT,
  outbase: SRC,
  outExtension: { ".js": ".mjs" },
  external: ["jsdom"],
  logLevel: "warning",
});

const bundles = tests.map((t) => join(OUT, relative(SRC, t)).replace(/\.ts$/, ".mjs"));
// A test that leaves a timer or a handle behind keeps node's test process alive after its last test:
// that fails here, loudly, instead of holding a CI run until its own limit.
const LIMIT_MS = 15 * 60 * 1000;
const run = spawnSync(process.execPath, ["--test", ...bundles.map((b) => relative(JS, b).split(sep).join("/"))], { cwd: JS, stdio: "inherit", timeout: LIMIT_MS, killSignal: "SIGKILL" });
if (run.signal) console.error(`run-tests: the tests did not end within ${LIMIT_MS / 60000} minutes (a timer or handle left behind keeps node alive?): stopped with ${run.signal}`);
process.exit(run.status ?? 1);
