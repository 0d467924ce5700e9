/**
 * Expands the placeholders a client itself expands in a server entry, so that `bouncer doctor`
 * starts the server as that client would: VS Code and Cursor `${workspaceFolder}`, `${userHome}`,
 * `${env:NAME}` (and `${input:ID}`, which only the client can ask for); Claude Code `${VAR}` and
 * `${VAR:-default}`; Gemini CLI `$VAR` and `${VAR}`. Other clients pass strings through. `init` never
 * expands anything (it copies every string byte for byte, field case F11). Pure.
 *
 * Source: SPEC §5.3 ("launched exactly as the client would"), field cases F11, F15.
 * @module
 */

import type { ClientKind } from "./types.ts";

/** What expansion needs. */
export interface ExpandContext {
  readonly client: ClientKind;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The project folder (`${workspaceFolder}`). */
  readonly workspaceFolder: string;
  readonly home: string;
}

/** An expanded value, or the placeholder that cannot be expanded outside the client. */
export type Expanded = { readonly value: string } | { readonly unresolved: string };

/**
 * Expands one string.
 *
 * Source: SPEC §5.3.
 * @param value - A command, argument, env value or cwd from the entry.
 * @param context - The client and what its placeholders stand for.
 * @returns The expanded string, or the first placeholder only the client can fill.
 * @example expandPlaceholders("${workspaceFolder}/x", { client: "vscode", env: {}, workspaceFolder: "/p", home: "/h" })
 * // { value: "/p/x" }
 */
export function expandPlaceholders(value: string, context: ExpandContext): Expanded {
  let unresolved: string | undefined;
  const env = (name: string): string | undefined =>
    Object.hasOwn(context.env, name) ? context.env[name] : undefined;
  let out = value;
  switch (context.client) {
    case "vscode":
    case "cursor":
      out = value.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
        if (inner === "workspaceFolder") return context.workspaceFolder;
        if (inner === "userHome") return context.home;
        if (inner.startsWith("env:")) return env(inner.slice(4)) ?? "";
        if (inner.startsWith("input:")) unresolved ??= whole;
        return whole;
      });
      break;
    case "claude-code":
      out = value.replace(
        /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
        (whole, name: string, fallback?: string) => {
          const found = env(name) ?? fallback;
          if (found === undefined) unresolved ??= whole;
          return found ?? whole;
        },
      );
      break;
    case "gemini":
      out = value.replace(
        /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
        (whole, braced?: string, bare?: string) => {
          return env(braced ?? bare ?? "") ?? whole;
        },
      );
      break;
    default:
      break;
  }
  return unresolved === undefined ? { value: out } : { unresolved };
}
