import { describe, expect, test } from "bun:test";
import {
  approvalKeyString,
  budgetKey,
  createEngineState,
  restoreServerState,
  takeServerState,
} from "../../src/engine/index.ts";

describe("takeServerState() and restoreServerState()", () => {
  test("takeServerState() removes only that server's budgets and answers; restoreServerState() puts them back", () => {
    const state = createEngineState();
    const mail = approvalKeyString({ server: "mail", tool: "send", param: "to", identity: "a@x.example" });
    const web = approvalKeyString({ server: "web", tool: "get", param: "url", identity: "x.example" });
    state.budgets.set(budgetKey("mail", "read"), 2);
    state.budgets.set(budgetKey("web", "get"), 1);
    state.approvals.set(mail, "declined");
    state.approvals.set(web, "approved");
    const taken = takeServerState(state, "mail");
    expect([...state.budgets]).toEqual([[budgetKey("web", "get"), 1]]);
    expect([...state.approvals]).toEqual([[web, "approved"]]);
    state.budgets.set(budgetKey("mail", "read"), 1);
    restoreServerState(state, taken);
    expect(state.budgets.get(budgetKey("mail", "read"))).toBe(2);
    expect(state.approvals.get(mail)).toBe("declined");
  });
});
