import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCheck } from "../../src/commands/check.ts";
import { memoryIo } from "../../src/commands/io.ts";
import { REPO, runCli } from "../run-cli.ts";

const GOOD = "tests/fixtures/policies/worked-example.yaml";
const BAD = "tests/fixtures/policies/bad-keys.yaml";

describe("bouncer check (subprocess)", () => {
  test("bouncer check exits 2 on a bad policy and prints every issue as file:line:column", async () => {
    const run = await runCli(["check", "--policy", BAD]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${BAD}:3:3: unknown key "alow" in tool "send_email" (did you mean "action"?)`,
    );
    expect(run.stderr).toContain(`${BAD}:5:14: wrong type for "max_calls"`);
    expect(run.stdout).toBe("");
  });

  test("bouncer check exits 2 on a YAML syntax error with its line and column", async () => {
    const run = await runCli(["check", "--policy", "tests/fixtures/policies/bad-syntax.yaml"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad-syntax\.yaml:\d+:\d+: /);
  });

  test("bouncer check exits 2 when a policy file does not exist", async () => {
    const run = await runCli(["check", "--policy", "tests/fixtures/policies/nope.yaml"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Cannot read policy "tests/fixtures/policies/nope.yaml": no such file');
  });

  test("bouncer check --json exits 2 with ok false on stdout when a policy file does not exist", async () => {
    const run = await runCli(["check", "--json", "--policy", "tests/fixtures/policies/nope.yaml"]);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: false,
      issues: [
        {
          code: "unreadable",
          file: "tests/fixtures/policies/nope.yaml",
          line: 0,
          column: 0,
          message: "no such file",
        },
      ],
    });
    expect(run.stderr).toBe("");
  });

  test("bouncer check exits 0 on a good policy and prints each rule with its layer", async () => {
    const run = await runCli(["check", "--policy", GOOD]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Policy OK: ${GOOD}`);
    expect(run.stdout).toMatch(new RegExp(`exfiltrating: true\\s+\\(user:${GOOD.replaceAll(".", "\\.")}\\)`));
    expect(run.stdout).toMatch(/on_tainted: deny\s+\(default\)/);
  });
});

describe("runCheck()", () => {
  test("runCheck() --json on a bad policy prints ok false and every issue with line and column", async () => {
    const out = memoryIo({ cwd: REPO });
    expect(await runCheck({ policies: [BAD], json: true }, out.io)).toBe(2);
    const document = JSON.parse(out.stdout()) as {
      ok: boolean;
      issues: { line: number; column: number; key: string }[];
    };
    expect(document.ok).toBe(false);
    expect(document.issues.map((issue) => [issue.line, issue.column, issue.key])).toEqual([
      [3, 3, "alow"],
      [5, 14, "max_calls"],
    ]);
  });

  test.skipIf(process.platform === "win32")(
    "runCheck() --json prints ok false for a missing file, a folder, a FIFO and a non-UTF-8 file, in order with a bad file's issues",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "bouncer-check-"));
      mkdirSync(join(dir, "folder.yaml"));
      expect(spawnSync("mkfifo", [join(dir, "fifo.yaml")]).status).toBe(0);
      writeFileSync(join(dir, "latin1.yaml"), Buffer.from([0x23, 0x20, 0xe9, 0x0a]));
      copyFileSync(join(REPO, BAD), join(dir, "bad.yaml"));
      const out = memoryIo({ cwd: dir });
      const files = ["missing.yaml", "folder.yaml", "bad.yaml", "fifo.yaml", "latin1.yaml"];
      expect(await runCheck({ policies: files, json: true }, out.io)).toBe(2);
      const document = JSON.parse(out.stdout()) as {
        ok: boolean;
        issues: { code: string; file: string; line: number; message: string }[];
      };
      expect(document.ok).toBe(false);
      expect(document.issues.map((issue) => [issue.file, issue.code, issue.line])).toEqual([
        ["missing.yaml", "unreadable", 0],
        ["folder.yaml", "unreadable", 0],
        ["bad.yaml", "unknown_key", 3],
        ["bad.yaml", "wrong_type", 5],
        ["fifo.yaml", "unreadable", 0],
        ["latin1.yaml", "unreadable", 0],
      ]);
      expect(
        document.issues.filter((issue) => issue.code === "unreadable").map((issue) => issue.message),
      ).toEqual([
        "no such file",
        "it is a folder, not a file (EISDIR)",
        "it is not a regular file (a FIFO)",
        "it is not UTF-8 text (line 1, column 3)",
      ]);
      expect(out.stderr()).toBe("");
    },
  );

  test("runCheck() refuses a ~user path prefix at its file:line:column and exits 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-check-"));
    writeFileSync(join(dir, "p.yaml"), 'write_file:\n  allowed_path_prefixes: ["~bob/notes"]\n');
    const out = memoryIo({ cwd: dir });
    expect(await runCheck({ policies: ["p.yaml"] }, out.io)).toBe(2);
    expect(out.stderr()).toContain("p.yaml:2:27: ");
    expect(out.stderr()).toContain("~user is not supported; write the full path");
    expect(out.stdout()).toBe("");
  });

  test("runCheck() shows the filesystem pack's $COMMAND_LINE_DIRS confinement and what it means (write tools looked unconfined)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-check-"));
    const policy = join(dir, "p.yaml");
    writeFileSync(policy, "servers:\n  filesystem:\n    write_file: { action: ask }\n");
    const out = memoryIo({ cwd: dir });
    expect(await runCheck({ policies: [policy] }, out.io)).toBe(0);
    expect(out.stdout()).toMatch(/allowed_path_prefixes: \[\$COMMAND_LINE_DIRS\]\s+\(pack:filesystem\)/);
    expect(out.stdout()).toContain("$COMMAND_LINE_DIRS: the directories on the server's command line");
  });

  test("runCheck() merges files: a later file wins key by key and trusted destinations are a union", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-check-"));
    copyFileSync(join(REPO, GOOD), join(dir, "base.yaml"));
    writeFileSync(
      join(dir, "later.yaml"),
      "send_email:\n  exfiltrating: false\n  trusted_destinations: [me@home.example]\n",
    );
    const out = memoryIo({ cwd: dir });
    expect(await runCheck({ policies: ["base.yaml", "later.yaml"], json: true }, out.io)).toBe(0);
    const document = JSON.parse(out.stdout()) as {
      ok: boolean;
      tools: { tool: string; rules: { key: string; value: unknown; source: string }[] }[];
    };
    const rules = document.tools.find((entry) => entry.tool === "send_email")?.rules ?? [];
    expect(rules.find((row) => row.key === "exfiltrating")).toEqual({
      key: "exfiltrating",
      value: false,
      source: "user:later.yaml",
    });
    expect(rules.filter((row) => row.key === "trusted_destinations").map((row) => row.value)).toEqual(
      expect.arrayContaining(["boss@corp.example", "me@home.example"]),
    );
  });

  test("runCheck() prints the defaults a file sets, and names a file that sets nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-check-"));
    writeFileSync(
      join(dir, "defaults.yaml"),
      "defaults:\n  on_tainted: ask\n  trusted_destinations: ['*@corp.example']\n",
    );
    writeFileSync(join(dir, "empty.yaml"), "# nothing yet\n");
    const out = memoryIo({ cwd: dir });
    expect(await runCheck({ policies: ["defaults.yaml", "empty.yaml"] }, out.io)).toBe(0);
    expect(out.stdout().split("\n")).toEqual([
      "Policy OK: defaults.yaml, empty.yaml",
      "Note: empty.yaml sets no rules (built-in defaults, packs and heuristics decide)",
      "",
      "defaults:   (user:defaults.yaml)",
      "  on_tainted: ask",
      "  trusted_destinations: *@corp.example",
      "",
    ]);
  });

  test("runCheck() prints a server's defaults too, an empty list as none, and a bare servers: entry sets nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-check-"));
    writeFileSync(
      join(dir, "server.yaml"),
      "servers:\n  mail:\n    defaults: { trusted_destinations: [me@home.example] }\n",
    );
    writeFileSync(join(dir, "none.yaml"), "defaults: { trusted_destinations: [] }\n");
    writeFileSync(join(dir, "bare.yaml"), "servers:\n  mail: {}\n");
    const out = memoryIo({ cwd: dir });
    expect(await runCheck({ policies: ["server.yaml", "none.yaml", "bare.yaml"] }, out.io)).toBe(0);
    expect(out.stdout().split("\n")).toEqual([
      "Policy OK: server.yaml, none.yaml, bare.yaml",
      "Note: bare.yaml sets no rules (built-in defaults, packs and heuristics decide)",
      "",
      "servers.mail.defaults:   (user:server.yaml)",
      "  trusted_destinations: me@home.example",
      "",
      "defaults:   (user:none.yaml)",
      "  trusted_destinations: [] (none)",
      "",
    ]);
  });

  test("runCheck() warns that allowed_path_prefixes: [] confines nothing and overrides the pack's, shows it with its layer, and exits 0", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-check-"));
    writeFileSync(join(dir, "p.yaml"), "write_file: { allowed_path_prefixes: [] }\n");
    const out = memoryIo({ cwd: dir });
    expect(await runCheck({ policies: ["p.yaml"] }, out.io)).toBe(0);
    expect(out.stdout()).toContain(
      "Warning: write_file: allowed_path_prefixes: [] (user:p.yaml) confines nothing: it overrides the pack's allowed_path_prefixes [$COMMAND_LINE_DIRS] (pack:filesystem, on the servers that pack matches)",
    );
    expect(out.stdout()).toMatch(/allowed_path_prefixes: \[\]\s+\(user:p\.yaml\)/);
  });

  test("runCheck() warns that a user's write_params replace the filesystem pack's path, and exits 0", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-check-"));
    writeFileSync(join(dir, "p.yaml"), "write_file: { write_params: [file_path] }\n");
    const out = memoryIo({ cwd: dir });
    expect(await runCheck({ policies: ["p.yaml"] }, out.io)).toBe(0);
    expect(out.stdout()).toContain(
      "Warning: write_file: write_params [file_path] (user:p.yaml) overrides the pack's write_params [path] (pack:filesystem, on the servers that pack matches): merged key by key, it replaces the pack's list, so \"path\" is no longer checked against allowed_path_prefixes",
    );
  });

  test("runCheck() warns once of prefixes no layer gives write_params; --json lists the warnings, exit 0", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bouncer-check-"));
    writeFileSync(
      join(dir, "p.yaml"),
      'save_note: { allowed_path_prefixes: ["./notes"] }\nservers:\n  notes:\n    save_note: { max_calls: 5 }\n',
    );
    const text = memoryIo({ cwd: dir });
    expect(await runCheck({ policies: ["p.yaml"] }, text.io)).toBe(0);
    const lines = text
      .stdout()
      .split("\n")
      .filter((line) => line.startsWith("Warning: "));
    expect(lines).toEqual([
      "Warning: save_note: allowed_path_prefixes [./notes] (user:p.yaml) confines nothing: no layer names a path argument of save_note in write_params, so no argument is checked against them (add write_params: [ARG] for its path arguments)",
    ]);
    const json = memoryIo({ cwd: dir });
    expect(await runCheck({ policies: ["p.yaml"], json: true }, json.io)).toBe(0);
    const document = JSON.parse(json.stdout()) as { ok: boolean; warnings: unknown[] };
    expect(document.ok).toBe(true);
    expect(document.warnings).toEqual([
      {
        code: "prefixes_without_write_params",
        tool: "save_note",
        source: "user:p.yaml",
        message: lines[0]?.slice("Warning: ".length),
      },
    ]);
  });

  test("runCheck() without policy files says built-in defaults only and exits 0", async () => {
    const out = memoryIo();
    expect(await runCheck({ policies: [] }, out.io)).toBe(0);
    expect(out.stdout()).toContain("No policy files: built-in defaults only");
  });
});
