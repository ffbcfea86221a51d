/**
 * The bearer token a request carries, as client-go's cached token source gives it: an
 * inline token as it is, a token file (a projected ServiceAccount token, which kubelet
 * rotates) read again once a minute.
 */
import { readFileSync } from 'node:fs';
import type { ClusterAccess } from './kubeconfig.js';

/** How long a token read from a file is used before the file is read again. */
const tokenFileRefreshMs = 60_000;

/**
 * The token source of `access`: a function giving the token to send now, if any. A token
 * file is read at once, so a missing one fails here, as client-go fails without it.
 */
export function bearerToken(access: Pick<ClusterAccess, 'token' | 'tokenFile'>): () => string | undefined {
  const { token, tokenFile } = access;
  if (token !== undefined || tokenFile === undefined) return () => token;
  let cached: { readonly token: string; readonly read: number } | undefined;
  const current = (): string => {
    if (cached === undefined || Date.now() - cached.read > tokenFileRefreshMs) {
      try {
        cached = { token: readFileSync(tokenFile, 'utf8').trim(), read: Date.now() };
      } catch (error) {
        // Keep the last token when the file is briefly missing during a rotation; fail only when there is none.
        if (cached === undefined) throw error;
      }
    }
    return cached.token;
  };
  current();
  return current;
}
