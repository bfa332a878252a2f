/** `logos-a2a registry export`: its options and help; the work is registry-export.ts's, loaded when it runs. */
import { UsageError } from '../errors.ts';
import { str, type Command } from '../command.ts';

export const registryCommand: Command = {
  synopsis: 'export [options]',
  summary: 'one a2a-registry entry per agent of a running gateway',
  help: () => `Writes one a2a-registry entry per agent of a running gateway, as DIR/<id>.json.

Options:
  --gateway URL     the gateway (default http://localhost:8080)
  --out DIR         where to write (default registry)
  --author NAME     the author of entries whose card names no provider
  -h, --help        this text

Settings: none besides these options.
`,
  options: { gateway: { type: 'string' }, out: { type: 'string' }, author: { type: 'string' } },
  positionals: 1,
  async run(positionals, values) {
    if (positionals[0] !== 'export')
      throw new UsageError('logos-a2a registry: the action is export: logos-a2a registry export [options]');
    const { runRegistryExport } = await import('../registry-export.ts');
    return runRegistryExport({
      gatewayUrl: str(values.gateway) ?? 'http://localhost:8080',
      outDir: str(values.out) ?? 'registry',
      ...(str(values.author) ? { author: str(values.author)! } : {}),
    });
  },
};
