import { describe, expect, test } from "bun:test";
import { bouncerHome } from "../../src/platform/home-dir.ts";

describe("bouncerHome", () => {
  test.each([
    ["BOUNCER_HOME absolute", { BOUNCER_HOME: "/srv/b" }, "/srv/b"],
    ["BOUNCER_HOME relative (to the cwd)", { BOUNCER_HOME: "state" }, "/work/x/state"],
    ["BOUNCER_HOME empty", { BOUNCER_HOME: " " }, "/home/u/.bouncer"],
    ["no BOUNCER_HOME", {}, "/home/u/.bouncer"],
  ])("bouncerHome() with %s", (_name, env, expected) => {
    expect(bouncerHome({ env, userHome: "/home/u", cwd: "/work/x" })).toBe(expected);
  });
});
