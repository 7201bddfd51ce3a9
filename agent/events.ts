import { EventEmitter } from 'node:events';

/**
 * Typed pipeline events. The agent emits, the CLI and the Ink TUI listen (`--events` prints them as JSON lines).
 * Payload units: `ms` is milliseconds, `chars` characters.
 */
export interface AgentEventMap {
  planning: { task: string };
  scan: { files: number; ms: number };
  context: { files: { path: string; chars: number }[]; totalChars: number; budgetChars: number; ms: number };
  /** The request about to be sent: prompt size (system + user) and the context's share, before the model call. */
  prompt: { chars: number; estimatedTokens: number; contextChars: number; budgetChars: number };
  model_request: { provider: string; model: string };
  model_progress: { chars: number };
  /** A provider request failed and is retried after `delayMs`; `message` is one line for a person. */
  model_retry: { attempt: number; maxRetries: number; delayMs: number; reason: string; message: string };
  model_reply: { ms: number; inputTokens?: number; outputTokens?: number };
  /** Patches were refused: the one repair request asks for these (1-based) patches again. */
  repair_request: { patches: number[]; firstError: string };
  /** The repair reply arrived; `applied` tells whether the plan applies with it; tokens as the provider reported them. */
  repair_reply: { ms: number; applied: boolean; inputTokens?: number; outputTokens?: number };
  read_file: { path: string };
  /**
   * A codemod rule (or a literal replacement over a pathspec) applied in memory: `matches` places in
   * `files` changed files; `unparsed` names the files left out because they did not parse.
   */
  rewrite_done: {
    index: number;
    operation: 'replace' | 'rewrite';
    pathspec: string;
    find: string;
    replace: string;
    matches: number;
    files: number;
    unparsed: string[];
  };
  diffs: { diffs: { file: string; diff: string }[] };
  write_file: { path: string };
  run_tests: { command: string };
  command_done: { command: string; exitCode: number | null };
  error: { message: string };
  success: { message: string; filesWritten: string[] };
  /** wide changes: the footprint found and how it was split, before any plan request */
  footprint: { files: number; shards: number; requestChars: number[] };
  shard_request: { shard: number; shards: number; files: number; chars: number };
  shard_done: {
    shard: number;
    shards: number;
    /** shards finished so far, this one included */
    done: number;
    status: 'planned' | 'failed';
    patches: number;
    usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
    error?: string;
  };
}

export type AgentEventName = keyof AgentEventMap;

/** A typed wrapper around EventEmitter; `emit` and `on` are checked against `AgentEventMap`. */
export class AgentEmitter {
  private readonly inner = new EventEmitter();

  emit<K extends AgentEventName>(name: K, payload: AgentEventMap[K]): void {
    this.inner.emit(name, payload);
  }

  on<K extends AgentEventName>(name: K, listener: (payload: AgentEventMap[K]) => void): () => void {
    this.inner.on(name, listener);
    return () => this.inner.off(name, listener);
  }

  /** Listen to every event; used by `--events` (JSON lines) and the TUI's activity feed. */
  onAny(listener: <K extends AgentEventName>(name: K, payload: AgentEventMap[K]) => void): () => void {
    const names: AgentEventName[] = [
      'planning',
      'scan',
      'context',
      'prompt',
      'model_request',
      'model_progress',
      'model_retry',
      'model_reply',
      'repair_request',
      'repair_reply',
      'read_file',
      'rewrite_done',
      'diffs',
      'write_file',
      'run_tests',
      'command_done',
      'error',
      'success',
      'footprint',
      'shard_request',
      'shard_done',
    ];
    const offs = names.map((n) => this.on(n, (p) => listener(n, p as never)));
    return () => offs.forEach((off) => off());
  }
}

/** Create a fresh emitter for one CLI session or TUI. */
export function createAgentEmitter(): AgentEmitter {
  return new AgentEmitter();
}
