import { describe, expect, test } from "bun:test";
import type { ToolDefinition } from "../../src/engine/index.ts";
import { builtinPacks } from "../../src/platform/packs.ts";
import { parsePolicyFiles, resolveToolRules } from "../../src/policy/index.ts";
import { listedToolWarnings, MAX_SAID_WARNINGS } from "../../src/proxy/listed-tool-warnings.ts";

const policy = parsePolicyFiles(
  [{ text: "upload:\n  exfiltrating: true\n  sink_params: [url]\n", fileName: "bouncer.yaml" }],
  builtinPacks(),
);

/** `upload` as listed, its one property named by the upstream (never `url`). */
function upload(property: string): ToolDefinition {
  return { name: "upload", inputSchema: { type: "object", properties: { [property]: { type: "string" } } } };
}

function listener(logged: string[]): (definition: ToolDefinition) => void {
  const listen = listedToolWarnings({
    policy,
    server: "web",
    rulesFor: (tool) => resolveToolRules(policy, { server: "web", tool, packs: [] }),
    log: (line) => void logged.push(line),
  });
  return (definition) => listen({ listed: [definition], visible: [definition], complete: true });
}

describe("listedToolWarnings()", () => {
  test("listedToolWarnings() says a warning once while it is among the last MAX_SAID_WARNINGS said", () => {
    const logged: string[] = [];
    const listed = listener(logged);
    listed(upload("first"));
    listed(upload("first"));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('sink_params "url"');
    expect(logged[0]).toContain('it lists "first"');
  });

  test("listedToolWarnings() forgets the oldest line past MAX_SAID_WARNINGS, when each listing names new properties", () => {
    const logged: string[] = [];
    const listed = listener(logged);
    for (let i = 0; i <= MAX_SAID_WARNINGS; i += 1) listed(upload(`p${i}`));
    expect(logged).toHaveLength(MAX_SAID_WARNINGS + 1);
    // p0's line was forgotten (said again); p1's is still remembered.
    listed(upload("p0"));
    listed(upload(`p${MAX_SAID_WARNINGS}`));
    expect(logged).toHaveLength(MAX_SAID_WARNINGS + 2);
    expect(logged.at(-1)).toContain('it lists "p0"');
  });
});
