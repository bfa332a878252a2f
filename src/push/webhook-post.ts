/**
 * One delivery attempt: POST to the webhook through the guarded dispatcher, following a few redirects, and say what
 * the answer means for the delivery. Never throws.
 */
import type { Dispatcher } from 'undici';
import { CREDENTIAL_HEADERS } from './notification-request.ts';
import { retryAfterDelay } from './retry-timing.ts';
import { WebhookRefusedError, type WebhookGuard } from './webhook-guard.ts';

export type PostOutcome =
  | { kind: 'delivered' }
  /** Worth trying again later: no answer, a timeout, 408, 429 or 5xx. */
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  /** Trying again would get the same answer: a refused address, another 4xx, a redirect loop. */
  | { kind: 'failed'; reason: string };

export interface PostOptions {
  guard: WebhookGuard;
  /** The guard's dispatcher: every connection, redirect hops included, is checked when it is made. */
  dispatcher: Dispatcher;
  signal: AbortSignal;
  maxRedirects: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Past this much, a receiver's answer body is not read (the status is all that matters). */
const MAX_ANSWER_BYTES = 64 * 1024;

export async function postWebhook(
  target: { url: string; headers: Record<string, string>; body: string },
  options: PostOptions,
): Promise<PostOutcome> {
  // Loaded with the first delivery (see WebhookGuard.createAgent); later calls find it loaded.
  const { request } = await import('./undici.ts');
  let url = target.url;
  let headers = target.headers;
  let method: 'POST' | 'GET' = 'POST';
  for (let hop = 0; ; hop++) {
    const problem = options.guard.urlProblem(url);
    if (problem) return { kind: 'failed', reason: `${hop === 0 ? 'webhook URL' : 'redirect'} refused: ${problem}` };
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(url, {
        method,
        headers,
        ...(method === 'POST' ? { body: target.body } : {}),
        dispatcher: options.dispatcher,
        signal: options.signal,
      });
      await answer.body.dump({ limit: MAX_ANSWER_BYTES });
    } catch (error) {
      const refused = refusal(error);
      if (refused) return { kind: 'failed', reason: refused.message };
      return { kind: 'retry', reason: options.signal.aborted ? 'no answer in time' : describe(error) };
    }
    const status = answer.statusCode;
    if (status >= 200 && status < 300) return { kind: 'delivered' };
    const location = header(answer.headers.location);
    if (REDIRECTS.has(status) && location !== undefined) {
      if (hop >= options.maxRedirects) return { kind: 'failed', reason: `more than ${options.maxRedirects} redirects` };
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return { kind: 'failed', reason: `redirected to an invalid location: ${location}` };
      }
      // As fetch does: 301, 302 and 303 turn the POST into a GET (without a body); 307 and 308 repeat it.
      if (status !== 307 && status !== 308) {
        method = 'GET';
        headers = without(headers, ['content-type']);
      }
      if (next.origin !== new URL(url).origin) headers = without(headers, CREDENTIAL_HEADERS);
      url = next.href;
      continue;
    }
    if (status === 408 || status === 429 || status >= 500) {
      const retryAfterMs = retryAfterDelay(header(answer.headers['retry-after']), Date.now());
      return {
        kind: 'retry',
        reason: `the receiver answered ${status}`,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
    }
    return { kind: 'failed', reason: `the receiver answered ${status}` };
  }
}

/** The guard's refusal behind a connection error, if that is what it was (net may wrap it in an AggregateError). */
function refusal(error: unknown): WebhookRefusedError | undefined {
  if (error instanceof WebhookRefusedError) return error;
  if (error instanceof AggregateError) return error.errors.map(refusal).find((found) => found !== undefined);
  return error instanceof Error ? refusal(error.cause) : undefined;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  if (!error.message) return code ?? error.name;
  return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `names` in lower case, as the headers are built. */
function without(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
}
