import { describe, expect, it } from 'vitest';
import { Message, Part, TaskState } from '@a2a-js/sdk';
import { paramsFromParts, resultArtifact, toSkillCall, toTaskState } from '../../src/bridge/mapping.ts';
import { LogosAgentCard } from '../../src/logos/card.ts';

const card = LogosAgentCard.parse({
  id: 'multi',
  name: 'Multi',
  description: 'two skills',
  version: '1',
  skills: [
    { id: 'summarise', name: 'Summarise', description: '' },
    { id: 'translate', name: 'Translate', description: '' },
  ],
  agentInterfaces: [{ type: 'logos-messaging', version: '1', address: 'a' }],
});

const message = (parts: unknown[], metadata?: Record<string, unknown>) =>
  Message.fromJSON({ messageId: 'm', role: 'ROLE_USER', parts, ...(metadata ? { metadata } : {}) });

describe('A2A message → {skill, params}', () => {
  it('text parts go to params.text, joined by newlines; the first skill is the default', () => {
    expect(toSkillCall(message([{ text: 'a' }, { text: 'b' }]), card)).toEqual({
      skill: 'summarise',
      params: { text: 'a\nb' },
    });
  });

  it('a data part {skill, params} names both; other parts still contribute', () => {
    const call = toSkillCall(
      message([{ text: 'bonjour' }, { data: { skill: 'translate', params: { to: 'en' } } }]),
      card,
    );
    expect(call).toEqual({ skill: 'translate', params: { text: 'bonjour', to: 'en' } });
  });

  it('metadata.skill names the skill when no data part does', () => {
    expect(toSkillCall(message([{ text: 'x' }], { skill: 'translate' }), card).skill).toBe('translate');
  });

  it('object data merges into params, other data lands in params.data, files in params.files', () => {
    const params = paramsFromParts(
      message([
        { data: { a: 1 } },
        { data: [1, 2] },
        { raw: Buffer.from('hi').toString('base64'), mediaType: 'text/plain', filename: 'hi.txt' },
        { url: 'https://example.com/f.pdf', mediaType: 'application/pdf' },
      ]).parts,
    );
    expect(params).toEqual({
      a: 1,
      data: [1, 2],
      files: [
        { name: 'hi.txt', mediaType: 'text/plain', bytes: Buffer.from('hi').toString('base64') },
        { mediaType: 'application/pdf', url: 'https://example.com/f.pdf' },
      ],
    });
  });

  it('an unknown skill is a client error naming the skills there are', () => {
    expect(() => toSkillCall(message([{ text: 'x' }], { skill: 'fly' }), card)).toThrow(
      /no skill "fly".*summarise, translate/,
    );
  });

  it('params that are not an object are refused', () => {
    expect(() => toSkillCall(message([{ data: { skill: 'translate', params: 'nope' } }]), card)).toThrow(
      /params must be a JSON object/,
    );
  });
});

describe('results and states', () => {
  it('a string result is a text artifact, anything else a data artifact', () => {
    expect(resultArtifact('hi').parts[0]!.content).toEqual({ $case: 'text', value: 'hi' });
    expect(resultArtifact({ n: 1 }).parts[0]!.content).toEqual({ $case: 'data', value: { n: 1 } });
    expect(resultArtifact('x').artifactId).toBe('result');
    // Made without the SDK's JSON walk, the text part is still exactly the one it makes.
    expect(resultArtifact('hi').parts[0]).toStrictEqual(Part.fromJSON({ text: 'hi' }));
  });

  it('binding states map onto TASK_STATE_*', () => {
    expect(toTaskState('input-required')).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(toTaskState('canceled')).toBe(TaskState.TASK_STATE_CANCELED);
    expect(toTaskState('rejected')).toBe(TaskState.TASK_STATE_REJECTED);
  });
});
