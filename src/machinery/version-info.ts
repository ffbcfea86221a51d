/**
 * The server's version.Info, as `/version` answers it and OpenAPI's info carries it. Its minor picks which kubectl the machine's kubectl
 * dispatcher runs, so it names the Kubernetes API level Cairn follows.
 */
import { createRequire } from 'node:module';

/** The package's version, read from package.json: two folders up from source (src/machinery/), three from a build (dist/src/machinery/). */
const packageVersion = ((): string => {
  const require = createRequire(import.meta.url);
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      const manifest = require(path) as { name?: string; version?: string };
      if (manifest.name === 'cairn-apiserver' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // not at this depth: try the next
    }
  }
  throw new Error('package.json of cairn-apiserver not found above ' + import.meta.url);
})();

/** The Kubernetes minor version whose API behaviour Cairn matches. */
export const kubernetesMinor = '32';

/** The body of `/version`. */
export function versionInfo() {
  return {
    major: '1',
    minor: kubernetesMinor,
    gitVersion: `v1.${kubernetesMinor}.0+cairn-${packageVersion}`,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsx',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}
