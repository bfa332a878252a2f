/**
 * Renders a kustomization the way `kubectl kustomize` does, for the subset deploy/kubernetes uses: resources (files
 * and kustomization folders), namespace, images, and strategic-merge patches (objects merged key by key, lists of
 * named items merged by name). Any other field is refused, so a manifest never relies on a feature this renderer
 * would silently skip. (`replicas` among them: the autoscaler sets the Deployment's.)
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export type Manifest = Record<string, any>;

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);
/** Kinds that live in a namespace (everything deploy/kubernetes holds). */
const NAMESPACED = new Set([
  'ConfigMap',
  'Secret',
  'Deployment',
  'Service',
  'PodDisruptionBudget',
  'HorizontalPodAutoscaler',
]);

export function readManifests(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
    return document.toJS() as Manifest;
  });
}

export function renderKustomization(folder: string): Manifest[] {
  const file = join(folder, 'kustomization.yaml');
  if (!existsSync(file)) throw new Error(`${folder} has no kustomization.yaml`);
  const [kustomization] = readManifests(file);
  const unsupported = Object.keys(kustomization!).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length > 0) throw new Error(`${file}: unsupported fields ${unsupported.join(', ')}`);
  const k = kustomization as {
    resources?: string[];
    namespace?: string;
    images?: { name: string; newName?: string; newTag?: string }[];
    patches?: { path: string }[];
  };

  let manifests = (k.resources ?? []).flatMap((resource) => {
    const path = join(folder, resource);
    return statSync(path).isDirectory() ? renderKustomization(path) : readManifests(path);
  });
  for (const { path } of k.patches ?? []) {
    for (const patch of readManifests(join(folder, path))) {
      const target = manifests.find((m) => m.kind === patch.kind && m.metadata?.name === patch.metadata?.name);
      if (!target) throw new Error(`${path}: no ${patch.kind} ${patch.metadata?.name} to patch`);
      manifests = manifests.map((m) => (m === target ? strategicMerge(m, patch) : m));
    }
  }
  for (const image of k.images ?? []) {
    let used = false;
    for (const container of manifests.flatMap((m) => m.spec?.template?.spec?.containers ?? [])) {
      const [name, tag] = splitImage(container.image);
      if (name !== image.name) continue;
      used = true;
      container.image = `${image.newName ?? name}${image.newTag ? `:${image.newTag}` : tag ? `:${tag}` : ''}`;
    }
    if (!used) throw new Error(`${file}: no container uses the image ${image.name}`);
  }
  if (k.namespace) {
    for (const manifest of manifests) if (NAMESPACED.has(manifest.kind)) manifest.metadata.namespace = k.namespace;
  }
  return manifests;
}

function splitImage(image: string): [string, string | undefined] {
  const at = image.lastIndexOf(':');
  return at > image.lastIndexOf('/') ? [image.slice(0, at), image.slice(at + 1)] : [image, undefined];
}

export function strategicMerge(base: any, patch: any): any {
  if (Array.isArray(base) && Array.isArray(patch)) {
    if (!patch.every((item) => typeof item?.name === 'string')) return patch;
    const merged = base.map((item) => {
      const update = patch.find((p) => p.name === item?.name);
      return update ? strategicMerge(item, update) : item;
    });
    return [...merged, ...patch.filter((p) => !base.some((item) => item?.name === p.name))];
  }
  if (isObject(base) && isObject(patch)) {
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      merged[key] = key in base ? strategicMerge(base[key], value) : value;
    }
    return merged;
  }
  return patch;
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
