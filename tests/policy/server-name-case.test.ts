import { describe, expect, test } from "bun:test";
import { parsePolicy, serverCaseWarning, serverSectionsInOtherCase } from "../../src/policy/index.ts";

describe("serverSectionsInOtherCase() (SPEC §4.1: servers.<name> is case-sensitive)", () => {
  test("serverSectionsInOtherCase() finds a section that differs from the upstream name in case only", () => {
    const files = [
      parsePolicy("servers:\n  GitHub: { create_issue: { action: deny } }\n  mail: {}\n", "a.yaml"),
      parsePolicy("servers:\n  GITHUB: {}\n  GitHub: {}\n", "b.yaml"),
    ];
    expect(serverSectionsInOtherCase(files, "github")).toEqual(["GitHub", "GITHUB"]);
  });

  test("serverSectionsInOtherCase() says nothing when some file has the exact section, or none is near", () => {
    const files = [
      parsePolicy("servers:\n  GitHub: {}\n", "a.yaml"),
      parsePolicy("servers:\n  github: {}\n", "b.yaml"),
    ];
    expect(serverSectionsInOtherCase(files, "github")).toEqual([]);
    expect(serverSectionsInOtherCase(files, "mail")).toEqual([]);
  });

  test("serverCaseWarning() names the section, the upstream name and both ways out, on one line", () => {
    expect(serverCaseWarning(["GitHub"], "github")).toBe(
      'Warning: no servers section is named "github" (the --upstream-name), but servers."GitHub" differs from it in case only: section names are case-sensitive, so those entries do not apply to this server (rename the section to "github", or run with --upstream-name "GitHub")',
    );
  });
});
