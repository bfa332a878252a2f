/**
 * deploy/kubernetes: every manifest, and the production overlay as rendered, checked against the Kubernetes API's
 * JSON schemas (the kubernetes-models package, offline); the probes, Secret references, budget and autoscaler the
 * gateway needs; the Services (HTTP to ready pods, Waku to every pod); and the gateway's settings in the ConfigMap
 * accepted by the gateway itself.
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
import { dialsPeers } from '../../src/logos/network.ts';
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
const byName = (manifests: Manifest[], kind: string, name: string) =>
  manifests.find((m) => m.kind === kind && m.metadata.name === name)!;

/** The gateway's settings as a pod reads them: the ConfigMap's file, under the Deployment's plain env values. */
function podSettings(manifests: Manifest[]) {
  const [gateway] = byKind(manifests, 'Deployment').spec.template.spec.containers;
  const env = Object.fromEntries(
    gateway.env.filter((e: Manifest) => 'value' in e).map((e: Manifest) => [e.name, e.value as string]),
  );
  const dir = mkdtempSync(join(tmpdir(), 'logos-a2a-configmap-'));
  try {
    const file = join(dir, 'gateway.json');
    writeFileSync(file, byKind(manifests, 'ConfigMap').data['gateway.json']);
    return loadConfig({ file, env });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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

  it('the production overlay renders to valid manifests with its namespace, image, autoscaler bounds and patches', () => {
    const manifests = renderKustomization(production);
    expect(manifests.map((m) => m.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'Service',
      'Service',
      'Service',
    ]);
    for (const manifest of manifests) {
      expect(() => validate(manifest), manifest.kind).not.toThrow();
      expect(manifest.metadata.namespace).toBe('logos-a2a');
    }
    const deployment = byKind(manifests, 'Deployment');
    const [gateway] = deployment.spec.template.spec.containers;
    expect(gateway.image).toBe('ghcr.io/logos-co/logos-a2a:0.1.0');
    // The patch added to the env and replaced the resources, and kept the rest of the base.
    expect(gateway.env.map((e: { name: string }) => e.name)).toEqual(
      expect.arrayContaining(['PUBLIC_BASE_URL', 'LOGOS_A2A_DATABASE', 'LOGOS_A2A_ADMIN_TOKEN']),
    );
    expect(gateway.resources.limits.memory).toBe('1Gi');
    expect(gateway.livenessProbe.httpGet.path).toBe('/livez');
    expect(byKind(manifests, 'HorizontalPodAutoscaler').spec).toMatchObject({ minReplicas: 3, maxReplicas: 10 });
    // The base is untouched by rendering the overlay.
    expect(byKind(renderKustomization(base), 'HorizontalPodAutoscaler').spec.minReplicas).toBe(2);
  });

  it('leaves the replicas of the Deployment the autoscaler scales to the autoscaler, in the base and the overlay', () => {
    for (const folder of [base, production]) {
      const manifests = renderKustomization(folder);
      const autoscalers = manifests.filter((m) => m.kind === 'HorizontalPodAutoscaler');
      expect(autoscalers.length, folder).toBeGreaterThan(0);
      for (const autoscaler of autoscalers) {
        const { kind, name } = autoscaler.spec.scaleTargetRef;
        const target = byName(manifests, kind, name);
        // A count here would be put back by every kubectl apply, scaling down under the autoscaler's feet.
        expect(target.spec, `${folder}: ${kind} ${name}`).not.toHaveProperty('replicas');
        expect(autoscaler.spec.minReplicas).toBeGreaterThanOrEqual(2);
      }
    }
  });

  it('serves HTTP to ready pods only, and the Waku port agents dial to every pod, ready or not', () => {
    const manifests = renderKustomization(production);
    const deployment = byKind(manifests, 'Deployment');
    const [gateway] = deployment.spec.template.spec.containers;
    const containerPort = (name: string) => gateway.ports.find((p: Manifest) => p.name === name).containerPort;
    const http = byName(manifests, 'Service', 'logos-a2a');
    const waku = byName(manifests, 'Service', 'logos-a2a-waku');
    for (const service of [http, waku]) expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);

    // Readiness (/readyz on the HTTP port) gates the HTTP Service, which carries nothing else.
    expect(gateway.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(http.spec.publishNotReadyAddresses ?? false).toBe(false);
    expect(http.spec.ports.map((p: Manifest) => p.targetPort)).toEqual(['http', 'grpc']);
    expect(containerPort('http')).toBe(podSettings(manifests).port);
    expect(containerPort('grpc')).toBe(podSettings(manifests).grpcPort);

    // Agents reach a pod's Waku node before it is ready, and while it drains, at the port the node listens on.
    expect(waku.spec.publishNotReadyAddresses).toBe(true);
    expect(waku.spec.ports).toEqual([{ name: 'waku', port: 60000, targetPort: 'waku' }]);
    const settings = podSettings(manifests);
    expect(settings.transport).toMatchObject({ kind: 'waku', listen: [`/ip4/0.0.0.0/tcp/${containerPort('waku')}`] });
    // With the shipped settings the node waits for nobody (agents dial it), so readiness waits for no peers.
    expect(dialsPeers(settings.transport)).toBe(false);

    // The replicas dial each other through a headless Service, which lists every pod, ready or not.
    const peers = byName(manifests, 'Service', 'logos-a2a-waku-peers');
    expect(peers.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
    expect(peers.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(peers.spec.ports).toEqual([{ name: 'waku', port: 60000, targetPort: 'waku' }]);
    expect(settings.transport).toMatchObject({
      replicaPeers: { host: 'logos-a2a-waku-peers', port: containerPort('waku') },
    });
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
    // Every replica is one Logos party, signs cards alike and pays from one wallet: every key the settings name is a
    // file of the Secret's (none a file the pod would make for itself on its own disk). The wallet's is there only
    // with payments, so a Secret without it still starts the pod; the others must be there.
    const mount = gateway.volumeMounts.find((m: Manifest) => m.name === 'secrets').mountPath;
    const sources = pod.volumes.find((v: Manifest) => v.name === 'secrets').projected.sources;
    const secretFiles = new Map<string, { key: string; optional: boolean }>(
      sources.flatMap(({ secret }: Manifest) => {
        expect(secret.name).toBe('logos-a2a');
        return secret.items.map((item: Manifest) => [
          `${mount}/${item.path}`,
          { key: item.key, optional: secret.optional ?? false },
        ]);
      }),
    );
    const { transport, cardSigningKeyFile, payments } = podSettings(manifests);
    const keyFiles = [transport.kind === 'waku' ? transport.keyFile : '', cardSigningKeyFile, payments.walletKeyFile];
    expect(keyFiles.map((file) => secretFiles.get(file!))).toEqual([
      { key: 'logos-key', optional: false },
      { key: 'card-signing-key', optional: false },
      { key: 'wallet-key', optional: true },
    ]);
    // Drained before it is killed: the pod's grace outlasts the gateway's own.
    const grace = Number(gateway.env.find((e: Manifest) => e.name === 'LOGOS_A2A_SHUTDOWN_GRACE_MS').value);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(grace);

    const selector = deployment.spec.selector.matchLabels;
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
