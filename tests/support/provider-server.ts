import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A loopback HTTP server (127.0.0.1, port 0) that speaks the wire protocols of the provider SDKs
 * (shared/research/ecosystem.md §3), for tests through the real SDKs and for end-to-end runs of the
 * built CLI (start it in the test process, point OPENAI_BASE_URL etc. at `url`):
 * - OpenAI / Groq / Azure chat completions: any POST path ending in `/chat/completions`
 *   (`/v1/…`, `/openai/v1/…`, `/openai/deployments/<dep>/…?api-version=…`), plain JSON or SSE
 *   (`stream: true`, with a usage chunk when `stream_options.include_usage`);
 * - Gemini `…/models/<model>:generateContent` and `:streamGenerateContent?alt=sse`;
 * - model lists: GET `…/models` (OpenAI shape; Gemini shape under `/v1beta/`).
 * Replies are scripted per test and consumed in order by completion requests; every request is recorded.
 */

/** A scripted reply, independent of the protocol; the server renders it for the request's protocol. */
export type ScriptedReply =
  | {
      type: 'text';
      text: string;
      /** Token counts reported back. @default {input: 10, output: 5} */
      usage?: { input: number; output: number };
      /** `length` renders as Gemini `MAX_TOKENS`. @default 'stop' */
      finishReason?: 'stop' | 'length' | 'content_filter';
      /** Characters per streamed chunk. @default a quarter of the text */
      chunkChars?: number;
      /** OpenAI `message.refusal` instead of content. */
      refusal?: string;
    }
  | { type: 'error'; status: number; message: string; code?: string; param?: string; headers?: Record<string, string> }
  /** Headers never come: the request hangs until the client gives up or the server closes. */
  | { type: 'hang' }
  /** A streamed reply starts (200 and `text` so far), then the connection is cut. */
  | { type: 'drop'; text: string }
  | ((request: RecordedRequest) => ScriptedReply);

/** Protocol a request was recognised as. */
export type WireProtocol = 'openai' | 'gemini' | 'models' | 'unknown';

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
  /** Completion requests only (chat completions and Gemini generate calls). */
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
  /** Model ids listed by GET …/models. */
  models?: string[];
}

/** Ready-made scripted replies. */
export const replies = {
  /** A plan (or any object) as the JSON reply text. */
  plan(plan: unknown, options: { usage?: { input: number; output: number } } = {}): ScriptedReply {
    return { type: 'text', text: JSON.stringify(plan), ...options };
  },
  text(text: string, options: { usage?: { input: number; output: number }; chunkChars?: number } = {}): ScriptedReply {
    return { type: 'text', text, ...options };
  },
  /** The plan inside prose and a ```json fence, as models without structured output answer. */
  prose(plan: unknown): ScriptedReply {
    return { type: 'text', text: `Sure! Here is the plan:\n\n\`\`\`json\n${JSON.stringify(plan, null, 2)}\n\`\`\`\n\nLet me know if you need more.` };
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
    return { type: 'error', status: 429, message: 'Rate limit reached.', code: 'rate_limit_exceeded', headers: { 'retry-after': String(retryAfterSeconds) } };
  },
  serverError(message = 'The server had an error while processing your request.'): ScriptedReply {
    return { type: 'error', status: 500, message, headers: { 'retry-after-ms': '1' } };
  },
  notFound(model = 'no-such-model'): ScriptedReply {
    return { type: 'error', status: 404, message: `The model \`${model}\` does not exist or you do not have access to it.`, code: 'model_not_found' };
  },
  /** The 400 a server without structured-output support answers. */
  responseFormat400(): ScriptedReply {
    return { type: 'error', status: 400, message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", param: 'response_format' };
  },
  hang(): ScriptedReply {
    return { type: 'hang' };
  },
  /** The connection drops in the middle of a streamed reply. */
  drop(text = '{"analysis":"half'): ScriptedReply {
    return { type: 'drop', text };
  },
};

const GEMINI_PATH = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

function classify(method: string, path: string): WireProtocol {
  if (method === 'POST' && path.endsWith('/chat/completions')) return 'openai';
  if (method === 'POST' && GEMINI_PATH.test(path)) return 'gemini';
  if (method === 'GET' && /\/models\/?$/.test(path)) return 'models';
  return 'unknown';
}

function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const auth = headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice(7);
  const key = headers['api-key'] ?? headers['x-goog-api-key'];
  return typeof key === 'string' ? key : undefined;
}

function split(text: string, size: number): string[] {
  if (!text) return [];
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

function sendError(res: ServerResponse, protocol: WireProtocol, reply: Extract<ScriptedReply, { type: 'error' }>): void {
  const geminiStatus: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };
  const body =
    protocol === 'gemini'
      ? { error: { code: reply.status, message: reply.message, status: geminiStatus[reply.status] ?? 'UNKNOWN' } }
      : { error: { message: reply.message, type: reply.status === 429 ? 'rate_limit_error' : 'invalid_request_error', param: reply.param ?? null, code: reply.code ?? null } };
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  res.end(JSON.stringify(body));
}

function sendOpenAI(res: ServerResponse, request: RecordedRequest, reply: Extract<ScriptedReply, { type: 'text' }>): void {
  const model = typeof request.body?.model === 'string' ? request.body.model : 'test-model';
  const usage = { prompt_tokens: reply.usage?.input ?? 10, completion_tokens: reply.usage?.output ?? 5, total_tokens: (reply.usage?.input ?? 10) + (reply.usage?.output ?? 5) };
  const finish = reply.finishReason ?? 'stop';
  const base = { id: 'chatcmpl-test', created: 1, model };
  if (!request.stream) {
    const message = { role: 'assistant', content: reply.refusal ? null : reply.text, refusal: reply.refusal ?? null };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (data: unknown): void => void res.write(`data: ${JSON.stringify(data)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null): void =>
    event({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] });
  chunk({ role: 'assistant', content: '' }, null);
  if (reply.refusal) chunk({ refusal: reply.refusal }, null);
  for (const piece of split(reply.text, reply.chunkChars ?? Math.max(1, Math.ceil(reply.text.length / 4)))) chunk({ content: piece }, null);
  chunk({}, finish);
  if (request.body?.stream_options?.include_usage) event({ ...base, object: 'chat.completion.chunk', choices: [], usage });
  res.end('data: [DONE]\n\n');
}

function sendGemini(res: ServerResponse, request: RecordedRequest, reply: Extract<ScriptedReply, { type: 'text' }>): void {
  const model = GEMINI_PATH.exec(request.path)?.[1] ?? 'gemini-test';
  const finishReason = reply.finishReason === 'length' ? 'MAX_TOKENS' : reply.finishReason === 'content_filter' ? 'SAFETY' : 'STOP';
  const input = reply.usage?.input ?? 10;
  const output = reply.usage?.output ?? 5;
  const usageMetadata = { promptTokenCount: input, candidatesTokenCount: output, totalTokenCount: input + output };
  const candidate = (text: string, last: boolean): Record<string, unknown> => ({
    content: { role: 'model', parts: [{ text }] },
    index: 0,
    ...(last ? { finishReason } : {}),
  });
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ candidates: [candidate(reply.text, true)], usageMetadata, modelVersion: model }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const pieces = split(reply.text, reply.chunkChars ?? Math.max(1, Math.ceil(reply.text.length / 4)));
  if (pieces.length === 0) pieces.push('');
  pieces.forEach((piece, i) => {
    const last = i === pieces.length - 1;
    res.write(`data: ${JSON.stringify({ candidates: [candidate(piece, last)], ...(last ? { usageMetadata } : {}), modelVersion: model })}\r\n\r\n`);
  });
  res.end();
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
    const keyProtocol = protocol === 'gemini' || parsed.pathname.startsWith('/v1beta/') ? 'gemini' : 'openai';
    if (options.apiKey !== undefined && presentedKey(req.headers) !== options.apiKey) {
      if (keyProtocol === 'gemini') {
        return sendError(res, 'gemini', { type: 'error', status: 400, message: 'API key not valid. Please pass a valid API key.' });
      }
      return sendError(res, 'openai', { type: 'error', status: 401, message: 'Incorrect API key provided.', code: 'invalid_api_key' });
    }
    if (protocol === 'models') {
      const ids = options.models ?? ['test-model'];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          keyProtocol === 'gemini'
            ? { models: ids.map((id) => ({ name: `models/${id}` })) }
            : { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1, owned_by: 'test' })) },
        ),
      );
      return;
    }
    if (protocol === 'unknown') return sendError(res, 'openai', { type: 'error', status: 404, message: `No route for ${method} ${parsed.pathname}` });
    let reply: ScriptedReply = queue.shift() ?? fallback ?? { type: 'error', status: 500, message: 'provider-server: no scripted reply left', headers: { 'x-should-retry': 'false' } };
    while (typeof reply === 'function') reply = reply(request);
    if (reply.type === 'hang') return;
    if (reply.type === 'drop') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const partial =
        protocol === 'gemini'
          ? { candidates: [{ content: { role: 'model', parts: [{ text: reply.text }] }, index: 0 }] }
          : { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: reply.text }, finish_reason: null }] };
      res.write(`data: ${JSON.stringify(partial)}\n\n`, () => setTimeout(() => res.socket?.destroy(), 10));
      return;
    }
    if (reply.type === 'error') return sendError(res, protocol, reply);
    if (protocol === 'gemini') sendGemini(res, request, reply);
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
    completions: () => requests.filter((r) => r.protocol === 'openai' || r.protocol === 'gemini'),
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
