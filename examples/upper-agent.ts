import { LogosAgent, WakuTransport, loadOrCreateKey } from 'logos-a2a/agent';

// The gateway's Logos address, as `logos-a2a serve` or `npm start` prints it ("join at …").
const gateway = process.argv[2] ?? '/ip4/127.0.0.1/tcp/60000';

const transport = new WakuTransport({
  privateKey: loadOrCreateKey('.data/upper.key'), // the agent's Logos identity, kept across restarts
  staticPeers: [gateway],
});

const agent = new LogosAgent({
  transport,
  cardKey: loadOrCreateKey('.data/upper.lez.key'), // the LEZ key that signs the card: gateways list signed cards only
  card: {
    id: 'upper',
    name: 'Upper',
    description: 'Shouts.',
    version: '1.0.0',
    skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text' }],
    agentInterfaces: [{ type: 'logos-messaging', version: '1', address: transport.address }],
  },
  skills: {
    shout: async (ctx) => {
      await ctx.progress('thinking…'); // a status update
      return ctx.text.toUpperCase(); // the result: a text artifact
    },
  },
});

await agent.start(); // joins the network and announces the card; the gateway serves it at /agents/upper/
console.log(`upper: ${transport.address}, joined through ${gateway}`);
process.once('SIGINT', () => void agent.stop());
process.once('SIGTERM', () => void agent.stop());
