/** The attributes an authorizer (or an audit policy) is asked about, for unit tests of either. */
import type { AuthorizationAttributes } from '../../src/auth/authorizer.js';
import type { UserInfo } from '../../src/auth/user-info.js';

/** `verb` on `path`, a request for no resource. */
export function nonResourceAttributes(user: UserInfo, verb: string, path: string): AuthorizationAttributes {
  return { user, verb, path, isResourceRequest: false, namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}

/** `verb` on the Pipelines of namespace `ns` (the collection, unless `rest` names one). */
export function pipelineAttributes(user: UserInfo, verb: string, rest: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return {
    user,
    verb,
    path: '/apis/cairn.dev/v1/namespaces/ns/pipelines',
    isResourceRequest: true,
    namespace: 'ns',
    apiGroup: 'cairn.dev',
    apiVersion: 'v1',
    resource: 'pipelines',
    subresource: '',
    name: '',
    ...rest,
  };
}
