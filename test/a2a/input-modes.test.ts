/**
 * A part of a media type the agent does not take is refused before anything is created or paid:
 * ContentTypeNotSupportedError on every binding and version, naming the type and what the agent takes instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Message } from '@a2a-js/sdk';
import { unacceptedMediaType } from '../../src/bridge/input-modes.ts';
import { startTestBed, type TestBed } from '../support/gateway.ts';

const message = (...mediaTypes: string[]) =>
  Message.fromJSON({
    messageId: 'm',
    role: 'ROLE_USER',
    parts: mediaTypes.map((mediaType) => ({ text: 'x', mediaType })),
  });

describe('unacceptedMediaType', () => {
  it('takes parts whose type an input mode names, ranges and parameters included', () => {
    expect(unacceptedMediaType(message('text/plain', ''), ['text/plain'])).toBeUndefined();
    expect(unacceptedMediaType(message('Text/Plain; charset=utf-8'), ['text/plain'])).toBeUndefined();
    expect(unacceptedMediaType(message('image/png'), ['text/plain', 'image/*'])).toBeUndefined();
    expect(unacceptedMediaType(message('video/mp4'), ['*/*'])).toBeUndefined();
    expect(unacceptedMediaType(message('video/mp4'), [])).toBeUndefined();
  });

  it('names the first part no input mode takes', () => {
    expect(unacceptedMediaType(message('text/plain', 'image/png', 'audio/ogg'), ['text/plain'])).toBe('image/png');
    expect(unacceptedMediaType(message('imagex/png'), ['image/*'])).toBe('imagex/png');
  });
});

describe('a part the agent does not take, through the gateway', () => {
  let bed: TestBed;
  beforeAll(async () => (bed = await startTestBed()));
  afterAll(() => bed.close());

  const post = async (path: string, body: unknown, headers: Record<string, string>) => {
    const response = await bed.gateway.app.request(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: await response.json() };
  };
  const v1Message = {
    messageId: 'mt-1',
    role: 'ROLE_USER',
    parts: [{ raw: 'AAAA', mediaType: 'application/x-unknown' }],
  };
  const v03Message = {
    kind: 'message',
    messageId: 'mt-2',
    role: 'user',
    parts: [{ kind: 'file', file: { bytes: 'AAAA', mimeType: 'application/x-unknown' } }],
  };

  it('JSON-RPC, v1.0 and v0.3: -32005 naming the type and the input modes', async () => {
    const v1 = await post(
      '/',
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: v1Message } },
      {
        'A2A-Version': '1.0',
      },
    );
    expect(v1.json.error.code).toBe(-32005);
    expect(v1.json.error.message).toMatch(/application\/x-unknown.*text\/plain/);
    const v03 = await post('/', { jsonrpc: '2.0', id: 2, method: 'message/send', params: { message: v03Message } }, {});
    expect(v03.json.error.code).toBe(-32005);
    expect(v03.json.error.message).toMatch(/application\/x-unknown/);
  });

  it('HTTP+JSON: 415 on v1.0; on v0.3, code -32005 under the status the SDK’s v0.3 router gives it', async () => {
    const v1 = await post('/message:send', { message: v1Message }, { 'A2A-Version': '1.0' });
    expect(v1.status).toBe(415);
    expect(v1.json.error.message).toMatch(/application\/x-unknown/);
    // v0.3's HTTP+JSON carries messages in their protobuf JSON form.
    const v03 = await post(
      '/v1/message:send',
      {
        message: {
          messageId: 'mt-3',
          role: 'ROLE_USER',
          content: [{ file: { fileWithBytes: 'AAAA', mimeType: 'application/x-unknown' } }],
        },
      },
      {},
    );
    expect(v03.status).toBe(400);
    expect(v03.json.code).toBe(-32005);
    expect(v03.json.message).toMatch(/application\/x-unknown/);
  });

  it('creates no task for a refused message', async () => {
    const listed = await bed.gateway.app.request('/tasks', { headers: { 'A2A-Version': '1.0' } });
    expect((await listed.json()).tasks).toEqual([]);
  });
});
