/*
 * One constant per default. They live on the ground floor because the lowest floor that applies one
 * (llm/ for the provider timeout) may not import config/; config/settings.ts builds its built-in layer
 * from these, and `--help` texts print them.
 */

/** Context budget: the most characters of file content sent to the provider for one task. */
export const DEFAULT_BUDGET_CHARS = 18_000;

/** How long a run waits for another clawcode run to release the project lock, in ms. */
export const DEFAULT_LOCK_WAIT_MS = 10_000;

/** Provider timeout per attempt, in ms: the longest one request may take, its whole streamed reply included. */
export const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * The longest provider timeout, in ms (about 23 days): under the largest delay a Node timer takes (2^31 - 1 ms),
 * with room for the SDKs' own timer a second later. A longer delay fires at once (Node sets it to 1 ms), so a
 * timeout of 3,000,000,000 failed every request before it was sent.
 */
export const MAX_TIMEOUT_MS = 2_000_000_000;
