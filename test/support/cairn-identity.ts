/**
 * Cairn's identity at a test kube-apiserver when it runs outside a pod: a client
 * certificate `CN=cairn` from the cluster's client CA in a kubeconfig, bound as apiservice/
 * binds the ServiceAccount (TokenReview and SubjectAccessReview, the authentication
 * ConfigMap, `get namespaces`, `list`/`watch` webhook configurations).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { issueClientCertificate } from '../../src/server/pki.js';
import type { KubeControlPlane } from './kube-control-plane.js';

const rbac = 'rbac.authorization.k8s.io/v1';
const userCairn = [{ kind: 'User', name: 'cairn' }];

/** The bindings every aggregated API server gets, NamespaceLifecycle's `get namespaces` and the webhook configurations' reader, for user `cairn`. */
export const cairnDelegationBindings: readonly object[] = [
  {
    apiVersion: rbac,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'cairn:system:auth-delegator' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' },
    subjects: userCairn,
  },
  {
    apiVersion: rbac,
    kind: 'RoleBinding',
    metadata: { name: 'cairn:extension-apiserver-authentication-reader', namespace: 'kube-system' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'extension-apiserver-authentication-reader' },
    subjects: userCairn,
  },
  {
    apiVersion: rbac,
    kind: 'ClusterRole',
    metadata: { name: 'cairn:namespace-reader' },
    rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['get'] }],
  },
  {
    apiVersion: rbac,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'cairn:namespace-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cairn:namespace-reader' },
    subjects: userCairn,
  },
  {
    apiVersion: rbac,
    kind: 'ClusterRole',
    metadata: { name: 'cairn:webhook-configuration-reader' },
    rules: [
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations'],
        verbs: ['get', 'list', 'watch'],
      },
    ],
  },
  {
    apiVersion: rbac,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'cairn:webhook-configuration-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cairn:webhook-configuration-reader' },
    subjects: userCairn,
  },
];

/**
 * Writes `dir/cairn.kubeconfig` (user `cairn`, the control plane's serving CA), applies
 * {@link cairnDelegationBindings} as the admin and returns the kubeconfig's path, for
 * `--authentication-kubeconfig` and `--authorization-kubeconfig`.
 */
export async function cairnDelegationKubeconfig(plane: KubeControlPlane, dir: string): Promise<string> {
  const identity = issueClientCertificate(plane.clientCaPem, plane.clientCaKeyPem, { commonName: 'cairn' });
  const base64 = (pem: string) => Buffer.from(pem).toString('base64');
  const kubeconfig = join(dir, 'cairn.kubeconfig');
  await writeFile(
    kubeconfig,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'main', cluster: { server: plane.url, 'certificate-authority-data': base64(plane.servingCaPem) } }],
      users: [{ name: 'cairn', user: { 'client-certificate-data': base64(identity.certPem), 'client-key-data': base64(identity.keyPem) } }],
      contexts: [{ name: 'main', context: { cluster: 'main', user: 'cairn' } }],
      'current-context': 'main',
    }),
  );
  const bindings = join(dir, 'cairn-delegation.yaml');
  await writeFile(bindings, cairnDelegationBindings.map((object) => stringify(object)).join('---\n'));
  const applied = await plane.kubectl(['apply', '-f', bindings]);
  if (applied.code !== 0) throw new Error(`kubectl apply -f ${bindings} exited ${applied.code}: ${applied.stderr}`);
  return kubeconfig;
}
