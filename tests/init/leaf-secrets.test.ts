import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { readJsonConfig } from "../../src/init/json-config.ts";
import { serverNameStripper, withoutServerNames } from "../../src/init/leaf-secrets.ts";

/** The rule as written first: each section compared with the path, the first that matches wins. */
function reference(keys: readonly string[], sections: readonly (readonly string[])[]): string[] {
  for (const section of sections) {
    if (keys.length > section.length && section.every((key, i) => keys[i] === key)) {
      return [...keys.slice(0, section.length), ...keys.slice(section.length + 1)];
    }
  }
  return [...keys];
}

describe("serverNameStripper()", () => {
  test("drops the server name after a section, and only there", () => {
    const strip = serverNameStripper([["mcpServers"], ["projects", "/p", "mcpServers"]]);
    expect(strip(["mcpServers", "auth", "command"])).toEqual(["mcpServers", "command"]);
    expect(strip(["projects", "/p", "mcpServers", "auth", "env", "K"])).toEqual([
      "projects",
      "/p",
      "mcpServers",
      "env",
      "K",
    ]);
    expect(strip(["projects", "/q", "mcpServers", "auth"])).toEqual(["projects", "/q", "mcpServers", "auth"]);
    expect(strip(["mcpServers"])).toEqual(["mcpServers"]);
    expect(withoutServerNames(["oauth", "token"], [["mcpServers"]])).toEqual(["oauth", "token"]);
  });

  test("gives what comparing the path with every section in turn gives, for any paths", () => {
    const key = fc.constantFrom("a", "b", "mcpServers", "projects", "", '"', "\u0000");
    fc.assert(
      fc.property(
        fc.array(fc.array(key, { minLength: 1, maxLength: 3 }), { maxLength: 5 }),
        fc.array(key, { maxLength: 6 }),
        (sections, keys) => {
          expect(serverNameStripper(sections)(keys)).toEqual(reference(keys, sections));
        },
      ),
    );
  });
});

describe("readJsonConfig() on a large ~/.claude.json", () => {
  // Each of 20,000 projects has a server section (`"mcpServers": {}`, as Claude Code writes it) and
  // ten values: matched against every section, each value cost 20,000 comparisons (minutes). The
  // timeout is a hang guard only (STYLE: no wall-clock assertions); the cost is the property above.
  test("reads a file of 20,000 project sections, each with a server section, and finds its two servers", () => {
    const projects: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) {
      projects[`/home/me/p${i}`] = {
        mcpServers: {},
        allowedTools: ["Bash(ls)"],
        hasTrustDialogAccepted: true,
        lastCost: 0.25,
        lastDuration: 1234,
        lastSessionId: "0b8c5f",
        history: [{ display: "hello" }, { display: "again" }, { display: "more" }],
        projectOnboardingSeenCount: 1,
      };
    }
    projects["/home/me/p7"] = { mcpServers: { s: { command: "node", env: { API_KEY: "k-123" } } } };
    const text = JSON.stringify({ projects, mcpServers: { a: { command: "npx", args: ["x"] } } });
    const config = readJsonConfig(text, {
      format: "json",
      sections: { keys: ["mcpServers"], projects: true },
    });
    expect(config.entries.map((entry) => entry.label)).toEqual(["a", 's (project "/home/me/p7")']);
    expect(config.sections).toHaveLength(20_001);
  }, 60_000);
});
