import { describe, expect, test } from "bun:test";
import { memoryIo, processIo, writesToProcess } from "../../src/commands/io.ts";

describe("writesToProcess", () => {
  test("writesToProcess() is true for the process's io only (bouncer run then watches its stderr itself)", () => {
    expect(writesToProcess(processIo())).toBe(true);
    expect(writesToProcess(memoryIo().io)).toBe(false);
    expect(writesToProcess({ ...processIo() })).toBe(false);
  });
});
