/**
 * What `logos-a2a serve` and `logos-a2a demo` print once the gateway listens: where to reach it, and a call to try.
 * Every URL it prints answers at that moment: the root's card only when the default agent is listed, the example call
 * only when some agent is (issue #22: a gateway without agents printed a default card URL that answered 404).
 */
import type { Gateway } from '../gateway/gateway.ts';

export function startBanner(gateway: Gateway, command: string): string {
  const agents = gateway.directory.all();
  const servesRoot =
    gateway.defaultAgentId !== undefined && gateway.directory.get(gateway.defaultAgentId) !== undefined;
  // The example calls the root's agent, else the first one listed.
  const exampleTarget = servesRoot ? `${gateway.url}/` : agents[0] && `${gateway.url}/agents/${agents[0].id}`;
  const lines = [
    `logos-a2a ${command}: A2A gateway listening at ${gateway.url}`,
    '',
    'Agents:',
    ...agents.map((entry) => `  ${entry.id.padEnd(12)} ${gateway.url}/agents/${entry.id}/.well-known/agent-card.json`),
    ...(servesRoot ? [`  (default)    ${gateway.url}/.well-known/agent-card.json`] : []),
    ...(agents.length === 0
      ? [`  none yet: agents that announce their card on the discovery topic are listed at ${gateway.url}/agents`]
      : []),
    '',
    `OpenAPI:      ${gateway.url}/openapi.json`,
    ...(gateway.grpcAddress
      ? [`gRPC:         ${gateway.grpcAddress} (each agent by its card's tenant: its id; the default agent without)`]
      : []),
    ...logosNetworkLines(gateway),
    ...(gateway.payer
      ? [
          `Payments:     ${gateway.payer.rail} from ${gateway.payer.account}${gateway.payer.profile ? `, LEZ protocol profile ${gateway.payer.profile}` : ''}${gateway.payer.feeCap !== undefined ? `, fees up to ${gateway.payer.feeCap} per payment` : ''}`,
        ]
      : []),
    '',
    ...(exampleTarget
      ? [
          'Try it:',
          `  curl -s ${exampleTarget} -H 'Content-Type: application/json' -H 'A2A-Version: 1.0' \\`,
          `    -d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}'`,
          '',
        ]
      : []),
    'Ctrl-C stops it.',
    '',
  ];
  return lines.join('\n');
}

function logosNetworkLines(gateway: Gateway): string[] {
  const { remoteNodeUrl, nodeRestUrl } = gateway.network;
  if (remoteNodeUrl) return [`Logos network: Waku relay through the nwaku REST API at ${remoteNodeUrl}`];
  const join = gateway.network.joinAddresses();
  if (join.length === 0) return [`Logos network: ${gateway.network.description}`];
  return [
    `Logos network: ${gateway.network.description}; join at ${join[0]}`,
    ...(nodeRestUrl ? [`  the node's nwaku REST API: ${nodeRestUrl}`] : []),
    `  another agent, as its own process: npm run agent -- echo --id echo2 --peer ${join[0]}`,
  ];
}
