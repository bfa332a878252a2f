/**
 * A2A-Version negotiation (spec §3.6): the header (or an `A2A-Version` query parameter) names the version; an empty
 * or missing value means 0.3; patch numbers are ignored.
 */
export type ProtocolVersion = '1.0' | '0.3';

export type VersionResult = { ok: true; version: ProtocolVersion } | { ok: false; requested: string };

export function negotiateVersion(raw: string | undefined, whenAbsent: ProtocolVersion = '0.3'): VersionResult {
  const requested = raw?.trim() ?? '';
  if (requested === '') return { ok: true, version: whenAbsent };
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(requested);
  const majorMinor = match ? `${Number(match[1])}.${Number(match[2])}` : undefined;
  if (majorMinor === '1.0' || majorMinor === '0.3') return { ok: true, version: majorMinor };
  return { ok: false, requested };
}

export function unsupportedVersionMessage(requested: string): string {
  return `A2A-Version "${requested}" is not supported. This gateway speaks 1.0 (send A2A-Version: 1.0) and 0.3 (send no A2A-Version, or 0.3).`;
}
