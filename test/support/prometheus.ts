/** Reading the Prometheus text exposition of /metrics in tests. */

/** The value of one series in a Prometheus text exposition (0 when absent). */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const present = [...line.slice(name.length).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([pair]) => pair);
    if (wanted.every((pair) => present.includes(pair))) return Number(line.split(' ').at(-1));
  }
  return 0;
}
