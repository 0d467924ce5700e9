import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { formatSha256Sums, sha256File } from "../../scripts/build/release-files.ts";
import { TARGETS } from "../../scripts/build/targets.ts";
import { verifyDist } from "../../scripts/build/verify-dist.ts";
import { fakeElf, fakeMachO, GLIBC_X64, GOOD } from "./fake-executables.ts";

describe("verifyDist()", () => {
  const scratch = mkdtempSync(join(tmpdir(), "bouncer-verify-dist-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /**
   * Fills the scratch folder with every target's fake file and a matching SHA256SUMS.
   */
  function fill(): void {
    for (const row of TARGETS) writeFileSync(join(scratch, row.file), GOOD.get(row.name)!);
    const entries = TARGETS.map((row) => ({ file: row.file, sha256: sha256File(join(scratch, row.file)) }));
    writeFileSync(join(scratch, "SHA256SUMS"), formatSha256Sums(entries));
  }

  test("verifyDist() finds nothing wrong with a complete folder", () => {
    fill();
    expect(verifyDist(scratch)).toEqual([]);
  });

  test("verifyDist() reports a file that no longer matches SHA256SUMS", () => {
    fill();
    const bytes = fakeMachO(0x0100000c, true);
    bytes[100] = 1;
    writeFileSync(join(scratch, "bouncer-darwin-arm64"), bytes);
    expect(verifyDist(scratch)).toEqual(['"bouncer-darwin-arm64" does not match SHA256SUMS']);
  });

  test("verifyDist() reports a missing file, a wrong header and a missing SHA256SUMS", () => {
    fill();
    rmSync(join(scratch, "bouncer-linux-arm64"));
    writeFileSync(join(scratch, "bouncer-windows-x64.exe"), fakeElf(0x3e, GLIBC_X64));
    const problems = verifyDist(scratch);
    expect(problems).toContain('"bouncer-linux-arm64" is missing');
    expect(
      problems.some((line) => line.startsWith('"bouncer-windows-x64.exe" has the wrong header')),
    ).toBeTrue();
    rmSync(join(scratch, "SHA256SUMS"));
    expect(verifyDist(scratch).some((line) => line.endsWith('SHA256SUMS" is missing'))).toBeTrue();
  });
});

/**
 * The output of a full `npm run build` (every target). Runs only where that build was made first and
 * BOUNCER_CHECK_DIST=1 says so: the release workflow and the CI `dist` job (a full build takes about
 * 20 s and 700 MB, too much for every `npm test`).
 */
describe.if(process.env.BOUNCER_CHECK_DIST === "1")("dist/ of a full build", () => {
  test("every target's file in dist/ exists, has its platform's header and matches SHA256SUMS", () => {
    expect(verifyDist(resolve(import.meta.dir, "../../dist"))).toEqual([]);
  });
});
