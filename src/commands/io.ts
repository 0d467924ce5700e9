/**
 * Where a command writes: given to each command through citty's `data` (`{ io }`) so tests can run a
 * command in-process and read its output, while `src/cli.ts` passes the real streams. Edge.
 *
 * Source: SPEC §5 (tables and colour for people, JSON for scripts), STYLE #15, #18.
 * @module
 */

/** The output side of a command. */
export interface CommandIo {
  /** Writes text to standard output as it is (add your own newlines). */
  readonly out: (text: string) => void;
  /** Writes text to standard error as it is. */
  readonly err: (text: string) => void;
  /** Whether standard output is a terminal that takes colour (SPEC §5). */
  readonly color: boolean;
  /** The directory relative file names resolve against. */
  readonly cwd: string;
}

/** The ios {@link processIo} made. */
const processIos = new WeakSet<CommandIo>();

/**
 * The process's own streams: colour only when stdout is a TTY and `NO_COLOR` is unset.
 *
 * Source: SPEC §5 (colour when stdout is a terminal).
 * @returns A {@link CommandIo} over `process.stdout` and `process.stderr`.
 */
export function processIo(): CommandIo {
  const noColor = (process.env.NO_COLOR ?? "") !== "" || process.env.TERM === "dumb";
  const io: CommandIo = {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    color: process.stdout.isTTY === true && !noColor,
    cwd: process.cwd(),
  };
  processIos.add(io);
  return io;
}

/**
 * Whether an io writes to the process's own streams ({@link processIo}), so that a command may write
 * to them itself (`bouncer run` watches its stderr's back-pressure).
 * @param io - A command's io.
 * @returns True for one {@link processIo} made.
 */
export function writesToProcess(io: CommandIo): boolean {
  return processIos.has(io);
}

/**
 * An in-memory {@link CommandIo} for tests: everything written is kept.
 *
 * Source: STYLE #15 (commands are called directly by tests).
 * @param options - The working directory and whether to pretend to be a colour terminal.
 * @returns The io and accessors for what was written.
 */
export function memoryIo(options: { readonly cwd?: string; readonly color?: boolean } = {}): {
  readonly io: CommandIo;
  readonly stdout: () => string;
  readonly stderr: () => string;
} {
  let out = "";
  let err = "";
  return {
    io: {
      out: (text) => {
        out += text;
      },
      err: (text) => {
        err += text;
      },
      color: options.color ?? false,
      cwd: options.cwd ?? process.cwd(),
    },
    stdout: () => out,
    stderr: () => err,
  };
}

/**
 * The io a command was given through citty's `data`, or the process's streams.
 *
 * Source: STYLE #15.
 * @param data - citty's `context.data`.
 * @returns The command's io.
 */
export function commandIo(data: unknown): CommandIo {
  if (typeof data === "object" && data !== null && Object.hasOwn(data, "io")) {
    const io: unknown = Reflect.get(data, "io");
    if (typeof io === "object" && io !== null) return io as CommandIo;
  }
  return processIo();
}
