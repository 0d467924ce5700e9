import { describe, expect, test } from "bun:test";
import type { JsonObject, JsonValue } from "../../src/engine/index.ts";
import { MAX_TOOL_PAGES, walkToolPages } from "../../src/proxy/tool-walk.ts";

function pages(next: (page: number) => string | undefined): {
  request: (params: JsonObject) => Promise<JsonValue>;
  sent: JsonObject[];
} {
  const sent: JsonObject[] = [];
  return {
    sent,
    request: (params) => {
      sent.push(params);
      const page = sent.length - 1;
      const cursor = next(page);
      return Promise.resolve({
        tools: [{ name: `tool_${page}` }],
        ...(cursor === undefined ? {} : { nextCursor: cursor }),
      });
    },
  };
}

describe("walkToolPages()", () => {
  test("walkToolPages() follows nextCursor through every page", async () => {
    const { request, sent } = pages((page) => (page < 2 ? `c${page + 1}` : undefined));
    const walk = await walkToolPages(request);
    expect(walk.tools.map((tool) => tool.name)).toEqual(["tool_0", "tool_1", "tool_2"]);
    expect(sent).toEqual([{}, { cursor: "c1" }, { cursor: "c2" }]);
    expect(walk.truncated).toBeUndefined();
  });

  test("walkToolPages() stops when a cursor comes back", async () => {
    const { request, sent } = pages(() => "same");
    const walk = await walkToolPages(request);
    expect(sent).toHaveLength(2);
    expect(walk.truncated).toContain("came back");
  });

  test("walkToolPages() stops after 100 pages", async () => {
    const { request, sent } = pages((page) => `c${page + 1}`);
    const walk = await walkToolPages(request);
    expect(sent).toHaveLength(MAX_TOOL_PAGES);
    expect(walk.truncated).toContain("100 pages");
  });

  test("walkToolPages() skips entries without a name and rejects a result without a tool list", async () => {
    const logs: string[] = [];
    const walk = await walkToolPages(
      () => Promise.resolve({ tools: [{ name: "ok" }, { title: "no name" }, 3] }),
      {
        log: (line) => void logs.push(line),
      },
    );
    expect(walk.tools).toEqual([{ name: "ok" }]);
    expect(logs).toHaveLength(2);
    await expect(walkToolPages(() => Promise.resolve({ nothing: true }))).rejects.toThrow("no tools list");
  });
});
