import { LogosAgent, LogosCaller, WakuTransport, loadOrCreateKey, type HireOutcome } from 'logos-a2a/agent';

// The gateway's Logos address, as `logos-a2a serve` or `npm start` prints it ("join at …").
const gateway = process.argv[2] ?? '/ip4/127.0.0.1/tcp/60000';

const transport = new WakuTransport({ privateKey: loadOrCreateKey('.data/boss.key'), staticPeers: [gateway] });
// Hires over the agent's own node; it hears the other agents' cards on the discovery topic.
const caller = new LogosCaller({ transport });

const agent = new LogosAgent({
  transport,
  cardKey: loadOrCreateKey('.data/boss.lez.key'),
  card: {
    id: 'boss',
    name: 'Boss',
    description: 'Has the upper agent shout, and passes its questions on.',
    version: '1.0.0',
    skills: [{ id: 'delegate', name: 'Delegate', description: 'Hires the upper agent' }],
    agentInterfaces: [{ type: 'logos-messaging', version: '1', address: transport.address }],
  },
  skills: {
    delegate: async (ctx) => {
      // By the id of a card heard on discovery (or its address, or the card itself); a cancel of this task
      // cancels the hired one.
      let outcome: HireOutcome = await caller.hire('upper', 'shout', ctx.text, {
        signal: ctx.signal,
        onUpdate: (update) => void ctx.progress(update.message),
      });
      while (outcome.kind === 'input-required' || outcome.kind === 'auth-required') {
        const answer = await ctx.requestInput(outcome.prompt ?? 'The hired agent asks for more.');
        outcome = await outcome.reply(answer.text);
      }
      switch (outcome.kind) {
        case 'completed':
          return `upper says: ${String(outcome.result)}`;
        case 'failed':
        case 'rejected':
          throw new Error(`upper ${outcome.kind} the task: ${outcome.error.message}`);
        default:
          // refused (nothing was sent), timeout, cancelled: each says why.
          throw new Error(`no answer from upper: ${outcome.kind}`);
      }
    },
  },
});

await agent.start();
caller.start();
console.log(`boss: ${transport.address}, joined through ${gateway}`);
const stop = () => {
  caller.stop();
  void agent.stop();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
