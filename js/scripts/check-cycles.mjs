// Fails when the modules under src/ import each other in a cycle, `import type` included.
//
//   node scripts/check-cycles.mjs [dir]     dir defaults to src/ next to this script
//
// Edges are the relative specifiers ("./x", "../y/z") of every static `import ... from`, `import type ... from`,
// `export ... from`, side-effect `import "x"` and literal dynamic `import("x")` in each .ts file. A specifier
// resolves to the first existing file of: itself, itself + ".ts", itself + "/index.ts". Cycles are the strongly
// connected components (Tarjan) with more than one module, or a module importing itself.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** `import`/`export` statements with a `from "spec"` clause (types and multi-line lists included). */
const FROM_RE = /^\s*(?:import|export)\s[^;'"]*?\bfrom\s*["']([^"']+)["']/gm;
/** Side-effect imports: `import "./widget.css"`. */
const BARE_RE = /^\s*import\s*["']([^"']+)["']/gm;
/** Dynamic imports of a literal specifier: `await import("./focus")`. */
const DYNAMIC_RE = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "..", "src"));

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function target(from, spec) {
  const base = resolve(dirname(from), spec);
  return [base, `${base}.ts`, join(base, "index.ts")].find((p) => existsSync(p) && statSync(p).isFile()) ?? null;
}

const graph = new Map();
for (const file of files(root)) {
  const text = readFileSync(file, "utf8");
  const specs = [FROM_RE, BARE_RE, DYNAMIC_RE].flatMap((re) => Array.from(text.matchAll(re), (m) => m[1]));
  const deps = new Set(specs.filter((s) => s.startsWith(".")).map((s) => target(file, s)).filter((p) => p?.endsWith(".ts")));
  graph.set(file, deps);
}

// Tarjan's strongly connected components.
let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const cycles = [];
function visit(v) {
  index.set(v, counter);
  low.set(v, counter++);
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v) ?? []) {
    if (!index.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) !== index.get(v)) return;
  const component = [];
  let w;
  do {
    w = stack.pop();
    onStack.delete(w);
    component.push(w);
  } while (w !== v);
  if (component.length > 1 || graph.get(v)?.has(v)) cycles.push(component.sort());
}
for (const v of graph.keys()) if (!index.has(v)) visit(v);

const edges = [...graph.values()].reduce((n, deps) => n + deps.size, 0);
const name = (p) => relative(root, p);
if (cycles.length) {
  for (const c of cycles) console.log(`cycle: ${c.map(name).join(" <-> ")}`);
  console.log(`${cycles.length} import cycle(s) among ${graph.size} modules (${edges} relative imports)`);
  process.exit(1);
}
console.log(`no import cycles: ${graph.size} modules, ${edges} relative imports`);
