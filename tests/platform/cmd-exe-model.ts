/**
 * A reference model of what a program started by a batch file receives when Bouncer runs
 * `cmd.exe <switches> /c "LINE"` and the batch file passes `%*` on (`"node" "cli.js" %*`, as npm's
 * shims do): cmd.exe's percent expansion (command-line context: `%NAME%`, `%NAME:~a,b%`,
 * `%NAME:x=y%` of defined variables; undefined ones stay), its caret and quote phase (an unquoted
 * `&`, `|`, `<` or `>` ends the command), the batch line's second such phase after `%*`, then
 * MSVCRT's argument splitting. Delayed expansion is counted as a failure unless `/v:off` is given
 * (the registry may turn it on). After Microsoft's `cmd /?`, "Parsing C command-line arguments",
 * and the phase description of cmd.exe's parser by Dave Benham. For tests only.
 * @module
 */

/** The environment the model expands `%NAME%` against. */
export const MODEL_ENV: Readonly<Record<string, string>> = {
  PATH: "C:\\bin;C:\\x",
  OS: "Windows_NT",
  USERPROFILE: "C:\\Users\\me",
  A: "1",
};

function lookup(name: string): string | undefined {
  for (const [key, value] of Object.entries(MODEL_ENV))
    if (key.toUpperCase() === name.toUpperCase()) return value;
  return undefined;
}

/** One `%…%` body expanded, or undefined when cmd.exe leaves it as written. */
function expandBody(body: string): string | undefined {
  const colon = body.indexOf(":");
  if (colon < 0) return lookup(body);
  const value = lookup(body.slice(0, colon));
  if (value === undefined) return undefined;
  const op = body.slice(colon + 1);
  const substring = /^~(-?\d+)(?:,(-?\d+))?$/.exec(op);
  if (substring !== null) {
    const from = Number(substring[1]);
    const start = from < 0 ? Math.max(0, value.length + from) : from;
    const count = substring[2] === undefined ? undefined : Number(substring[2]);
    const end = count === undefined ? value.length : count < 0 ? value.length + count : start + count;
    return value.slice(start, end);
  }
  const eq = op.indexOf("=");
  if (eq <= 0) return undefined;
  const search = op.slice(0, eq);
  const replacement = op.slice(eq + 1);
  if (search.startsWith("*")) {
    const at = value.toLowerCase().indexOf(search.slice(1).toLowerCase());
    return at < 0 ? value : replacement + value.slice(at + search.length - 1);
  }
  return value.split(new RegExp(search.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi")).join(replacement);
}

/** Phase 1 on a command line: defined variables expanded, the rest left, scanning on at a closing `%`. */
export function percentPhase(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    if (text[i] !== "%") {
      out += text[i++];
      continue;
    }
    const close = text.indexOf("%", i + 1);
    if (close < 0) {
      out += text.slice(i);
      break;
    }
    const expanded = expandBody(text.slice(i + 1, close));
    if (expanded === undefined) {
      out += text.slice(i, close);
      i = close;
    } else {
      out += expanded;
      i = close + 1;
    }
  }
  return out;
}

/** Phase 2: carets outside quotes escape the next character, quotes toggle; `&|<>` outside end the command. */
export function caretPhase(text: string): { readonly text: string; readonly rest?: string } {
  let out = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') quoted = false;
      out += c;
    } else if (c === "^") {
      i++;
      if (i < text.length) out += text[i];
    } else if (c === '"') {
      quoted = true;
      out += c;
    } else if ("&|<>".includes(c)) {
      return { text: out, rest: text.slice(i) };
    } else {
      out += c;
    }
  }
  return { text: out };
}

/** MSVCRT (2008 and later) argument splitting of a whole command line. */
export function msvcrtSplit(line: string): string[] {
  const args: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === " " || line[i] === "\t") i++;
    if (i >= line.length) return args;
    let arg = "";
    let quoted = false;
    while (i < line.length && (quoted || (line[i] !== " " && line[i] !== "\t"))) {
      if (line[i] === "\\") {
        let n = 0;
        while (line[i + n] === "\\") n++;
        if (line[i + n] === '"') {
          arg += "\\".repeat(n >> 1);
          i += n;
          if (n % 2 === 1) {
            arg += '"';
            i++;
          }
        } else {
          arg += "\\".repeat(n);
          i += n;
        }
      } else if (line[i] === '"') {
        if (quoted && line[i + 1] === '"') {
          arg += '"';
          i += 2;
        } else {
          quoted = !quoted;
          i++;
        }
      } else {
        arg += line[i++];
      }
    }
    args.push(arg);
  }
}

/** What the program run by a `%*` batch file gets, or where cmd.exe went astray. */
export type ShimOutcome =
  | { readonly kind: "argv"; readonly command: string; readonly argv: readonly string[] }
  | { readonly kind: "split"; readonly stage: string; readonly rest: string }
  | { readonly kind: "delayed_expansion" };

/**
 * Runs `cmd.exe <cmdArgs>` in the model, for a batch file `batch` whose line is `"node" "cli.js" %*`.
 * @param cmdArgs - The arguments given to cmd.exe (switches, `/c`, the quoted line).
 * @param batch - The batch file's path (the command token is this long once unescaped).
 * @returns The program's arguments and the command token, or the stage that split the line.
 */
export function runShim(cmdArgs: readonly string[], batch: string): ShimOutcome {
  const c = cmdArgs.indexOf("/c");
  const switches = cmdArgs.slice(0, c);
  let line = cmdArgs[c + 1] ?? "";
  if (switches.includes("/s") && line.startsWith('"') && line.endsWith('"')) line = line.slice(1, -1);
  if (!switches.includes("/v:off") && line.includes("!")) return { kind: "delayed_expansion" };
  const first = caretPhase(percentPhase(line));
  if (first.rest !== undefined) return { kind: "split", stage: "the /c line", rest: first.rest };
  const command = first.text.slice(0, batch.length);
  const passed = first.text.slice(batch.length).replace(/^ /, "");
  // `%*` is replaced in the batch line's phase 1 and not expanded again; phase 2 reads it.
  const second = caretPhase(`"C:\\nodejs\\node.exe" "C:\\x\\cli.js" ${passed}`);
  if (second.rest !== undefined) return { kind: "split", stage: "the batch line", rest: second.rest };
  return { kind: "argv", command, argv: msvcrtSplit(second.text).slice(2) };
}
