import { expect, test } from "bun:test";
import { clientLookupEnv } from "../../src/init/launcher-problem.ts";

test.each([
  ["linux", { PATH: "/a", HOME: "/h" }, [["PATH", "/b"]], { PATH: "/b", HOME: "/h" }],
  ["linux", { PATH: "/a" }, [["Path", "/b"]], { PATH: "/a" }],
  ["linux", { PATH: "/a" }, [], { PATH: "/a" }],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder the client fills in, not a template
  ["linux", { PATH: "/a" }, [["PATH", "/b:${PATH}"]], { PATH: "/a" }],
  ["win32", { Path: "C:\\a", TEMP: "C:\\t" }, [["PATH", "C:\\b"]], { PATH: "C:\\b", TEMP: "C:\\t" }],
  ["win32", { PATH: "C:\\a" }, [["path", "C:\\b"]], { PATH: "C:\\b" }],
] as const)(
  "clientLookupEnv() on %s with %j and the entry's %j looks up on %j",
  (platform, env, entryEnv, expected) => {
    expect(clientLookupEnv({ platform, env }, entryEnv)).toEqual(expected);
  },
);
