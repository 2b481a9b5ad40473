// Generates src/generated/protocol.ts from the wire protocol's one source, notebook_tools/widgets/_wire.py.
//
//   node scripts/gen-protocol.mjs           refresh the schema from Python (when the project's Python is
//                                           there), then compile it to TypeScript; both files are committed
//   node scripts/gen-protocol.mjs --stdout  print the TypeScript compiled from the schema given on stdin and
//                                           write nothing (tests/widgets/test_wire.py compares it with the committed .ts)
//
// The project's Python is $NOTEBOOK_TOOLS_PYTHON, else ../.venv/bin/python. On a fresh clone `./dev` builds
// the JS before it creates .venv: then (as when that Python cannot import the module) the committed schema
// is compiled, which gives the committed .ts. tests/widgets/test_wire.py fails if either file is stale.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const JS = join(dirname(fileURLToPath(import.meta.url)), "..");
const ROOT = join(JS, "..");
const SCHEMA = join(JS, "src/generated/protocol.schema.json");
const OUTPUT = join(JS, "src/generated/protocol.ts");
const BANNER = `// generated from notebook_tools/widgets/_wire.py — do not edit.
// Regenerate with \`cd js && npm run gen\` (via src/generated/protocol.schema.json); tests/widgets/test_wire.py checks it.`;

function projectPython() {
  const given = process.env.NOTEBOOK_TOOLS_PYTHON;
  if (given) return given;
  for (const candidate of [".venv/bin/python", ".venv/Scripts/python.exe"]) {
    if (existsSync(join(ROOT, candidate))) return join(ROOT, candidate);
  }
  return null;
}

function writeIfChanged(path, text) {
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  writeFileSync(path, text);
  console.error(`gen-protocol: wrote ${path.slice(ROOT.length + 1)}`);
}

function refreshSchema() {
  const python = projectPython();
  if (python === null) {
    console.error("gen-protocol: no project Python (.venv) yet: compiling the committed schema");
    return;
  }
  let text;
  try {
    text = execFileSync(python, ["-c", "import sys; from notebook_tools.widgets._wire import schema_text; sys.stdout.write(schema_text())"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
  } catch {
    // The build must not depend on the venv's health (./dev builds the JS before it updates .venv):
    // compile the committed schema, say so, and leave it to tests/widgets/test_wire.py to catch a stale one.
    console.error(`gen-protocol: WARNING: ${python} could not import notebook_tools.widgets._wire (above);`);
    console.error("gen-protocol: compiling the committed schema, which tests/widgets/test_wire.py checks is current");
    return;
  }
  writeIfChanged(SCHEMA, text);
}

async function typescript(schemaText) {
  return compile(JSON.parse(schemaText), "WireMessage", {
    bannerComment: BANNER,
    additionalProperties: false,
    unknownAny: true,
    strictIndexSignatures: false,
    declareExternallyReferenced: true,
    format: true,
    style: { printWidth: 120 },
  });
}

if (process.argv.includes("--stdout")) {
  process.stdout.write(await typescript(readFileSync(0, "utf8")));
} else {
  refreshSchema();
  writeIfChanged(OUTPUT, await typescript(readFileSync(SCHEMA, "utf8")));
}
