// deploy/ as an operator meets it (issue 15): the Kubernetes manifests parse as YAML, kustomize's inputs
// exist, the replicas' probes, volumes and instance ids are the ones the README's "Scaling out" describes,
// and the nginx recipe routes exactly the replicas the StatefulSet runs. (The recipe itself runs in
// scale-out.test.ts; `nginx -t` checks it there.)
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { REPO } from '../helpers/harness.js';
import { NGINX_RECIPE } from '../helpers/nginx.js';

const DEPLOY = path.join(REPO, 'deploy');

// The few fields of the Kubernetes objects this test reads.
interface Probe {
  httpGet: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: Array<{
    name: string;
    value?: string;
    valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } };
  }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  containers: Container[];
  volumes?: Array<{ name: string; persistentVolumeClaim?: { claimName: string }; configMap?: { name: string } }>;
  terminationGracePeriodSeconds?: number;
}
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    replicas?: number;
    serviceName?: string;
    accessModes?: string[];
    selector?: Record<string, unknown>;
    ports?: Array<{ port: number; targetPort?: string | number }>;
    template?: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}
interface Kustomization {
  resources: string[];
  configMapGenerator: Array<{ name: string; files: string[] }>;
}

/** Every document of a YAML file; fails on any YAML error or warning. */
async function yamlDocs(file: string): Promise<unknown[]> {
  const docs = parseAllDocuments(await fs.readFile(file, 'utf8'));
  if (!Array.isArray(docs)) throw new Error(`${file}: not a YAML stream`);
  for (const d of docs) {
    const issues = [...d.errors, ...d.warnings];
    if (issues.length > 0) throw new Error(`${file}: ${issues.map((e) => e.message).join('; ')}`);
  }
  return docs.map((d) => d.toJS() as unknown);
}

async function yamlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await yamlFiles(p)));
    else if (/\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out.sort();
}

const kustomization = (await yamlDocs(path.join(DEPLOY, 'kustomization.yaml')))[0] as Kustomization;
const objects: K8sObject[] = [];
for (const r of kustomization.resources) objects.push(...((await yamlDocs(path.join(DEPLOY, r))) as K8sObject[]));
const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const statefulSet = objects.find((o) => o.kind === 'StatefulSet')!;
const editguard = statefulSet?.spec.template!.spec.containers.find((c) => c.name === 'editguard');
const proxy = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'editguard-proxy');
const podNames = Array.from({ length: statefulSet?.spec.replicas ?? 0 }, (_, i) => `${statefulSet.metadata.name}-${i}`);
const readme = await fs.readFile(path.join(REPO, 'README.md'), 'utf8');
const scalingOut = /^## Scaling out\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';

describe('deploy/: Kubernetes manifests', () => {
  it('every YAML file under deploy/ parses, each document a Kubernetes object or the kustomization', async () => {
    const files = await yamlFiles(DEPLOY);
    expect(files.map((f) => path.relative(DEPLOY, f))).toEqual([
      'kubernetes/editguard.yaml',
      'kubernetes/proxy.yaml',
      'kustomization.yaml',
    ]);
    for (const f of files) {
      for (const doc of (await yamlDocs(f)) as K8sObject[]) {
        expect(typeof doc.apiVersion, f).toBe('string');
        expect(typeof doc.kind, f).toBe('string');
      }
    }
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      [
        'Deployment/editguard-proxy',
        'PersistentVolumeClaim/editguard-state',
        'PersistentVolumeClaim/editguard-workspace',
        'Service/editguard',
        'Service/editguard-0',
        'Service/editguard-1',
        'Service/editguard-proxy',
        'StatefulSet/editguard',
      ].sort(),
    );
  });

  it("kustomize's inputs exist: the resources, and the nginx recipe as the proxy's ConfigMap", async () => {
    for (const r of kustomization.resources) await expect(fs.stat(path.join(DEPLOY, r))).resolves.toBeTruthy();
    const generated = kustomization.configMapGenerator.find((g) => g.name === 'editguard-nginx');
    expect(generated?.files).toEqual(['nginx/editguard.conf']);
    expect(path.join(DEPLOY, generated!.files[0]!)).toBe(NGINX_RECIPE);
    const pod = proxy!.spec.template!.spec;
    const volume = pod.volumes!.find((v) => v.configMap?.name === 'editguard-nginx');
    expect(pod.containers[0]!.volumeMounts).toContainEqual({
      name: volume!.name,
      mountPath: '/etc/nginx/conf.d',
      readOnly: true,
    });
  });

  it('replicas probe /healthz (liveness) and /readyz (readiness) on the port they serve', () => {
    expect(statefulSet.spec.replicas).toBeGreaterThanOrEqual(2);
    const port = editguard!.ports!.find((p) => p.name === 'http')!;
    expect(editguard!.args!.join(' ')).toContain(
      `--http --host 0.0.0.0 --port ${port.containerPort} --root /workspace --state-dir /state`,
    );
    expect(editguard!.livenessProbe!.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(editguard!.readinessProbe!.httpGet).toEqual({ path: '/readyz', port: 'http' });
    // Room for the drain (http.shutdownTimeoutMs, 10 s by default) and history bookkeeping after it.
    expect(statefulSet.spec.template!.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(20);
  });

  it('each pod is its own instance (the pod name), with the token from a Secret', () => {
    const env = Object.fromEntries(editguard!.env!.map((e) => [e.name, e.valueFrom]));
    expect(env.EDITGUARD_INSTANCE_ID).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
    expect(env.EDITGUARD_TOKEN?.secretKeyRef).toMatchObject({ name: 'editguard-token' });
  });

  it('every replica mounts the same ReadWriteMany workspace and state dir', () => {
    const pod = statefulSet.spec.template!.spec;
    const mounts = Object.fromEntries(
      editguard!.volumeMounts!.map((m) => [
        m.mountPath,
        pod.volumes!.find((v) => v.name === m.name)?.persistentVolumeClaim?.claimName,
      ]),
    );
    expect(mounts).toEqual({ '/workspace': 'editguard-workspace', '/state': 'editguard-state' });
    for (const claim of ['editguard-workspace', 'editguard-state'])
      expect(find('PersistentVolumeClaim', claim)?.spec.accessModes).toEqual(['ReadWriteMany']);
  });

  it('each replica has a Service of its own selecting exactly its pod (a stable upstream address for nginx)', () => {
    expect(find('Service', statefulSet.spec.serviceName!)).toBeDefined();
    for (const name of podNames) {
      expect(find('Service', name)?.spec.selector, name).toEqual({ 'statefulset.kubernetes.io/pod-name': name });
    }
  });
});

describe('deploy/nginx/editguard.conf routes the replicas the StatefulSet runs', () => {
  it('maps each instance prefix to an upstream of its own Service, and round-robins initialize over all', async () => {
    const conf = await fs.readFile(NGINX_RECIPE, 'utf8');
    const port = editguard!.ports!.find((p) => p.name === 'http')!.containerPort;
    const upstream = (name: string) => new RegExp(`upstream ${name} \\{([^}]*)\\}`).exec(conf)?.[1] ?? '';
    const map = /map \$http_mcp_session_id \$editguard_upstream \{([^}]*)\}/.exec(conf)?.[1] ?? '';
    const routes = [...map.matchAll(/"~\^([\w-]+)\\\."\s+(\w+);/g)].map((m) => [m[1], m[2]]);
    expect(routes.map((r) => r[0])).toEqual(podNames);
    for (const [instance, name] of routes) {
      expect(
        [...upstream(name!).matchAll(/server (\S+?)[\s;]/g)].map((m) => m[1]),
        instance,
      ).toEqual([`${instance}:${port}`]);
    }
    expect([...upstream('editguard_any').matchAll(/server (\S+?)[\s;]/g)].map((m) => m[1])).toEqual(
      podNames.map((n) => `${n}:${port}`),
    );
    expect(map).toMatch(/""\s+editguard_any;/);
    const listen = Number(/listen (\d+);/.exec(conf)?.[1]);
    expect(proxy!.spec.template!.spec.containers[0]!.ports).toContainEqual({ name: 'http', containerPort: listen });
  });
});

describe('README "Scaling out" names what the manifests hold', () => {
  it('the probes, the volumes, the instance id and how to apply them', () => {
    expect(scalingOut).not.toBe('');
    for (const word of [
      '/healthz',
      '/readyz',
      'editguard-workspace',
      'editguard-state',
      'EDITGUARD_INSTANCE_ID',
      'kubectl apply -k deploy/',
      'deploy/nginx/editguard.conf',
      'ReadWriteMany',
    ]) {
      expect(scalingOut, word).toContain(word);
    }
  });
});
