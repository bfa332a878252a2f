/**
 * The v1.0 HTTP+JSON binding's one error-body builder (the error model: errors.ts): AIP-193
 * `{error: {code, status, message, details}}`, with `code` the HTTP status and google.rpc.ErrorInfo in `details`,
 * by the SDK's REST mapping.
 */
import {
  ContentTypeNotSupportedError,
  restStatusFor,
  TaskNotCancelableError,
  toRestErrorBody,
  type RestErrorBody,
} from '@a2a-js/sdk/errors';
import { headersOf, INTERNAL_ERROR_MESSAGE, type BindingError } from './errors.ts';
import { jsonResponse } from './responses.ts';

/**
 * The HTTP status of an A2A error. Two depart from the SDK's table, to what clients and the conformance suite
 * read: a task that cannot be cancelled is a conflict with its state (409, as other implementations answer), and a
 * body in a media type the binding does not take is 415.
 */
function httpStatusOf(error: unknown): number {
  if (error instanceof TaskNotCancelableError) return 409;
  if (error instanceof ContentTypeNotSupportedError) return 415;
  return restStatusFor(error);
}

function statusAndBody(error: BindingError): { status: number; body: RestErrorBody } {
  switch (error.kind) {
    case 'a2a': {
      const status = httpStatusOf(error.error);
      return { status, body: toRestErrorBody(error.error, status) };
    }
    case 'internal':
      return {
        status: 500,
        body: { error: { code: 500, status: 'INTERNAL', message: INTERNAL_ERROR_MESSAGE, details: [] } },
      };
    case 'unauthenticated':
      return {
        status: 401,
        body: { error: { code: 401, status: 'UNAUTHENTICATED', message: error.message, details: [] } },
      };
  }
}

/** The body of an SSE error frame: what the response would have carried. */
export function restErrorBody(error: BindingError): RestErrorBody {
  return statusAndBody(error).body;
}

/**
 * The error response, with the headers the error asks for (a body left unread closes the connection: see
 * request-body.ts), and the scheme to use when no valid API key came.
 */
export function restErrorResponse(error: BindingError, headers: Record<string, string> = {}): Response {
  const { status, body } = statusAndBody(error);
  return jsonResponse(body, status, { ...headersOf(error), ...headers });
}
