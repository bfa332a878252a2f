/**
 * deploy/kubernetes: every manifest, and the production overlay as rendered, checked against the Kubernetes API's
 * JSON schemas (the kubernetes-models package, offline); the probes, Secret references, budget and autoscaler the
 * gateway needs; and the gateway's settings in the ConfigMap accepted by the gateway itself.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as appsV1 from 'kubernetes-models/apps/v1';
import * as autoscalingV2 from 'kubernetes-models/autoscaling/v2';
import * as policyV1 from 'kubernetes-models/policy/v1';
import * as coreV1 from 'kubernetes-models/v1';
import { loadConfig } from '../../src/gateway/config.ts';
import { readManifests, renderKustomization, strategicMerge, type Manifest } from './kustomize.ts';

const root = join(import.meta.dirname, '../../deploy/kubernetes');
const base = join(root, 'base');
const production = join(root, 'overlays/production');

const MODELS: Record<string, Record<string, unknown>> = {
  'apps/v1': appsV1,
  'autoscaling/v2': autoscalingV2,
  'policy/v1': policyV1,
  v1: coreV1,
};

/** Validates against the schema of the manifest's apiVersion and kind; throws naming what is wrong. */
function validate(manifest: Manifest): void {
  const Model = MODELS[manifest.apiVersion]?.[manifest.kind] as
    (new (data: Manifest) => { validate(): void }) | undefined;
  if (!Model) throw new Error(`no schema for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest).validate();
}

const byKind = (manifests: Manifest[], kind: string) => manifests.find((m) => m.kind === kind)!;

describe('deploy/kubernetes', () => {
  it('every manifest file is valid against the Kubernetes schemas', () => {
    const files = [base, production].flatMap((folder) =>
      readdirSync(folder)
        .filter((name) => name.endsWith('.yaml') && name !== 'kustomization.yaml')
        .map((name) => join(folder, name)),
    );
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const file of files.filter((f) => f.startsWith(base))) {
      for (const manifest of readManifests(file)) expect(() => validate(manifest), file).not.toThrow();
    }
  });

  it('the validation catches a mistake (a wrong type, a required field left out)', () => {
    const deployment = byKind(renderKustomization(base), 'Deployment');
    expect(() => validate(strategicMerge(deployment, { spec: { replicas: 'two' } }))).toThrow();
    const nameless = structuredClone(deployment);
    delete nameless.spec.template.spec.containers[0].name;
    expect(() => validate(nameless)).toThrow();
  });

  it('the production overlay renders to valid manifests with its namespace, image, replicas and patches', () => {
    const manifests = renderKustomization(production);
    expect(manifests.map((m) => m.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'Service',
    ]);
    for (const manifest of manifests) {
      expect(() => validate(manifest), manifest.kind).not.toThrow();
      expect(manifest.metadata.namespace).toBe('logos-a2a');
    }
    const deployment = byKind(manifests, 'Deployment');
    expect(deployment.spec.replicas).toBe(3);
    const [gateway] = deployment.spec.template.spec.containers;
    expect(gateway.image).toBe('ghcr.io/logos-co/logos-a2a:0.1.0');
    // The patch added to the env and replaced the resources, and kept the rest of the base.
    expect(gateway.env.map((e: { name: string }) => e.name)).toEqual(
      expect.arrayContaining(['PUBLIC_BASE_URL', 'LOGOS_A2A_DATABASE', 'LOGOS_A2A_ADMIN_TOKEN']),
    );
    expect(gateway.resources.limits.memory).toBe('1Gi');
    expect(gateway.livenessProbe.httpGet.path).toBe('/livez');
    expect(byKind(manifests, 'HorizontalPodAutoscaler').spec.minReplicas).toBe(3);
    // The base is untouched by rendering the overlay.
    expect(byKind(renderKustomization(base), 'Deployment').spec.replicas).toBe(2);
  });

  it('the Deployment probes /livez and /readyz, runs unprivileged, and takes its secrets from a Secret', () => {
    const manifests = renderKustomization(base);
    const deployment = byKind(manifests, 'Deployment');
    const pod = deployment.spec.template.spec;
    const [gateway] = pod.containers;
    expect(gateway.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
    expect(gateway.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    const fromSecret = Object.fromEntries(
      gateway.env
        .filter((e: Manifest) => e.valueFrom?.secretKeyRef)
        .map((e: Manifest) => [e.name, e.valueFrom.secretKeyRef.key]),
    );
    expect(fromSecret).toEqual({
      LOGOS_A2A_DATABASE: 'database-url',
      LOGOS_A2A_ADMIN_TOKEN: 'admin-token',
      LOGOS_A2A_WALLET_PASSPHRASE: 'wallet-passphrase',
    });
    // Every replica is one Logos party and signs cards alike: both keys come from the Secret, mounted where the
    // settings point.
    const mount = gateway.volumeMounts.find((m: Manifest) => m.name === 'secrets').mountPath;
    const items = pod.volumes.find((v: Manifest) => v.name === 'secrets').secret.items;
    const setting = (name: string) => gateway.env.find((e: Manifest) => e.name === name).value;
    expect(items).toEqual(
      expect.arrayContaining([
        { key: 'logos-key', path: 'gateway.key' },
        { key: 'card-signing-key', path: 'card-signing.key' },
      ]),
    );
    expect(setting('LOGOS_A2A_WAKU_KEY_FILE')).toBe(`${mount}/gateway.key`);
    expect(setting('LOGOS_A2A_CARD_KEY_FILE')).toBe(`${mount}/card-signing.key`);
    // Drained before it is killed: the pod's grace outlasts the gateway's own.
    const grace = Number(gateway.env.find((e: Manifest) => e.name === 'LOGOS_A2A_SHUTDOWN_GRACE_MS').value);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(grace);

    const selector = deployment.spec.selector.matchLabels;
    expect(byKind(manifests, 'Service').spec.selector).toEqual(selector);
    expect(byKind(manifests, 'PodDisruptionBudget').spec.selector.matchLabels).toEqual(selector);
    expect(byKind(manifests, 'HorizontalPodAutoscaler').spec.scaleTargetRef).toMatchObject({
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
  });

  it('the gateway accepts the settings in the ConfigMap', () => {
    const configMap = byKind(renderKustomization(base), 'ConfigMap');
    const settings = JSON.parse(configMap.data['gateway.json']);
    expect(() => loadConfig({ env: {}, overrides: settings })).not.toThrow();
  });

  it('the renderer merges named list items by name, and refuses what it does not implement', () => {
    expect(strategicMerge({ a: [{ name: 'x', v: 1, w: 1 }] }, { a: [{ name: 'x', v: 2 }, { name: 'y' }] })).toEqual({
      a: [{ name: 'x', v: 2, w: 1 }, { name: 'y' }],
    });
    const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-kustomize-'));
    try {
      writeFileSync(join(dir, 'kustomization.yaml'), 'resources: []\ncommonLabels: {a: b}\n');
      expect(() => renderKustomization(dir)).toThrow(/unsupported fields commonLabels/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
