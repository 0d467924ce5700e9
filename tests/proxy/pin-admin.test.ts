import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolDefinition } from "../../src/engine/index.ts";
import { createFilePinStore, updatePinFile } from "../../src/proxy/file-pin-store.ts";
import type { ServerContext } from "../../src/proxy/gate.ts";
import { pinsToForget, removePinFiles } from "../../src/proxy/pin-admin.ts";

const SERVER: ServerContext = { name: "mail", command: ["mail-server"], cwd: "/work" };
const SEND: ToolDefinition = { name: "send_email", description: "Send.", inputSchema: { type: "object" } };
const READ: ToolDefinition = { name: "read_inbox", inputSchema: { type: "object" } };

function home(): string {
  return mkdtempSync(join(tmpdir(), "bouncer-pin-admin-"));
}

describe("removePinFiles()", () => {
  test("removePinFiles() of pinsToForget() waits for a writer holding the pin file's lock, so a file it reports removed stays removed", async () => {
    const dir = home();
    const gone: string[] = [];
    const session = createFilePinStore({ home: dir, onGone: (path) => gone.push(path) });
    await session.pin(SERVER, [SEND]);
    const path = session.fileFor(SERVER);
    // A writer (as a running session's) has read the file under its lock when `pins forget` starts.
    let forgetting: Promise<string[]> | string[] = [];
    await updatePinFile(path, (current) => {
      forgetting = removePinFiles(pinsToForget(dir, "mail").map(({ path }) => path));
      return current === undefined ? undefined : { ...current, pending: [] };
    });
    expect(await forgetting).toEqual([path]);
    expect(existsSync(path)).toBe(false);
    // The session that had the file writes it no more: it keeps its pins in memory (onGone).
    await session.setPending(SERVER, [{ definition: { ...SEND, description: "Changed." }, kind: "changed" }]);
    await session.pin(SERVER, [READ]);
    expect(existsSync(path)).toBe(false);
    expect(gone).toEqual([path]);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});
