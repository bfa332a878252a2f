/** Reading a request body within a size limit, before anything parses it. */

export type BodyResult = { ok: true; text: string } | { ok: false; reason: 'too-large' | 'unreadable'; message: string };

export function isJsonContentType(value: string | undefined): boolean {
  const type = value?.split(';', 1)[0]?.trim().toLowerCase();
  return type === 'application/json' || type === 'application/a2a+json';
}

export function contentTypeMessage(value: string | undefined): string {
  return `Content-Type must be application/json or application/a2a+json; got ${value ? `"${value}"` : 'none'}. With curl, add -H 'Content-Type: application/json'.`;
}

export async function readBody(request: Request, maxBytes: number): Promise<BodyResult> {
  const tooLarge = (): BodyResult => ({
    ok: false,
    reason: 'too-large',
    message: `The request body exceeds the limit of ${maxBytes} bytes.`,
  });
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) return tooLarge();
  // A declared length within the limit: read it whole (the server enforces the length); this is also the fast path
  // of @hono/node-server, which touching `request.body` would leave.
  if (Number.isInteger(declared)) {
    try {
      return { ok: true, text: await request.text() };
    } catch (error) {
      return { ok: false, reason: 'unreadable', message: `The request body could not be read: ${(error as Error).message}` };
    }
  }
  if (!request.body) return { ok: true, text: '' };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        return tooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    return { ok: false, reason: 'unreadable', message: `The request body could not be read: ${(error as Error).message}` };
  }
  return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
}
