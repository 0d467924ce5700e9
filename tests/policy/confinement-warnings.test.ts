import { describe, expect, test } from "bun:test";
import {
  type ConfinementContext,
  confinementWarnings,
  createPolicy,
  type MatchedPack,
  type Pack,
  parsePack,
  parsePolicy,
} from "../../src/policy/index.ts";

const FS_PACK = parsePack(
  `match: { commands: ["@modelcontextprotocol/server-filesystem"] }
write_file: { exfiltrating: false, write_params: [path], allowed_path_prefixes: [$COMMAND_LINE_DIRS] }
read_file: { exfiltrating: false }
`,
  "filesystem",
);

const COMMAND = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"];

function byCommand(pack: Pack): MatchedPack {
  return { pack, by: "command", pattern: "x", value: "x", commandIndex: 2 };
}

function warnings(
  files: readonly (readonly [string, string])[],
  ctx: Partial<ConfinementContext> = {},
): ReturnType<typeof confinementWarnings> {
  const policy = createPolicy(
    files.map(([name, text]) => parsePolicy(text, name)),
    [FS_PACK],
  );
  return confinementWarnings(policy, { server: "fs", packs: [], ...ctx });
}

describe("confinementWarnings() (SPEC §2.4: prefixes confine only when non-empty, with write_params)", () => {
  test("confinementWarnings() says a user's [] overrides the matched pack's prefixes, as run expands them", () => {
    const found = warnings([["u.yaml", "write_file: { allowed_path_prefixes: [] }\n"]], {
      packs: [byCommand(FS_PACK)],
      command: COMMAND,
      packsKnown: true,
    });
    expect(found).toEqual([
      {
        code: "empty_prefixes",
        tool: "write_file",
        source: "user:u.yaml",
        overrides: { source: "pack:filesystem", value: ["/data"] },
        message:
          "write_file: allowed_path_prefixes: [] (user:u.yaml) confines nothing: it overrides the pack's allowed_path_prefixes [/data] (pack:filesystem), so the tool's writes are not confined (leave the key out to keep the pack's confinement)",
      },
    ]);
  });

  test("confinementWarnings() names a pack that did not match here but names the tool, unless the packs are known", () => {
    const files = [["u.yaml", "write_file: { allowed_path_prefixes: [] }\n"]] as const;
    const [open] = warnings(files, { server: "", showPlaceholders: true });
    expect(open?.overrides).toEqual({
      source: "pack:filesystem",
      value: ["$COMMAND_LINE_DIRS"],
      elsewhere: true,
    });
    expect(open?.message).toContain("(pack:filesystem, on the servers that pack matches)");
    const [known] = warnings(files, { server: "mail", packsKnown: true });
    expect(known?.overrides).toBeUndefined();
    expect(known?.message).toBe(
      "write_file: allowed_path_prefixes: [] (user:u.yaml) confines nothing: an empty list turns path confinement off",
    );
  });

  test("confinementWarnings() says a later file's [] overrides an earlier file's prefixes, naming both layers", () => {
    const [found] = warnings(
      [
        ["a.yaml", "save_note: { write_params: [path], allowed_path_prefixes: [./notes] }\n"],
        ["b.yaml", "servers:\n  fs:\n    save_note: { allowed_path_prefixes: [] }\n"],
      ],
      { packsKnown: true },
    );
    expect(found).toMatchObject({
      code: "empty_prefixes",
      source: "user:b.yaml",
      layer: "servers.fs",
      overrides: { source: "user:a.yaml", value: ["./notes"] },
    });
    expect(found?.message).toContain(
      "(user:b.yaml servers.fs) confines nothing: it overrides allowed_path_prefixes [./notes] (user:a.yaml)",
    );
  });

  test("confinementWarnings() overrides nothing under replace: true (the layers below are discarded anyway)", () => {
    const [found] = warnings(
      [["u.yaml", "write_file: { replace: true, exfiltrating: false, allowed_path_prefixes: [] }\n"]],
      { packs: [byCommand(FS_PACK)], command: COMMAND, packsKnown: true },
    );
    expect(found?.code).toBe("empty_prefixes");
    expect(found?.overrides).toBeUndefined();
  });

  test("confinementWarnings() warns of prefixes on a tool no layer gives write_params", () => {
    expect(warnings([["u.yaml", "save_note: { allowed_path_prefixes: [./notes] }\n"]])).toEqual([
      {
        code: "prefixes_without_write_params",
        tool: "save_note",
        source: "user:u.yaml",
        message:
          "save_note: allowed_path_prefixes [./notes] (user:u.yaml) confines nothing: no layer names a path argument of save_note in write_params, so no argument is checked against them (add write_params: [ARG] for its path arguments)",
      },
    ]);
  });

  test.each([
    [
      "write_params in the same entry",
      "save_note: { write_params: [path], allowed_path_prefixes: [./n] }\n",
      {},
    ],
    [
      "a matched pack's write_params",
      "write_file: { allowed_path_prefixes: [./n] }\n",
      { packs: [byCommand(FS_PACK)] },
    ],
    ["a pack that may match where run starts it", "write_file: { allowed_path_prefixes: [./n] }\n", {}],
    ["no user prefixes", "read_file: { max_calls: 3 }\n", {}],
  ] as const)("confinementWarnings() says nothing given %s", (_what, text, ctx) => {
    expect(warnings([["u.yaml", text]], ctx)).toEqual([]);
  });

  test("confinementWarnings() warns of a pack's write_params tool when run knows that pack did not match", () => {
    const found = warnings([["u.yaml", "write_file: { allowed_path_prefixes: [./n] }\n"]], {
      server: "mail",
      packsKnown: true,
    });
    expect(found.map((warning) => warning.code)).toEqual(["prefixes_without_write_params"]);
  });
});
