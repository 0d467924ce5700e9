/**
 * The embedded packs (SPEC §4.3, §6): read by `Bun.YAML` and the policy module's fast path, every
 * pack file compiles to exactly what the `yaml` library's reading of it compiles to (so the packs
 * are the same under Bun, Deno and Node), and none falls back to the slow reading.
 */

import { describe, expect, test } from "bun:test";
import { builtinPacks, builtinPackTexts } from "../../src/platform/packs.ts";
import { checkParsedPack } from "../../src/policy/check-parsed.ts";
import { parsePack } from "../../src/policy/index.ts";

describe("builtinPacks()", () => {
  test.each(builtinPackTexts().map(([name, text]) => [name, text] as const))(
    "builtinPacks() gives pack %s exactly as the yaml library reads it",
    (name, text) => {
      const pack = builtinPacks().find((candidate) => candidate.name === name);
      expect(pack).toEqual(parsePack(text, name));
      expect(checkParsedPack({ text, value: Bun.YAML.parse(text) }, name)).toEqual(parsePack(text, name));
    },
  );
});
