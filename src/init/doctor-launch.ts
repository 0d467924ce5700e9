/**
 * Starts one configured server the way its client would (command, arguments, the full environment
 * plus the entry's `env`, its `cwd`), with the SDK's real `Client` over a stdio transport whose server
 * runs in its own process group (`group-transport.ts`, stopped as a tree):
 * `initialize`, then every page of `tools/list`, then a clean close. Reports the time to `initialize`,
 * the tools, or the error with the tail of the server's stderr. A deadline guards against servers
 * that never answer. Edge.
 *
 * Source: SPEC §5.3.
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { errorText } from "../engine/index.ts";
import { GroupStdioTransport } from "./group-transport.ts";

/** How to start a server. */
export interface LaunchSpec {
  readonly command: string;
  readonly args: readonly string[];
  /** The complete environment of the child (not the SDK's short default list). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** The command is `bouncer run` (a wrapped entry), stopped with more time on a signal. */
  readonly wrapped?: boolean;
}

/** What happened when the server was started. */
export interface LaunchResult {
  readonly status: "started" | "error";
  /** The error, for `error`. */
  readonly error?: string;
  /** The last lines of the server's stderr (at most 2 KiB), unmasked: mask before printing. */
  readonly stderrTail: string;
  /** Milliseconds from spawn to the end of the `initialize` handshake. */
  readonly initializeMs?: number;
  readonly tools?: readonly Tool[];
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** What the server did wrong while listing its tools (a repeated cursor), shown as a defect. */
  readonly defect?: string;
}

/** Options of {@link launchServer}. */
export interface LaunchOptions {
  /** Deadline for `initialize` and for the tool listing, each (hang guard). */
  readonly timeoutMs: number;
  /** A monotonic clock in milliseconds (injected; `performance.now` by default). */
  readonly clock?: () => number;
  /** Given the transport before the server starts (doctor keeps a handle on each, to stop them all). */
  readonly track?: (transport: GroupStdioTransport) => void;
}

/** Pages of `tools/list` walked at most (SPEC §2.2 uses the same bound). */
const MAX_PAGES = 100;

/**
 * Starts a server, lists its tools and stops it.
 *
 * Source: SPEC §5.3.
 * @param spec - Command, arguments, environment and working directory.
 * @param options - Deadline and clock.
 * @returns The outcome (never throws for a failing server).
 */
export async function launchServer(spec: LaunchSpec, options: LaunchOptions): Promise<LaunchResult> {
  const clock = options.clock ?? (() => performance.now());
  // Its own process group, stopped as a tree: a server that ignores stdin EOF and SIGTERM (and its
  // children) does not outlive doctor, as it did behind the SDK's StdioClientTransport.
  const transport = new GroupStdioTransport(spec);
  options.track?.(transport);
  const tail = (): string => lastLines(transport.stderrTail(), 12).slice(-2048);
  const client = new Client({ name: "bouncer-doctor", version: "1" }, { capabilities: {} });
  const started = clock();
  let stage = "initialize";
  try {
    await withDeadline(client.connect(transport), { ms: options.timeoutMs, what: "initialize" });
    const initializeMs = Math.max(0, Math.round(clock() - started));
    stage = "tools/list";
    const listing = await withDeadline(listTools(client), { ms: options.timeoutMs, what: "tools/list" });
    const info = client.getServerVersion();
    const serverInfo = info === undefined ? {} : { serverInfo: { name: info.name, version: info.version } };
    const defect = listing.defect === undefined ? {} : { defect: listing.defect };
    return {
      status: "started",
      stderrTail: tail(),
      initializeMs,
      tools: listing.tools,
      ...serverInfo,
      ...defect,
    };
  } catch (error) {
    return {
      status: "error",
      // The transport's own reason (a line too long) rather than the "Connection closed" it caused.
      error: transport.failure ?? launchErrorMessage(error, stage),
      stderrTail: tail(),
    };
  } finally {
    await client.close().catch(() => undefined);
    // Unconditional: once the server has exited, the SDK's `Client.close()` no longer reaches the
    // transport, and its group (a child it left running) would outlive doctor, holding its pipes.
    await transport.close();
  }
}

/** What the walk of `tools/list` found. */
interface ToolListing {
  readonly tools: Tool[];
  /** What the server did wrong, when it did (a cursor that came back, tools listed again). */
  readonly defect?: string;
}

/**
 * Walks every page of `tools/list` (at most {@link MAX_PAGES}), stopping when a page gives a cursor
 * already seen — also the one that fetched it: the next page would repeat one — and never counting
 * twice a tool an earlier page listed (a server that ignores the cursor sends its first page again).
 *
 * Source: SPEC §2.2 ("stopping on a repeated cursor"), §5.3 (number of tools); the review of a server
 * that repeats its `nextCursor`.
 * @param client - A connected client.
 * @returns The tools, each name once across pages, and the server's defect if any.
 */
async function listTools(client: Client): Promise<ToolListing> {
  const tools: Tool[] = [];
  const earlier = new Set<string>();
  const seen = new Set<string>();
  let repeated = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor });
    const names = new Set<string>();
    for (const tool of result.tools) {
      if (earlier.has(tool.name)) repeated++;
      else {
        tools.push(tool);
        names.add(tool.name);
      }
    }
    for (const name of names) earlier.add(name);
    if (cursor !== undefined) seen.add(cursor);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
    if (seen.has(cursor)) {
      const again = `tools/list gave the cursor ${quoteCursor(cursor)} again: the listing stopped there`;
      return { tools, defect: repeated === 0 ? again : `${again}; ${repeatedTools(repeated)}` };
    }
  }
  return repeated === 0 ? { tools } : { tools, defect: repeatedTools(repeated) };
}

/**
 * @param count - How many listings of an earlier page's tools were not counted.
 * @returns The defect's words.
 */
function repeatedTools(count: number): string {
  return `${count} tool(s) an earlier page listed came again, counted once`;
}

/**
 * A server's cursor as shown: JSON-quoted (its control characters escaped), cut after 40 characters.
 * @param cursor - The cursor.
 * @returns The quoted text.
 */
function quoteCursor(cursor: string): string {
  return cursor.length > 40 ? `${JSON.stringify(cursor.slice(0, 40))}…` : JSON.stringify(cursor);
}

/**
 * One line for why a server failed: a result the SDK's schema refused (a `ZodError`, whose message is
 * its issues as indented JSON) is named by its first issue's path and message; any other error by
 * its message.
 *
 * Source: SPEC §5.3 ("started or the error"); the review of a tool with `inputSchema.properties: null`.
 * @param error - What connecting or listing threw.
 * @param stage - The request that was answered (`initialize`, `tools/list`).
 * @returns E.g. `the tools/list answer is not valid MCP: tools[0].inputSchema.properties: Invalid input: expected record, received null`.
 */
function launchErrorMessage(error: unknown, stage: string): string {
  const issues: unknown = error instanceof Error ? Reflect.get(error, "issues") : undefined;
  const [first, ...rest] = Array.isArray(issues) ? issues : [];
  if (typeof first !== "object" || first === null) return errorText(error);
  const where: unknown = Reflect.get(first, "path");
  const path = (Array.isArray(where) ? where : [])
    .map((key, i) => (typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`))
    .join("");
  const message = String(Reflect.get(first, "message") ?? "invalid");
  const more = rest.length === 0 ? "" : ` (and ${rest.length} more)`;
  return `the ${stage} answer is not valid MCP: ${path === "" ? "" : `${path}: `}${message}${more}`;
}

/**
 * Rejects when a promise does not settle in time (a hang guard, not a measurement).
 * @param promise - The work.
 * @param limit - Milliseconds allowed, and what is awaited (for the message).
 * @returns The work's value.
 */
async function withDeadline<T>(
  promise: Promise<T>,
  limit: { readonly ms: number; readonly what: string },
): Promise<T> {
  const { ms, what } = limit;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No answer to ${what} within ${Math.round(ms / 1000)} s`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The last lines of a text.
 * @param text - Any text.
 * @param count - How many lines.
 * @returns Those lines, trimmed at the end.
 */
function lastLines(text: string, count: number): string {
  return text.trimEnd().split(/\r?\n/).slice(-count).join("\n");
}
