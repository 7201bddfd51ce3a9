/**
 * The error base of clawcode. Every expected failure is a `ClawcodeError` subclass carrying a one-line
 * `message` for the person, an optional `hint` (what to do next), a stable machine-readable `code`
 * and the process `exitCode` (0 done, 1 runtime, 2 usage, 3 plan not applied, 4 command or verify failed,
 * 130 interrupted). Only `cli.ts` catches at the top and exits. The general kinds are below; a kind
 * that belongs to one area is defined beside the code that throws it (e.g. `PlanParseError` in
 * llm/plan-parser.ts).
 */
export class ClawcodeError extends Error {
  /** Stable code for tests, logs and `--json` reports, e.g. `patch_ambiguous_find`. */
  readonly code: string;
  /** Process exit code: 1 runtime, 2 usage, 3 plan not applied, 4 command failed, 130 interrupted. */
  readonly exitCode: number;
  /** What the person can do next, one line, or undefined. */
  readonly hint?: string;
  /**
   * Model replies that were paid for and gave no plan (a reply with no valid plan, one cut at the token limit),
   * in the order they came; the CLI keeps them under the clawcode home and names the file.
   */
  replies?: readonly string[];

  constructor(message: string, options: { code: string; exitCode: number; hint?: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.exitCode = options.exitCode;
    this.hint = options.hint;
  }
}

/** Bad flags, arguments or input files from the person. Exit 2. */
export class UsageError extends ClawcodeError {
  constructor(message: string, options: { code?: string; hint?: string; cause?: unknown } = {}) {
    super(message, { code: options.code ?? 'usage', exitCode: 2, hint: options.hint, cause: options.cause });
  }
}

/** A file-system failure (unreadable project file, unwritable target). Exit 1. */
export class IoError extends ClawcodeError {
  constructor(message: string, options: { code?: string; hint?: string; cause?: unknown } = {}) {
    super(message, { code: options.code ?? 'io', exitCode: 1, hint: options.hint, cause: options.cause });
  }
}

/** The person pressed Ctrl-C or aborted a prompt. Exit 130. */
export class InterruptedError extends ClawcodeError {
  constructor(message = 'Interrupted', options: { cause?: unknown } = {}) {
    super(message, { code: 'interrupted', exitCode: 130, cause: options.cause });
  }
}

/** The plan could not be applied as a whole; nothing was written. Exit 3. */
export class PatchApplyError extends ClawcodeError {
  constructor(message: string, options: { code?: string; hint?: string; cause?: unknown } = {}) {
    super(message, {
      code: options.code ?? 'patch_not_applied',
      exitCode: 3,
      hint: options.hint,
      cause: options.cause,
    });
  }
}

/** Missing, corrupt or incomplete configuration (no provider, bad config.json). Exit 1. */
export class ConfigError extends ClawcodeError {
  constructor(message: string, options: { code?: string; hint?: string; cause?: unknown } = {}) {
    super(message, { code: options.code ?? 'config', exitCode: 1, hint: options.hint, cause: options.cause });
  }
}

/**
 * A provider call failed (HTTP error, timeout, refusal, truncated or unparseable reply). Exit 1.
 * `status` is the HTTP status when there was one; `retryable` says whether a retry could help.
 */
export class ProviderError extends ClawcodeError {
  readonly provider: string;
  readonly status?: number;
  readonly retryable: boolean;

  constructor(
    message: string,
    options: { provider: string; code?: string; status?: number; retryable?: boolean; hint?: string; cause?: unknown },
  ) {
    super(message, { code: options.code ?? 'provider_error', exitCode: 1, hint: options.hint, cause: options.cause });
    this.provider = options.provider;
    this.status = options.status;
    this.retryable = options.retryable ?? false;
  }
}
