/** The smallest valid Logos agent card for an id: one free skill, a memory-network address; tests override the rest. */
import { LogosAgentCard, type LogosAgentCardInput } from '../../src/logos/card.ts';

export function minimalCard(input: Partial<LogosAgentCardInput> & { id: string }): LogosAgentCard {
  return LogosAgentCard.parse({
    name: input.id,
    description: '',
    version: '1',
    skills: [{ id: 'main', name: 'Main', description: '' }],
    agentInterfaces: [{ type: 'logos-messaging', version: '1', address: `agent:${input.id}` }],
    ...input,
  });
}
