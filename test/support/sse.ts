/** A raw SSE reader over fetch, to check the frames themselves rather than what a client library makes of them. */
export interface SseStream {
  response: Response;
  /** The next complete frame (text between blank lines), or undefined at the end. */
  nextFrame(): Promise<string | undefined>;
  /** Every remaining `data:` payload, parsed. */
  rest(): Promise<unknown[]>;
  abort(): void;
}

export async function openSse(url: string, init: RequestInit): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const nextFrame = async (): Promise<string | undefined> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        return frame;
      }
      const { done, value } = await reader.read();
      if (done) return undefined;
      buffer += decoder.decode(value, { stream: true });
    }
  };
  return {
    response,
    nextFrame,
    async rest() {
      const items: unknown[] = [];
      for (let frame = await nextFrame(); frame !== undefined; frame = await nextFrame()) {
        if (frame.startsWith('data: ')) items.push(JSON.parse(frame.slice(6)));
      }
      return items;
    },
    abort: () => controller.abort(),
  };
}

export const dataOf = (frame: string | undefined): any => {
  if (!frame?.startsWith('data: ')) throw new Error(`not a data frame: ${frame}`);
  return JSON.parse(frame.slice(6));
};

/** A JSON-RPC call of A2A v1.0 answered as SSE (SendStreamingMessage, SubscribeToTask). */
export function openRpcStream(url: string, method: string, params: unknown): Promise<SseStream> {
  return openSse(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}
