import { ProviderError } from '../utils/errors.js';
import { providerLabel } from './errors-map.js';
import type { ProviderConfig } from './types.js';

/**
 * The one `fetch` every provider SDK is given (each client file passes `providerFetch(config)` to its SDK), so
 * what a server may do to clawcode is decided here for all of them:
 * - a redirect is never followed: the SDKs add the key as a header (`api-key`, `x-goog-api-key`,
 *   `x-api-key`) that fetch keeps on a redirect to another host, and a 307 sends the request body (the
 *   project's code) there too. The 3xx reaches the SDK as an error status instead (errors-map.ts names it).
 * - an error body (any status but 2xx) is read up to MAX_ERROR_BODY_BYTES and cut there: the SDKs read it
 *   whole into one string, so an endless 500 grew the process until the machine ran out of memory.
 * - a 2xx body may hold at most MAX_BODY_BYTES, with no line longer than MAX_LINE_BYTES (a streamed event is
 *   one line, kept whole by the SDKs' parsers until it ends); past either the request fails with
 *   `provider_reply_too_large`. llm/provider.ts caps the reply's text separately; these caps bound what the
 *   text does not count (event envelopes, reasoning, keep-alive lines, one endless line).
 * - a 2xx web page (`content-type: text/html`) is no provider's answer but a network's login page or a base URL
 *   that is not the API: the request fails with `provider_not_api` instead of an empty reply that cost a
 *   repair request and ended in "the model reply holds no JSON plan".
 */

/** Bytes of an error body read; the rest is dropped (a provider's message is a few hundred bytes). */
export const MAX_ERROR_BODY_BYTES = 1 << 20;
/**
 * Bytes of a successful body read: about five times the longest stream a model's output limit allows
 * (128,000 tokens, one event each at up to 430 bytes with Azure's filter results, 55 MB); see docs/tuning.md.
 */
export const MAX_BODY_BYTES = 256 * 2 ** 20;
/** Longest line of a successful body, in bytes: a whole unstreamed reply at the text cap fits. */
export const MAX_LINE_BYTES = 16 * 2 ** 20;

/** Statuses whose response has no body by definition (the Response constructor refuses one). */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A fetch for one configured provider: global fetch with `redirect: 'manual'` and the body caps above.
 *
 * @param config  the provider (its label names it in the too-large error)
 * @returns a fetch-compatible function; its bodies error with ProviderError `provider_reply_too_large`
 *          past a cap of a 2xx response, and end quietly at MAX_ERROR_BODY_BYTES of any other
 */
export function providerFetch(
  config: Pick<ProviderConfig, 'provider' | 'name' | 'preset' | 'baseURL' | 'model'>,
): Fetch {
  return async (input, init) => {
    const response = await fetch(input, { ...init, redirect: 'manual' });
    if (!response.body || NULL_BODY_STATUS.has(response.status)) return response;
    const ok = response.status >= 200 && response.status < 300;
    const page = ok && /^\s*text\/html\b/i.test(response.headers.get('content-type') ?? '');
    const body = response.body.pipeThrough(
      page ? refused(notApi(config)) : ok ? capped(config) : truncated(MAX_ERROR_BODY_BYTES),
    );
    const wrapped = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // The SDKs name the URL in some messages; a constructed Response has none of its own.
    Object.defineProperty(wrapped, 'url', { value: response.url });
    return wrapped;
  };
}

/** The error of a 2xx web page. */
function notApi(config: Parameters<typeof providerFetch>[0]): ProviderError {
  return new ProviderError(
    `${providerLabel(config)} answered with a web page (content-type text/html), not the provider's API`,
    {
      provider: config.name,
      code: 'provider_not_api',
      hint: 'Check the base URL; on a hotel or office network, log in through a browser first.',
    },
  );
}

/** A transform that fails the stream with `error` at its first chunk. */
function refused(error: Error): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream({
    transform(_chunk, controller) {
      controller.error(error);
    },
  });
}

/** A transform that passes the first `max` bytes and then ends the stream (cancelling the source). */
function truncated(max: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      const room = max - seen;
      seen += chunk.length;
      if (chunk.length < room) return controller.enqueue(chunk);
      if (room > 0) controller.enqueue(chunk.subarray(0, room));
      controller.terminate();
    },
  });
}

/** A transform that fails the stream past MAX_BODY_BYTES in all or MAX_LINE_BYTES since the last newline. */
function capped(config: Parameters<typeof providerFetch>[0]): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  let line = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.length;
      const newline = chunk.lastIndexOf(0x0a);
      line = newline === -1 ? line + chunk.length : chunk.length - newline - 1;
      if (total > MAX_BODY_BYTES || line > MAX_LINE_BYTES) {
        const what =
          total > MAX_BODY_BYTES ? `passed ${mib(MAX_BODY_BYTES)}` : `holds a line over ${mib(MAX_LINE_BYTES)}`;
        controller.error(
          new ProviderError(`${providerLabel(config)} reply ${what}; stopped reading it (model ${config.model})`, {
            provider: config.name,
            code: 'provider_reply_too_large',
            hint: 'The server is not sending a plan; try again, or use another model or server.',
          }),
        );
        return;
      }
      controller.enqueue(chunk);
    },
  });
}

function mib(bytes: number): string {
  return `${bytes / 2 ** 20} MiB`;
}
