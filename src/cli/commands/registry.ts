/** `logos-a2a registry export`: its options and help; the work is registry-export.ts's, loaded when it runs. */
import { UsageError } from '../errors.ts';
import { str, type Command } from '../command.ts';

export const registryCommand: Command = {
  synopsis: 'export [options]',
  summary: 'one registry entry per agent of a running gateway (a2a-registry, AgentCore)',
  help: () => `Writes one registry entry per agent of a running gateway, as DIR/<id>.json.

Options:
  --gateway URL     the gateway (default http://localhost:8080)
  --out DIR         where to write (default registry)
  --format NAME     a2a-registry (a2aregistry.org, the default) or agentcore (the AWS Agent Registry of Bedrock
                    AgentCore: aws bedrock-agentcore-control create-registry-record --registry-id ID
                    --cli-input-json file://DIR/<id>.json)
  --author NAME     a2a-registry: the author of entries whose card names no provider
  -h, --help        this text

Settings: none besides these options.
`,
  options: {
    gateway: { type: 'string' },
    out: { type: 'string' },
    format: { type: 'string' },
    author: { type: 'string' },
  },
  positionals: 1,
  async run(positionals, values) {
    if (positionals[0] !== 'export')
      throw new UsageError('logos-a2a registry: the action is export: logos-a2a registry export [options]');
    const { runRegistryExport, REGISTRY_FORMATS } = await import('../registry-export.ts');
    const format = str(values.format) ?? 'a2a-registry';
    if (!(REGISTRY_FORMATS as readonly string[]).includes(format))
      throw new UsageError(`logos-a2a registry: --format is one of ${REGISTRY_FORMATS.join(', ')}`);
    return runRegistryExport({
      gatewayUrl: str(values.gateway) ?? 'http://localhost:8080',
      outDir: str(values.out) ?? 'registry',
      format: format as (typeof REGISTRY_FORMATS)[number],
      ...(str(values.author) ? { author: str(values.author)! } : {}),
    });
  },
};
