/** The Pipeline every write of the bench sends: about 900 bytes of JSON, like a real one. */

/** The API path of Pipelines in `namespace`. */
export const pipelinesPath = (namespace: string): string => `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;

/** The API path of one Pipeline. */
export const pipelinePath = (namespace: string, name: string): string => `${pipelinesPath(namespace)}/${name}`;

/** The annotation updates and patches change, so that no write is a no-op. */
export const revisionAnnotation = 'bench.cairn.dev/revision';

/**
 * A cairn.dev/v1 Pipeline named `name` with three steps, labels and annotations; its
 * JSON is about 900 bytes (the stored object, with managedFields, about 1.9 KB).
 */
export function pipelineManifest(name: string, revision = 0): Record<string, unknown> {
  return {
    apiVersion: 'cairn.dev/v1',
    kind: 'Pipeline',
    metadata: {
      name,
      labels: { 'app.kubernetes.io/name': 'checkout', 'app.kubernetes.io/part-of': 'storefront', team: 'payments', tier: 'backend' },
      annotations: {
        [revisionAnnotation]: String(revision),
        'bench.cairn.dev/source': 'https://git.example.com/shop/checkout.git',
      },
    },
    spec: {
      runnerClassName: 'standard',
      replicas: 2,
      steps: [
        {
          name: 'fetch',
          image: 'alpine/git:2.45.2',
          command: ['git', 'clone', '--depth=1', 'https://git.example.com/shop/checkout.git', '/workspace'],
          env: [{ name: 'GIT_TERMINAL_PROMPT', value: '0' }],
        },
        {
          name: 'build',
          image: 'golang:1.23-alpine',
          command: ['sh', '-c', 'cd /workspace && go build -trimpath -o bin/checkout ./cmd/checkout'],
          env: [{ name: 'CGO_ENABLED', value: '0' }],
        },
        {
          name: 'test',
          image: 'golang:1.23-alpine',
          command: ['sh', '-c', 'cd /workspace && go test -count=1 -race ./...'],
          env: [{ name: 'GOMAXPROCS', value: '2' }],
        },
      ],
    },
  };
}

/** {@link pipelineManifest} as the JSON text a client sends. */
export const pipelineBody = (name: string, revision = 0): string => JSON.stringify(pipelineManifest(name, revision));
