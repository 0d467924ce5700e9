import { expect, test } from "bun:test";
import { interruptedBy, stopSignals } from "../../src/platform/stop-signals.ts";

test("stopSignals() is SIGTERM, SIGINT and SIGHUP, without SIGHUP on Windows", () => {
  expect(stopSignals("linux")).toEqual(["SIGTERM", "SIGINT", "SIGHUP"]);
  expect(stopSignals("darwin")).toEqual(["SIGTERM", "SIGINT", "SIGHUP"]);
  expect(stopSignals("win32")).toEqual(["SIGTERM", "SIGINT"]);
});

test("interruptedBy() gives the status 128 + the signal's number", () => {
  expect(interruptedBy("SIGHUP")).toEqual({ signal: "SIGHUP", code: 129 });
  expect(interruptedBy("SIGINT")).toEqual({ signal: "SIGINT", code: 130 });
  expect(interruptedBy("SIGTERM")).toEqual({ signal: "SIGTERM", code: 143 });
});
