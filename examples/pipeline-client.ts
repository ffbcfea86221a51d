/**
 * A Pipeline's life through the typed client: create it, scale it, watch its runners
 * become ready, then follow its log. The runners are the sample controller's simulated
 * ones, so run it against a server that runs the controller (`npm start` does).
 *
 *   npx tsx examples/pipeline-client.ts [KUBECONFIG] [NAME]
 *
 * In a project that installed Cairn, the import is the same; run it with tsx or compile it.
 */
import { createCairnClient, isNotFound, loadKubeconfig, unwrap, type Pipeline } from 'cairn-apiserver/client';

const [kubeconfig = '.data/kubeconfig', name = 'example'] = process.argv.slice(2);
const replicas = 3;

const client = createCairnClient(await loadKubeconfig(kubeconfig));
const { namespace } = client;
const pipelinePath = '/apis/cairn.dev/v1/namespaces/{namespace}/pipelines/{name}';
try {
  // Start afresh: a Pipeline left by an earlier run goes first (its log goes with it).
  await unwrap(client.api.DELETE(pipelinePath, { params: { path: { namespace, name } } })).catch((error: unknown) => {
    if (!isNotFound(error, name)) throw error;
  });

  const manifest: Pipeline = {
    apiVersion: 'cairn.dev/v1',
    kind: 'Pipeline',
    metadata: { name, labels: { example: 'pipeline-client' } },
    spec: { runnerClassName: 'standard', replicas: 1, steps: [{ name: 'fetch', image: 'alpine:3.20', command: ['sh', '-c', 'echo fetching'] }] },
  };
  const created = await unwrap(client.api.POST('/apis/cairn.dev/v1/namespaces/{namespace}/pipelines', { params: { path: { namespace } }, body: manifest }));
  console.log(`created pipeline ${namespace}/${name} (uid ${created.metadata?.uid})`);

  // The scale subresource, as `kubectl scale --replicas=3` uses it.
  const scale = await client.scale({ namespace, name }, replicas);
  console.log(`scaled to ${scale.spec?.replicas} replicas`);

  // The Pipeline as listed, then each change, until every runner is ready; a 410 Gone would list again.
  const watched = client.listAndWatch('/apis/cairn.dev/v1/namespaces/{namespace}/pipelines', {
    path: { namespace },
    fieldSelector: `metadata.name=${name}`,
  });
  for await (const event of watched) {
    if (event.type === 'SYNCED') continue;
    const { spec, status } = event.object;
    console.log(`${event.type}: ${status?.readyReplicas ?? 0}/${spec?.replicas} ready, phase ${status?.phase ?? 'unknown'}`);
    if (event.type !== 'DELETED' && status?.readyReplicas === replicas) break;
  }

  // The controller writes a line per status change; follow the log until it reports all ready.
  for await (const line of client.readLog({ namespace, name }, { follow: true })) {
    console.log(`log: ${line}`);
    if (line.includes(`${replicas}/${replicas}`)) break;
  }
} finally {
  client.close();
}
