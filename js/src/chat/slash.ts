// DOM-free parsing of the chat's slash commands (`/help`, `/tool NAME --arg value`, ...): the command
// line split into words, read into a command, and its text arguments turned into the schema's types.

/** A text value turned into the type a JSON-schema property asks for (throws a readable error). */
export function coerceArg(text: string, prop: { type?: string } = {}): unknown {
  const value = text.trim();
  switch (prop.type) {
    case "integer": {
      if (!/^-?\d+$/.test(value)) throw new Error(`"${text}" is not a whole number`);
      return Number.parseInt(value, 10);
    }
    case "number": {
      const n = Number(value);
      if (value === "" || Number.isNaN(n)) throw new Error(`"${text}" is not a number`);
      return n;
    }
    case "boolean":
      if (["true", "yes", "1"].includes(value.toLowerCase())) return true;
      if (["false", "no", "0"].includes(value.toLowerCase())) return false;
      throw new Error(`"${text}" is not true or false`);
    case "string":
      return text;
    default:
      try {
        return JSON.parse(value);
      } catch {
        return text;
      }
  }
}

export type SlashCommand =
  | { kind: "help" }
  | { kind: "tools" }
  | { kind: "clear" }
  | { kind: "status" }
  | { kind: "plugins" }
  | { kind: "plugin"; name: string; action: "expand" | "collapse" }
  | { kind: "tool"; name: string; args: Record<string, string> }
  | { kind: "error"; message: string };

/** Split a command line into words, keeping "quoted strings" together. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    words.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2] ?? m[3]);
  }
  return words;
}

/** Parse `/help`, `/tools`, `/clear`, `/status`, `/plugins`, `/expand NAME`, `/collapse NAME`, `/tool NAME --arg value`,
 * `/NAME --arg value`; null for a plain message. */
export function parseSlash(line: string): SlashCommand | null {
  const text = line.trim();
  if (!text.startsWith("/")) return null;
  const [head, ...rest] = splitWords(text.slice(1));
  if (!head) return { kind: "help" };
  if (head === "help" || head === "tools" || head === "clear" || head === "status" || head === "plugins") {
    return rest.length ? { kind: "error", message: `/${head} takes no arguments` } : { kind: head };
  }
  if (head === "expand" || head === "collapse") {
    if (rest.length !== 1 || rest[0].startsWith("--")) return { kind: "error", message: `usage: /${head} NAME` };
    return { kind: "plugin", name: rest[0], action: head };
  }
  let name = head;
  let words = rest;
  if (head === "tool") {
    if (!rest[0] || rest[0].startsWith("--")) return { kind: "error", message: "usage: /tool NAME --arg value" };
    [name, ...words] = rest;
  }
  const args: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (!word.startsWith("--") || word.length < 3) return { kind: "error", message: `expected --name before "${word}"` };
    const eq = word.indexOf("=");
    if (eq > 2) {
      args[word.slice(2, eq)] = word.slice(eq + 1);
    } else if (i + 1 < words.length && !words[i + 1].startsWith("--")) {
      args[word.slice(2)] = words[++i];
    } else {
      args[word.slice(2)] = "true";
    }
  }
  return { kind: "tool", name, args };
}
