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
move_file: { exfiltrating: false, write_params: [source, destination], allowed_path_prefixes: [$COMMAND_LINE_DIRS] }
`,
  "filesystem",
);

const DRIVE_PACK = parsePack(
  `match: { upstream_names: [gdrive] }
manage_drive_access:
  exfiltrating: true
  sink_params: [share_with]
  arg_patterns:
    share_type: "user|group|domain"
    "recipients[].share_type": "user|group|domain"
`,
  "gdrive",
);

const COMMAND = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/data"];

function matched(pack: Pack): MatchedPack {
  return { pack, by: "command", pattern: "x", value: "x", commandIndex: 2 };
}

function warnings(
  text: string,
  ctx: Partial<ConfinementContext> = {},
): ReturnType<typeof confinementWarnings> {
  const policy = createPolicy([parsePolicy(text, "u.yaml")], [FS_PACK, DRIVE_PACK]);
  return confinementWarnings(policy, { server: "fs", packs: [], ...ctx });
}

/** The filesystem server as `run` sees it: its pack matched, the packs known. */
const RUN_FS: Partial<ConfinementContext> = { packs: [matched(FS_PACK)], command: COMMAND, packsKnown: true };
const RUN_DRIVE: Partial<ConfinementContext> = {
  server: "gdrive",
  packs: [matched(DRIVE_PACK)],
  packsKnown: true,
};

describe("confinementWarnings() for a user write_params that drops the pack's (SPEC §4.1: key by key)", () => {
  test.each([
    ["an argument the server does not have", "write_file: { write_params: [file_path] }\n", "[file_path]"],
    ["an empty list", "write_file: { write_params: [] }\n", "[]"],
    [
      "a servers.<name> entry",
      "servers:\n  fs:\n    write_file: { write_params: [file_path] }\n",
      "[file_path]",
    ],
  ])(
    "confinementWarnings() warns that %s in write_params unconfines the pack's path",
    (_name, text, list) => {
      const found = warnings(text, RUN_FS);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({
        code: "write_params_overridden",
        tool: "write_file",
        source: "user:u.yaml",
        overrides: { source: "pack:filesystem", value: ["path"], dropped: ["path"] },
      });
      expect(found[0]?.message).toContain(
        `write_file: write_params ${list} (user:u.yaml${text.startsWith("servers") ? " servers.fs" : ""}) overrides the pack's write_params [path] (pack:filesystem): merged key by key, it replaces the pack's list, so "path" is no longer checked against allowed_path_prefixes`,
      );
    },
  );

  test("confinementWarnings() says nothing when the user's write_params keep every pack argument", () => {
    expect(warnings("write_file: { write_params: [path, backup_path] }\n", RUN_FS)).toEqual([]);
    expect(warnings("write_file: { max_calls: 3 }\n", RUN_FS)).toEqual([]);
  });

  test("confinementWarnings() names only the pack arguments a user list leaves out", () => {
    const [found] = warnings("move_file: { write_params: [source] }\n", RUN_FS);
    expect(found?.overrides?.dropped).toEqual(["destination"]);
    expect(found?.message).toContain('so "destination" is no longer checked');
  });

  test("confinementWarnings() says nothing under replace: true (the user discards the pack on purpose)", () => {
    const text = "write_file: { replace: true, exfiltrating: false, write_params: [file_path] }\n";
    expect(warnings(text, RUN_FS)).toEqual([]);
  });

  test("confinementWarnings() names a pack that may match where the server runs (check, explain)", () => {
    const [found] = warnings("write_file: { write_params: [file_path] }\n", {
      server: "",
      showPlaceholders: true,
    });
    expect(found?.overrides).toMatchObject({ source: "pack:filesystem", elsewhere: true });
    expect(found?.message).toContain("(pack:filesystem, on the servers that pack matches)");
    expect(warnings("write_file: { write_params: [file_path] }\n", { packsKnown: true })).toEqual([]);
  });
});

describe("confinementWarnings() for user arg_patterns that drop the pack's (SPEC §4.1: key by key)", () => {
  test.each([
    ["patterns on another argument", 'manage_drive_access: { arg_patterns: { action: "share|unshare" } }\n'],
    ["an empty mapping", "manage_drive_access: { arg_patterns: {} }\n"],
  ])("confinementWarnings() names the pack patterns dropped by %s", (_name, text) => {
    const found = warnings(text, RUN_DRIVE);
    expect(found).toEqual([
      {
        code: "arg_patterns_overridden",
        tool: "manage_drive_access",
        source: "user:u.yaml",
        overrides: {
          source: "pack:gdrive",
          value: { share_type: "user|group|domain", "recipients[].share_type": "user|group|domain" },
          dropped: ["share_type", "recipients[].share_type"],
        },
        message:
          'manage_drive_access: arg_patterns (user:u.yaml) overrides the pack\'s arg_patterns (pack:gdrive): merged key by key, your patterns replace the pack\'s, so share_type: "user|group|domain", recipients[].share_type: "user|group|domain" no longer apply (copy them into your arg_patterns to keep them)',
      },
    ]);
  });

  test("confinementWarnings() counts a pack pattern the user rewrites as dropped, and one copied as kept", () => {
    const text =
      'manage_drive_access:\n  arg_patterns:\n    share_type: "user|group|domain|anyone"\n    "recipients[].share_type": "user|group|domain"\n';
    const [found] = warnings(text, RUN_DRIVE);
    expect(found?.overrides?.dropped).toEqual(["share_type"]);
    expect(found?.message).toContain('so share_type: "user|group|domain" no longer applies');
    const kept =
      'manage_drive_access:\n  arg_patterns:\n    share_type: "user|group|domain"\n    "recipients[].share_type": "user|group|domain"\n    action: "share"\n';
    expect(warnings(kept, RUN_DRIVE)).toEqual([]);
  });
});
