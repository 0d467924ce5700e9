import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveCommand } from "../../src/platform/resolve-command.ts";

const root = mkdtempSync(join(tmpdir(), "bouncer-resolve-"));
const bin1 = join(root, "bin1");
const bin2 = join(root, "bin2");
mkdirSync(bin1);
mkdirSync(bin2);
writeFileSync(join(bin1, "tool"), "#!/bin/sh\n");
writeFileSync(join(bin2, "tool"), "#!/bin/sh\n");
chmodSync(join(bin2, "tool"), 0o755);
writeFileSync(join(root, "local.sh"), "#!/bin/sh\n");
chmodSync(join(root, "local.sh"), 0o755);

describe("resolveCommand on POSIX", () => {
  test("resolveCommand() finds the first executable file on PATH, skipping non-executable ones", () => {
    const resolved = resolveCommand(
      { command: "tool", args: ["a b"], cwd: root, env: { PATH: `${bin1}:${bin2}` } },
      { platform: "posix" },
    );
    expect(resolved).toEqual({
      file: join(bin2, "tool"),
      args: ["a b"],
      windowsVerbatimArguments: false,
      executable: join(bin2, "tool"),
    });
  });

  test("resolveCommand() resolves a command with a slash against the upstream's cwd (F15)", () => {
    expect(
      resolveCommand({ command: "./local.sh", args: [], cwd: root, env: { PATH: "" } }, { platform: "posix" })
        .executable,
    ).toBe(join(root, "local.sh"));
  });

  test("resolveCommand() names the command and the PATH searched when nothing is found (F10)", () => {
    expect(() =>
      resolveCommand(
        { command: "no-such-server", args: [], cwd: root, env: { PATH: "/usr/bin:/bin" } },
        { platform: "posix" },
      ),
    ).toThrow('Cannot start upstream "no-such-server": not found in PATH "/usr/bin:/bin"');
  });

  test.skipIf(process.platform === "win32")(
    "resolveCommand() says why a command given as a path cannot run: no file, a folder, not executable",
    () => {
      const dir = mkdtempSync(join(tmpdir(), "bouncer-resolve-why-"));
      writeFileSync(join(dir, "plain.sh"), "#!/bin/sh\n");
      chmodSync(join(dir, "plain.sh"), 0o644);
      mkdirSync(join(dir, "folder"));
      const why = (command: string): unknown => {
        try {
          resolveCommand({ command, args: [], cwd: dir, env: { PATH: "" } }, { platform: "posix" });
          return undefined;
        } catch (error) {
          return (error as Error).message;
        }
      };
      expect(why("./missing.sh")).toBe(
        'Cannot start upstream "./missing.sh": no such file or folder (ENOENT)',
      );
      expect(why("./folder")).toBe('Cannot start upstream "./folder": it is a folder');
      expect(why("./plain.sh")).toStartWith('Cannot start upstream "./plain.sh": the file is not executable');
      // A backslash is no separator on POSIX: such a name is looked up in PATH.
      expect(why("a\\b")).toBe('Cannot start upstream "a\\b": not found in PATH ""');
    },
  );
});

describe("resolveCommand on Windows (rules tested with an injected file check)", () => {
  const files = new Set([
    "C:\\Program Files\\nodejs\\npx.cmd",
    "C:\\Program Files\\nodejs\\node.exe",
    "C:\\Windows\\System32\\cmd.exe",
    "C:\\proj\\server.bat",
  ]);
  const env = {
    Path: 'C:\\Windows\\System32;"C:\\Program Files\\nodejs"',
    PATHEXT: ".COM;.EXE;.BAT;.CMD",
    ComSpec: "C:\\Windows\\System32\\cmd.exe",
  };
  const options = { platform: "win32", isExecutable: (path: string) => files.has(path) } as const;

  test("resolveCommand() runs npx (npx.cmd via PATH + PATHEXT) through cmd.exe /d /v:off /s /c verbatim (F09)", () => {
    const resolved = resolveCommand(
      { command: "npx", args: ["-y", "pkg", "C:\\My Vault"], cwd: "C:\\proj", env },
      options,
    );
    expect(resolved.file).toBe("C:\\Windows\\System32\\cmd.exe");
    expect(resolved.windowsVerbatimArguments).toBe(true);
    expect(resolved.executable).toBe("C:\\Program Files\\nodejs\\npx.cmd");
    expect(resolved.args).toEqual([
      "/d",
      "/v:off",
      "/s",
      "/c",
      '"C:\\Program^ Files\\nodejs\\npx.cmd ^^^"-y^^^" ^^^"pkg^^^" ^^^"C:\\My^^^ Vault^^^""',
    ]);
  });

  test("resolveCommand() spawns an .exe directly", () => {
    expect(resolveCommand({ command: "node", args: ["s.js"], cwd: "C:\\proj", env }, options)).toEqual({
      file: "C:\\Program Files\\nodejs\\node.exe",
      args: ["s.js"],
      windowsVerbatimArguments: false,
      executable: "C:\\Program Files\\nodejs\\node.exe",
    });
  });

  test("resolveCommand() keeps an explicit cmd /c entry as it is (no second cmd layer)", () => {
    const resolved = resolveCommand(
      { command: "cmd", args: ["/c", "npx", "-y", "pkg"], cwd: "C:\\proj", env },
      options,
    );
    expect(resolved).toMatchObject({
      file: "C:\\Windows\\System32\\cmd.exe",
      args: ["/c", "npx", "-y", "pkg"],
      windowsVerbatimArguments: false,
    });
  });

  test("resolveCommand() accepts an explicit batch path, and one relative to the cwd", () => {
    expect(
      resolveCommand(
        { command: "C:\\Program Files\\nodejs\\npx.cmd", args: [], cwd: "C:\\proj", env },
        options,
      ).executable,
    ).toBe("C:\\Program Files\\nodejs\\npx.cmd");
    expect(resolveCommand({ command: ".\\server", args: [], cwd: "C:\\proj", env }, options).executable).toBe(
      "C:\\proj\\server.bat",
    );
  });

  // A cloned project (the cwd) holding cmd.bat, npx.cmd, node.js, node.exe and server.bat.
  const planted = new Set([
    ...files,
    "C:\\proj\\cmd.bat",
    "C:\\proj\\cmd.exe",
    "C:\\proj\\npx.cmd",
    "C:\\proj\\node.exe",
    "C:\\Program Files\\nodejs\\node.js",
  ]);
  const plantedOptions = { platform: "win32", isExecutable: (path: string) => planted.has(path) } as const;
  const wideEnv = {
    Path: '.;bin;C:\\Windows\\System32;"C:\\Program Files\\nodejs"',
    PATHEXT: ".JS;.COM;.EXE;.BAT;.CMD;.VBS",
    ComSpec: "C:\\Windows\\System32\\cmd.exe",
  };

  test.each<[string, string]>([
    ["npx", "C:\\Program Files\\nodejs\\npx.cmd"],
    ["node", "C:\\Program Files\\nodejs\\node.exe"],
    ["cmd", "C:\\Windows\\System32\\cmd.exe"],
    ["CMD.EXE", "C:\\Windows\\System32\\cmd.exe"],
  ])(
    "resolveCommand() finds a bare %s on PATH, not in the cwd or a relative PATH entry, and never a .js",
    (command, executable) => {
      expect(
        resolveCommand({ command, args: [], cwd: "C:\\proj", env: wideEnv }, plantedOptions).executable,
      ).toBe(executable);
    },
  );

  test("resolveCommand() does not run a bare name found only in the cwd", () => {
    expect(() => resolveCommand({ command: "server", args: [], cwd: "C:\\proj", env }, options)).toThrow(
      /"server": not found in PATH/,
    );
  });

  test("resolveCommand() takes cmd from COMSPEC, else %SystemRoot%, and runs batch files with it", () => {
    const other = new Set([...files, "D:\\Win\\System32\\cmd.exe", "C:\\proj\\cmd.bat"]);
    const otherOptions = { platform: "win32", isExecutable: (path: string) => other.has(path) } as const;
    const noComspec = { Path: env.Path, SystemRoot: "D:\\Win" };
    expect(
      resolveCommand({ command: "cmd", args: ["/c", "x"], cwd: "C:\\proj", env: noComspec }, otherOptions)
        .file,
    ).toBe("D:\\Win\\System32\\cmd.exe");
    expect(
      resolveCommand({ command: "npx", args: [], cwd: "C:\\proj", env: noComspec }, otherOptions).file,
    ).toBe("D:\\Win\\System32\\cmd.exe");
    const relative = { Path: env.Path, ComSpec: "cmd.exe" };
    expect(() =>
      resolveCommand({ command: "npx", args: [], cwd: "C:\\proj", env: relative }, otherOptions),
    ).toThrow(
      'Cannot start upstream "npx": cmd.exe not found (neither COMSPEC nor %SystemRoot%\\System32\\cmd.exe names a file)',
    );
  });

  test("resolveCommand() names the PATH searched on Windows too", () => {
    expect(() => resolveCommand({ command: "uvx", args: [], cwd: "C:\\proj", env }, options)).toThrow(
      /"uvx": not found in PATH "C:\\Windows/,
    );
  });
});
