import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A loopback HTTP server (127.0.0.1, port 0) that speaks the wire protocols of the provider SDKs,
 * for tests through the real SDKs and for end-to-end runs of the
 * built CLI (start it in the test process, point OPENAI_BASE_URL etc. at `url`):
 * - OpenAI / Groq / Azure chat completions: any POST path ending in `/chat/completions`
 *   (`/v1/…`, `/openai/v1/…`, `/openai/deployments/<dep>/…?api-version=…`), plain JSON or SSE
 *   (`stream: true`, with a usage chunk when `stream_options.include_usage`, as OpenAI and Azure send it);
 * - Gemini `…/models/<model>:generateContent` and `:streamGenerateContent?alt=sse` (errors on the
 *   streamed path come as `content-type: text/event-stream` with a JSON body, as the service sends them);
 * - Anthropic Messages API: POST `…/v1/messages`, streamed as named events (`message_start`,
 *   `content_block_start` with `tool_use` when the request forces a tool, `input_json_delta`, `ping`,
 *   `message_delta` with usage, `message_stop`; `error` events mid-stream);
 * - model lists: GET `…/models` (OpenAI shape; Gemini shape under `/v1beta/`; Anthropic shape for requests with
 *   `x-api-key` or `anthropic-version`);
 * - one model: GET `…/models/<id>` (Groq `/openai/v1/models/<id>`, Gemini `/v1beta/models/<model>`, Anthropic
 *   `/v1/models/<id>`): the model object when `models` lists it, else the service's 404 body;
 * - Azure deployments: with `deployments` set, chat completions for any other deployment answer 404
 *   `DeploymentNotFound`, as the service does.
 * Replies are scripted per test and consumed in order by completion requests; every request is recorded.
 * Recorded traffic from real services lives in `tests/support/fixtures/` (see its README) and is replayed
 * with `replies.fixture`: `.json` files hold events (or an error), `.sse` files a response body byte for byte.
 */

/** A recorded exchange from `tests/support/fixtures/` (see the README there). */
export interface RecordedFixture {
  /** Where it was recorded (for `.sse` files the README names it). */
  source: Record<string, string>;
  protocol: 'openai' | 'gemini' | 'anthropic';
  /** Streamed events; `"$TEXT"` strings are replaced by pieces of the answer text. */
  events?: { event?: string; data: unknown }[];
  /**
   * A streamed body as recorded, sent as is (blank lines, a missing last newline, `[DONE]`), except that
   * each `"$TEXT"` JSON string becomes a piece of the answer text.
   */
  sse?: string;
  /** An error: HTTP status and JSON body. */
  status?: number;
  body?: unknown;
}

/** A scripted reply, independent of the protocol; the server renders it for the request's protocol. */
export type ScriptedReply =
  | {
      type: 'text';
      text: string;
      /** Token counts reported back. @default {input: 10, output: 5} */
      usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
      /** `length` renders as Gemini `MAX_TOKENS` / Anthropic `max_tokens`. @default 'stop' */
      finishReason?: 'stop' | 'length' | 'content_filter';
      /** Characters per streamed chunk. @default a quarter of the text */
      chunkChars?: number;
      /** Pause before each streamed chunk, in ms (a reply that trickles in). @default 0 */
      intervalMs?: number;
      /** OpenAI `message.refusal` instead of content. */
      refusal?: string;
      /** Reasoning sent beside the answer: a Gemini `thought: true` part, OpenAI-compatible `delta.reasoning_content`. */
      thought?: string;
    }
  | {
      type: 'error';
      status: number;
      message: string;
      code?: string;
      param?: string;
      headers?: Record<string, string>;
      /** Gemini `google.rpc` details (RetryInfo ...). */
      details?: unknown[];
      /** Anthropic error type (`overloaded_error` ...). @default from the status */
      errorType?: string;
      /** Start a 200 stream, then send the error as a stream event (OpenAI `data: {error}`, Anthropic `event: error`). */
      midStream?: boolean;
    }
  /** Headers never come: the request hangs until the client gives up or the server closes. */
  | { type: 'hang' }
  /** A streamed reply starts (200 and `text` so far), then the connection is cut. */
  | { type: 'drop'; text: string }
  /** A stream that never ends: chunks of `chunkChars` characters as fast as the client reads them. */
  | { type: 'flood'; chunkChars?: number }
  /** A recorded fixture replayed with `text` as the answer. */
  | { type: 'fixture'; fixture: RecordedFixture; text: string }
  /** A redirect (`status`, default 307) to the same path and query at the origin `to` (`http://localhost:<port>`). */
  | { type: 'redirect'; status?: number; to: string }
  /**
   * A long body: `status` (200 as `text/event-stream`, any other as JSON, unless `contentType`), then `prefix`, then `fill` repeated
   * (default `a`) up to `bytes` in all, as fast as the client reads; the bytes written land in `sentBytes`.
   */
  | { type: 'bulk'; status: number; bytes: number; prefix?: string; fill?: string; contentType?: string }
  | ((request: RecordedRequest) => ScriptedReply);

/** Protocol a request was recognised as. */
export type WireProtocol = 'openai' | 'gemini' | 'anthropic' | 'models' | 'model' | 'unknown';

/** One request as received. */
export interface RecordedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  /** Path without the query. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names. */
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or undefined when there was none (or it was not JSON). */
  body: any;
  protocol: WireProtocol;
  /** Whether a streamed reply was asked for. */
  stream: boolean;
  /** For a `bulk` reply: bytes written so far (the client may stop reading long before the end). */
  sentBytes?: number;
}

/** The running server. */
export interface ProviderServer {
  /** `http://127.0.0.1:<port>` with no trailing slash. */
  url: string;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** Queue replies for the next completion requests, in order. */
  reply(...replies: ScriptedReply[]): void;
  /** Reply used when the queue is empty. @default a 500 saying no reply was scripted */
  setFallback(reply: ScriptedReply | undefined): void;
  /** Completion requests only (chat completions, Gemini generate calls, Anthropic messages). */
  completions(): RecordedRequest[];
  /** Drop queued replies and recorded requests. */
  reset(): void;
  /** Stop listening and cut open connections (hanging requests included). */
  close(): Promise<void>;
}

/** Options of `startProviderServer`. */
export interface ProviderServerOptions {
  /** When set, any other key is refused (401; Gemini: 400 API_KEY_INVALID, as the real API does). */
  apiKey?: string;
  /** Model ids listed by GET …/models and found by GET …/models/<id>. @default ['test-model'] */
  models?: string[];
  /**
   * Context windows in tokens the model listings report, per model id, in each service's field
   * (OpenAI-compatible `context_length`, Anthropic `max_input_tokens`, Gemini `inputTokenLimit`).
   * @default none, except Gemini's 1,048,576
   */
  windows?: Record<string, number>;
  /** Azure deployments that exist; when set, chat completions naming another one answer 404 `DeploymentNotFound`. */
  deployments?: string[];
}

/** Ready-made scripted replies. */
export const replies = {
  /** A plan (or any object) as the JSON reply text. */
  plan(
    plan: unknown,
    options: { usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number } } = {},
  ): ScriptedReply {
    return { type: 'text', text: JSON.stringify(plan), ...options };
  },
  text(text: string, options: { usage?: { input: number; output: number }; chunkChars?: number } = {}): ScriptedReply {
    return { type: 'text', text, ...options };
  },
  /** The plan inside prose and a ```json fence, as models without structured output answer. */
  prose(plan: unknown): ScriptedReply {
    return {
      type: 'text',
      text: `Sure! Here is the plan:\n\n\`\`\`json\n${JSON.stringify(plan, null, 2)}\n\`\`\`\n\nLet me know if you need more.`,
    };
  },
  /** Output cut at the token limit: finish_reason `length` / finishReason `MAX_TOKENS`. */
  truncated(text = '{"analysis":"cut her'): ScriptedReply {
    return { type: 'text', text, finishReason: 'length' };
  },
  refusal(text = "I'm sorry, I can't help with that."): ScriptedReply {
    return { type: 'text', text: '', refusal: text };
  },
  status(status: number, message: string, headers?: Record<string, string>): ScriptedReply {
    return { type: 'error', status, message, ...(headers ? { headers } : {}) };
  },
  unauthorized(): ScriptedReply {
    return { type: 'error', status: 401, message: 'Incorrect API key provided.', code: 'invalid_api_key' };
  },
  /** 429 with `Retry-After` in seconds. */
  rateLimited(retryAfterSeconds = 0): ScriptedReply {
    return {
      type: 'error',
      status: 429,
      message: 'Rate limit reached.',
      code: 'rate_limit_exceeded',
      headers: { 'retry-after': String(retryAfterSeconds) },
    };
  },
  serverError(message = 'The server had an error while processing your request.'): ScriptedReply {
    return { type: 'error', status: 500, message, headers: { 'retry-after-ms': '1' } };
  },
  notFound(model = 'no-such-model'): ScriptedReply {
    return {
      type: 'error',
      status: 404,
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
      code: 'model_not_found',
    };
  },
  /** The 400 a server without structured-output support answers. */
  responseFormat400(): ScriptedReply {
    return {
      type: 'error',
      status: 400,
      message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
      param: 'response_format',
    };
  },
  hang(): ScriptedReply {
    return { type: 'hang' };
  },
  /** A plan that arrives one character per chunk, `intervalMs` apart. */
  trickle(plan: unknown, intervalMs: number): ScriptedReply {
    return { type: 'text', text: JSON.stringify(plan), chunkChars: 1, intervalMs };
  },
  /** An endless fast stream. */
  flood(chunkChars = 65_536): ScriptedReply {
    return { type: 'flood', chunkChars };
  },
  /** Anthropic's 529 `overloaded_error`. */
  overloaded(): ScriptedReply {
    return { type: 'error', status: 529, message: 'Overloaded', errorType: 'overloaded_error' };
  },
  /** Replay a recorded fixture (tests/support/fixtures/<provider>/<name>.json or .sse) with the plan as its answer. */
  fixture(name: string, plan: unknown = undefined): ScriptedReply {
    return { type: 'fixture', fixture: loadFixture(name), text: plan === undefined ? '' : JSON.stringify(plan) };
  },
  /** The connection drops in the middle of a streamed reply. */
  drop(text = '{"analysis":"half'): ScriptedReply {
    return { type: 'drop', text };
  },
};

const GEMINI_PATH = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
/** GET of one model: the id is everything after the first `/models/` (Groq ids hold slashes). */
const MODEL_PATH = /^.*?\/models\/([^:]+)$/;
const AZURE_DEPLOYMENT_PATH = /\/openai\/deployments\/([^/]+)\//;

/** A fixture file, by `<provider>/<name>` under tests/support/fixtures/: `<name>.sse` (an OpenAI-protocol body) or `<name>.json`. */
export function loadFixture(name: string): RecordedFixture {
  const base = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', name);
  if (existsSync(`${base}.sse`))
    return {
      source: { readme: 'tests/support/fixtures/README.md' },
      protocol: 'openai',
      sse: readFileSync(`${base}.sse`, 'utf8'),
    };
  return JSON.parse(readFileSync(`${base}.json`, 'utf8')) as RecordedFixture;
}

function classify(method: string, path: string): WireProtocol {
  if (method === 'POST' && path.endsWith('/chat/completions')) return 'openai';
  if (method === 'POST' && path.endsWith('/v1/messages')) return 'anthropic';
  if (method === 'POST' && GEMINI_PATH.test(path)) return 'gemini';
  if (method === 'GET' && /\/models\/?$/.test(path)) return 'models';
  if (method === 'GET' && MODEL_PATH.test(path)) return 'model';
  return 'unknown';
}

function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const auth = headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice(7);
  const key = headers['api-key'] ?? headers['x-goog-api-key'] ?? headers['x-api-key'];
  return typeof key === 'string' ? key : undefined;
}

function split(text: string, size: number): string[] {
  if (!text) return [];
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

function errorBody(protocol: WireProtocol, reply: Extract<ScriptedReply, { type: 'error' }>): unknown {
  const geminiStatus: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    429: 'RESOURCE_EXHAUSTED',
    500: 'INTERNAL',
    503: 'UNAVAILABLE',
  };
  if (protocol === 'gemini') {
    return {
      error: {
        code: reply.status,
        message: reply.message,
        status: geminiStatus[reply.status] ?? 'UNKNOWN',
        ...(reply.details ? { details: reply.details } : {}),
      },
    };
  }
  if (protocol === 'anthropic') {
    return {
      type: 'error',
      error: { type: reply.errorType ?? ANTHROPIC_ERROR_TYPES[reply.status] ?? 'api_error', message: reply.message },
    };
  }
  return {
    error: {
      message: reply.message,
      type: reply.status === 429 ? 'rate_limit_error' : 'invalid_request_error',
      param: reply.param ?? null,
      code: reply.code ?? null,
    },
  };
}

/**
 * Send an HTTP error. Gemini answers a streamed request's error with `content-type: text/event-stream`
 * and the JSON body indented, as the real service does (which makes @google/genai wrap the text once more).
 */
function sendJsonError(
  res: ServerResponse,
  request: RecordedRequest | undefined,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const sse = request?.protocol === 'gemini' && request.stream;
  res.writeHead(status, { 'content-type': sse ? 'text/event-stream' : 'application/json', ...headers });
  res.end(sse ? `${JSON.stringify(body, null, 2)}\n` : JSON.stringify(body));
}

function sendError(
  res: ServerResponse,
  protocol: WireProtocol,
  reply: Extract<ScriptedReply, { type: 'error' }>,
  request?: RecordedRequest,
): void {
  const body = errorBody(protocol, reply);
  if (reply.midStream && (protocol === 'openai' || protocol === 'anthropic')) {
    res.writeHead(200, { 'content-type': 'text/event-stream', ...reply.headers });
    if (protocol === 'anthropic') {
      res.write(
        `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_test', type: 'message', role: 'assistant', model: request?.body?.model ?? 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n`,
      );
      res.end(`event: error\ndata: ${JSON.stringify(body)}\n\n`);
    } else res.end(`data: ${JSON.stringify(body)}\n\n`);
    return;
  }
  sendJsonError(res, request, reply.status, body, reply.headers);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Wait until the response can take more data or the client went away (listeners removed either way). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Write SSE frames in order, `intervalMs` apart, stopping when the client goes away. */
async function writeFrames(res: ServerResponse, frames: string[], intervalMs = 0): Promise<void> {
  for (const frame of frames) {
    if (intervalMs > 0) await sleep(intervalMs);
    if (res.destroyed || res.writableEnded) return;
    if (!res.write(frame)) await drained(res);
  }
  if (!res.destroyed) res.end();
}

function sendOpenAI(
  res: ServerResponse,
  request: RecordedRequest,
  reply: Extract<ScriptedReply, { type: 'text' }>,
): void {
  const model = typeof request.body?.model === 'string' ? request.body.model : 'test-model';
  const usage = {
    prompt_tokens: reply.usage?.input ?? 10,
    completion_tokens: reply.usage?.output ?? 5,
    total_tokens: (reply.usage?.input ?? 10) + (reply.usage?.output ?? 5),
    ...(reply.usage?.cacheRead ? { prompt_tokens_details: { cached_tokens: reply.usage.cacheRead } } : {}),
  };
  const finish = reply.finishReason ?? 'stop';
  const base = { id: 'chatcmpl-test', created: 1, model };
  if (!request.stream) {
    const message = { role: 'assistant', content: reply.refusal ? null : reply.text, refusal: reply.refusal ?? null };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  // With include_usage every chunk carries `usage: null` and one last chunk with no choices the counts (as OpenAI sends).
  const withUsage = Boolean(request.body?.stream_options?.include_usage);
  const frames: string[] = [];
  const chunk = (delta: Record<string, unknown>, finishReason: string | null): void =>
    void frames.push(
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }], ...(withUsage ? { usage: null } : {}) })}\n\n`,
    );
  chunk({ role: 'assistant', content: '' }, null);
  if (reply.thought) chunk({ reasoning_content: reply.thought }, null);
  if (reply.refusal) chunk({ refusal: reply.refusal }, null);
  for (const piece of split(reply.text, reply.chunkChars ?? Math.max(1, Math.ceil(reply.text.length / 4))))
    chunk({ content: piece }, null);
  chunk({}, finish);
  if (withUsage)
    frames.push(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
  frames.push('data: [DONE]\n\n');
  void writeFrames(res, frames, reply.intervalMs);
}

function sendGemini(
  res: ServerResponse,
  request: RecordedRequest,
  reply: Extract<ScriptedReply, { type: 'text' }>,
): void {
  const model = GEMINI_PATH.exec(request.path)?.[1] ?? 'gemini-test';
  const finishReason =
    reply.finishReason === 'length' ? 'MAX_TOKENS' : reply.finishReason === 'content_filter' ? 'SAFETY' : 'STOP';
  const input = reply.usage?.input ?? 10;
  const output = reply.usage?.output ?? 5;
  const usageMetadata = { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output };
  const thoughtPart = reply.thought ? [{ text: reply.thought, thought: true }] : [];
  const candidate = (text: string, first: boolean, last: boolean): Record<string, unknown> => ({
    content: { role: 'model', parts: [...(first ? thoughtPart : []), { text }] },
    index: 0,
    ...(last ? { finishReason } : {}),
  });
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ candidates: [candidate(reply.text, true, true)], usageMetadata, modelVersion: model }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const pieces = split(reply.text, reply.chunkChars ?? Math.max(1, Math.ceil(reply.text.length / 4)));
  if (pieces.length === 0) pieces.push('');
  const frames = pieces.map((piece, i) => {
    const last = i === pieces.length - 1;
    return `data: ${JSON.stringify({ candidates: [candidate(piece, i === 0, last)], ...(last ? { usageMetadata } : {}), modelVersion: model })}\r\n\r\n`;
  });
  void writeFrames(res, frames, reply.intervalMs);
}

/** The Messages API: a streamed forced tool call (or text when no tool is forced), as Anthropic sends it. */
function sendAnthropic(
  res: ServerResponse,
  request: RecordedRequest,
  reply: Extract<ScriptedReply, { type: 'text' }>,
): void {
  const model = typeof request.body?.model === 'string' ? request.body.model : 'claude-test';
  const toolName: string | undefined =
    request.body?.tool_choice?.type === 'tool' ? request.body.tool_choice.name : undefined;
  const stop =
    reply.finishReason === 'length'
      ? 'max_tokens'
      : reply.finishReason === 'content_filter'
        ? 'refusal'
        : toolName
          ? 'tool_use'
          : 'end_turn';
  const usage = {
    input_tokens: reply.usage?.input ?? 10,
    cache_creation_input_tokens: reply.usage?.cacheWrite ?? 0,
    cache_read_input_tokens: reply.usage?.cacheRead ?? 0,
  };
  const output = reply.usage?.output ?? 5;
  const block = toolName
    ? { type: 'tool_use', id: 'toolu_test', name: toolName, input: {} }
    : { type: 'text', text: '' };
  if (!request.stream) {
    const content = toolName
      ? [{ ...block, input: JSON.parse(reply.text || '{}') }]
      : [{ type: 'text', text: reply.text }];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'msg_test',
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage: { ...usage, output_tokens: output },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const frames: string[] = [];
  const event = (data: { type: string } & Record<string, unknown>): void =>
    void frames.push(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
  event({
    type: 'message_start',
    message: {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
  event({ type: 'content_block_start', index: 0, content_block: block });
  event({ type: 'ping' });
  for (const piece of split(reply.text, reply.chunkChars ?? Math.max(1, Math.ceil(reply.text.length / 4)))) {
    const delta = toolName ? { type: 'input_json_delta', partial_json: piece } : { type: 'text_delta', text: piece };
    event({ type: 'content_block_delta', index: 0, delta });
  }
  event({ type: 'content_block_stop', index: 0 });
  event({ type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: output } });
  event({ type: 'message_stop' });
  void writeFrames(res, frames, reply.intervalMs);
}

/** Replace each `"$TEXT"` string in the events with the next piece of `text`, split evenly. */
function fillFixture(events: { event?: string; data: unknown }[], text: string): { event?: string; data: unknown }[] {
  const count = (JSON.stringify(events).match(/"\$TEXT"/g) ?? []).length;
  const pieces = count > 0 ? split(text, Math.max(1, Math.ceil(text.length / count))) : [];
  let next = 0;
  const fill = (value: unknown): unknown => {
    if (value === '$TEXT') return pieces[next++] ?? '';
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  };
  return events.map((e) => ({ ...e, data: fill(e.data) }));
}

/** A recorded body with each `"$TEXT"` replaced by the next piece of `text` (split evenly), cut into its events. */
function fillSse(sse: string, text: string): string[] {
  const count = (sse.match(/"\$TEXT"/g) ?? []).length;
  const pieces = count > 0 ? split(text, Math.max(1, Math.ceil(text.length / count))) : [];
  let next = 0;
  const body = sse.replace(/"\$TEXT"/g, () => JSON.stringify(pieces[next++] ?? ''));
  // One write per event, each with the blank line that ends it; the bytes sent are the body unchanged.
  return body.split(/(?<=\n\n)/);
}

function sendFixture(
  res: ServerResponse,
  request: RecordedRequest,
  reply: Extract<ScriptedReply, { type: 'fixture' }>,
): void {
  const { fixture } = reply;
  if (fixture.status !== undefined && fixture.status >= 400)
    return sendJsonError(res, request, fixture.status, fixture.body);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (fixture.sse !== undefined) return void writeFrames(res, fillSse(fixture.sse, reply.text));
  const frames = fillFixture(fixture.events ?? [], reply.text).map((e) =>
    fixture.protocol === 'anthropic'
      ? `event: ${e.event ?? 'message'}\ndata: ${JSON.stringify(e.data)}\n\n`
      : `data: ${JSON.stringify(e.data)}\n\n`,
  );
  if (fixture.protocol === 'openai') frames.push('data: [DONE]\n\n');
  void writeFrames(res, frames);
}

/** An endless stream in the request's protocol, written as fast as the client reads it. */
async function sendFlood(res: ServerResponse, request: RecordedRequest, chunkChars: number): Promise<void> {
  const piece = 'x'.repeat(chunkChars);
  const frame =
    request.protocol === 'gemini'
      ? `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: piece }] }, index: 0 }] })}\r\n\r\n`
      : request.protocol === 'anthropic'
        ? `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } })}\n\n`
        : `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (request.protocol === 'anthropic') {
    res.write(
      `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_flood', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n`,
    );
    res.write(
      `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`,
    );
  }
  while (!res.destroyed && !res.writableEnded) {
    if (!res.write(frame)) await drained(res);
  }
}

/** A `bulk` reply: headers, the prefix, then the fill until `bytes` are written or the client goes away. */
async function sendBulk(
  res: ServerResponse,
  request: RecordedRequest,
  reply: Extract<ScriptedReply, { type: 'bulk' }>,
): Promise<void> {
  const type = reply.contentType ?? (reply.status === 200 ? 'text/event-stream' : 'application/json');
  res.writeHead(reply.status, { 'content-type': type });
  const chunk = Buffer.from((reply.fill ?? 'a').repeat(Math.ceil(65_536 / (reply.fill ?? 'a').length)));
  request.sentBytes = 0;
  const write = (data: Buffer | string): boolean => {
    request.sentBytes! += Buffer.byteLength(data);
    return res.write(data);
  };
  if (reply.prefix && !write(reply.prefix)) await drained(res);
  while (!res.destroyed && request.sentBytes < reply.bytes) {
    if (!write(chunk)) await drained(res);
  }
  res.end();
}

/** GET of one model, in the shape of the service the request is for: the model object, or that service's 404. */
function sendModel(
  res: ServerResponse,
  service: 'gemini' | 'anthropic' | 'openai',
  id: string,
  ids: string[],
  windows: Record<string, number> = {},
): void {
  const found = ids.includes(id);
  const window = windows[id];
  let body: unknown;
  if (service === 'gemini') {
    body = found
      ? {
          name: `models/${id}`,
          version: '001',
          displayName: id,
          inputTokenLimit: window ?? 1_048_576,
          outputTokenLimit: 65_536,
          supportedGenerationMethods: ['generateContent', 'countTokens'],
        }
      : {
          error: {
            code: 404,
            message: `models/${id} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
            status: 'NOT_FOUND',
          },
        };
  } else if (service === 'anthropic') {
    body = found
      ? {
          id,
          type: 'model',
          display_name: id,
          created_at: '2025-01-01T00:00:00Z',
          ...(window ? { max_input_tokens: window } : {}),
        }
      : { type: 'error', error: { type: 'not_found_error', message: `model: ${id}` } };
  } else {
    body = found
      ? { id, object: 'model', created: 1, owned_by: 'test', ...(window ? { context_length: window } : {}) }
      : {
          error: {
            message: `The model \`${id}\` does not exist or you do not have access to it.`,
            type: 'invalid_request_error',
            code: 'model_not_found',
          },
        };
  }
  res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * Start the server on 127.0.0.1 and an ephemeral port.
 *
 * @returns the running server; call `close()` in afterEach/afterAll
 */
export async function startProviderServer(options: ProviderServerOptions = {}): Promise<ProviderServer> {
  const requests: RecordedRequest[] = [];
  let queue: ScriptedReply[] = [];
  let fallback: ScriptedReply | undefined;
  const sockets = new Set<Socket>();

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    const parsed = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const protocol = classify(method, parsed.pathname);
    const request: RecordedRequest = {
      method,
      url: req.url ?? '/',
      path: parsed.pathname,
      query: Object.fromEntries(parsed.searchParams),
      headers: req.headers,
      body,
      protocol,
      stream: protocol === 'gemini' ? parsed.pathname.endsWith(':streamGenerateContent') : Boolean(body?.stream),
    };
    requests.push(request);
    const keyProtocol =
      protocol === 'gemini' || parsed.pathname.startsWith('/v1beta/')
        ? 'gemini'
        : protocol === 'anthropic' || req.headers['x-api-key'] || req.headers['anthropic-version']
          ? 'anthropic'
          : 'openai';
    if (options.apiKey !== undefined && presentedKey(req.headers) !== options.apiKey) {
      if (keyProtocol === 'gemini') {
        return sendError(
          res,
          'gemini',
          { type: 'error', status: 400, message: 'API key not valid. Please pass a valid API key.' },
          request,
        );
      }
      if (keyProtocol === 'anthropic')
        return sendError(res, 'anthropic', { type: 'error', status: 401, message: 'invalid x-api-key' }, request);
      return sendError(res, 'openai', {
        type: 'error',
        status: 401,
        message: 'Incorrect API key provided.',
        code: 'invalid_api_key',
      });
    }
    if (protocol === 'models') {
      const ids = options.models ?? ['test-model'];
      res.writeHead(200, { 'content-type': 'application/json' });
      const list =
        keyProtocol === 'gemini'
          ? { models: ids.map((id) => ({ name: `models/${id}` })) }
          : keyProtocol === 'anthropic'
            ? {
                data: ids.map((id) => ({ id, type: 'model', display_name: id, created_at: '2025-01-01T00:00:00Z' })),
                has_more: false,
                first_id: ids[0] ?? null,
                last_id: ids.at(-1) ?? null,
              }
            : {
                object: 'list',
                data: ids.map((id) => ({
                  id,
                  object: 'model',
                  created: 1,
                  owned_by: 'test',
                  ...(options.windows?.[id] ? { context_length: options.windows[id] } : {}),
                })),
              };
      res.end(JSON.stringify(list));
      return;
    }
    if (protocol === 'model')
      return sendModel(
        res,
        keyProtocol,
        decodeURIComponent(MODEL_PATH.exec(parsed.pathname)![1]!),
        options.models ?? ['test-model'],
        options.windows,
      );
    if (protocol === 'openai' && options.deployments) {
      const deployment =
        AZURE_DEPLOYMENT_PATH.exec(parsed.pathname)?.[1] ??
        (parsed.pathname.startsWith('/openai/v1/') ? body?.model : undefined);
      if (typeof deployment === 'string' && !options.deployments.includes(decodeURIComponent(deployment)))
        return sendJsonError(res, request, 404, {
          error: {
            code: 'DeploymentNotFound',
            message:
              'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
          },
        });
    }
    if (protocol === 'unknown')
      return sendError(res, 'openai', {
        type: 'error',
        status: 404,
        message: `No route for ${method} ${parsed.pathname}`,
      });
    let reply: ScriptedReply = queue.shift() ??
      fallback ?? {
        type: 'error',
        status: 500,
        message: 'provider-server: no scripted reply left',
        headers: { 'x-should-retry': 'false' },
      };
    while (typeof reply === 'function') reply = reply(request);
    if (reply.type === 'hang') return;
    if (reply.type === 'drop') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const partial =
        protocol === 'gemini'
          ? { candidates: [{ content: { role: 'model', parts: [{ text: reply.text }] }, index: 0 }] }
          : {
              id: 'chatcmpl-test',
              object: 'chat.completion.chunk',
              created: 1,
              model: 'm',
              choices: [{ index: 0, delta: { content: reply.text }, finish_reason: null }],
            };
      const frame =
        protocol === 'anthropic'
          ? `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_drop', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n`
          : `data: ${JSON.stringify(partial)}\n\n`;
      res.write(frame, () => setTimeout(() => res.socket?.destroy(), 10));
      return;
    }
    if (reply.type === 'error') return sendError(res, protocol, reply, request);
    if (reply.type === 'flood') return void sendFlood(res, request, reply.chunkChars ?? 65_536);
    if (reply.type === 'fixture') return sendFixture(res, request, reply);
    if (reply.type === 'redirect') {
      res.writeHead(reply.status ?? 307, { location: `${reply.to}${request.url}` });
      res.end();
      return;
    }
    if (reply.type === 'bulk') return void sendBulk(res, request, reply);
    if (protocol === 'gemini') sendGemini(res, request, reply);
    else if (protocol === 'anthropic') sendAnthropic(res, request, reply);
    else sendOpenAI(res, request, reply);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...more) => void queue.push(...more),
    setFallback: (reply) => {
      fallback = reply;
    },
    completions: () =>
      requests.filter((r) => r.protocol === 'openai' || r.protocol === 'gemini' || r.protocol === 'anthropic'),
    reset: () => {
      queue = [];
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
