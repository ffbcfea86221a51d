/**
 * The global setup's Go build: with a warm cache a second request runs no go command at
 * all; the cache key changes with every file the programs are built from; a changed source
 * builds every program again; a build past its time limit is stopped with an error naming
 * the limit, and leaves no lock behind. The builds here run a stand-in `go` that writes
 * stand-in binaries, so they take milliseconds; the real build is the global setup's.
 */
import { chmod, cp, mkdtemp, readdir, readFile, rm, writeFile, access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureGoPrograms, goProgramsCacheRoot, pinnedGoPrograms } from './go-programs.js';

const tools = resolve(import.meta.dirname, '../../tools');

/**
 * A `go` that records each call in `calls` and answers as go would, writing for `build -o OUT`
 * a program that prints the pinned versions; with `hang`, `build` never returns.
 */
async function standInGo(dir: string, calls: string, hang = false): Promise<string> {
  const path = join(dir, hang ? 'go-hanging' : 'go');
  const build = hang
    ? 'exec sleep 600'
    : `while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
       printf '#!/bin/sh\\necho "Kubernetes v1.34.4, etcd Version: 3.6.4, helm v3.22.0, version 3.16.0"\\n' > "$out"; chmod +x "$out"`;
  await writeFile(
    path,
    `#!/bin/sh
echo "$*" >> '${calls}'
case "$1" in
  version) echo "go version go0.0-standin linux/amd64" ;;
  list) echo standin/main ;;
  build) ${build} ;;
esac
`,
  );
  await chmod(path, 0o755);
  return path;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('the Go programs the tests run', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'cairn-go-programs-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('with the cache the global setup filled, a second request runs no go command and answers the same paths', async () => {
    const calls = join(scratch, 'warm-calls');
    const lines: string[] = [];
    const programs = await ensureGoPrograms({ goCommand: await standInGo(scratch, calls), log: (line) => lines.push(line) });
    expect(programs).toEqual(inject('goPrograms'));
    expect(programs.directory.startsWith(goProgramsCacheRoot())).toBe(true);
    expect(await exists(calls)).toBe(false);
    expect(lines).toEqual([]);
    for (const binary of [programs.kubeApiserver, programs.etcd, programs.clientGoProtobuf, programs.helm, programs.promtool, programs.prometheus])
      expect(await exists(binary), binary).toBe(true);
  });

  it('keys the cache over every file under tools/: changing any of them changes the key', async () => {
    const copy = join(scratch, 'tools-keyed');
    await cp(tools, copy, { recursive: true });
    const files = (await readdir(copy, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
    // Every program's sources are among them: the modules' go.mod and go.sum, and each main package.
    expect(files.map((file) => relative(copy, file)).sort()).toEqual(
      expect.arrayContaining([
        'etcd/go.mod',
        'etcd/go.sum',
        'etcd/main.go',
        'kube/go.mod',
        'kube/go.sum',
        'kube/client-go-protobuf/main.go',
        'helm/go.mod',
        'helm/go.sum',
        'prometheus/go.mod',
        'prometheus/go.sum',
      ]),
    );
    const original = (await pinnedGoPrograms(copy)).key;
    expect(original).toBe((await pinnedGoPrograms(tools)).key);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      await writeFile(file, `${text}\n// changed\n`);
      expect((await pinnedGoPrograms(copy)).key, relative(copy, file)).not.toBe(original);
      await writeFile(file, text);
    }
    expect((await pinnedGoPrograms(copy)).key).toBe(original);
  });

  it('builds every program again, once, when a source changes', async () => {
    const copy = join(scratch, 'tools-changed');
    await cp(tools, copy, { recursive: true });
    await writeFile(join(copy, 'kube/client-go-protobuf/main.go'), '\n// changed\n', { flag: 'a' });
    const calls = join(scratch, 'changed-calls');
    const options = { toolsDir: copy, cacheRoot: join(scratch, 'cache'), goCommand: await standInGo(scratch, calls), log: () => undefined };
    const [first, second] = await Promise.all([ensureGoPrograms(options), ensureGoPrograms(options)]);
    expect(second).toEqual(first);
    expect(first.directory).not.toBe(inject('goPrograms').directory);
    const builds = (await readFile(calls, 'utf8')).split('\n').filter((line) => line.startsWith('build'));
    // One build of each program however many asked: the lock makes the second caller wait for the first.
    expect(builds.map((line) => line.split(' ').at(-1))).toEqual([
      'k8s.io/kubernetes/cmd/kube-apiserver',
      './client-go-protobuf',
      '.',
      'helm.sh/helm/v3/cmd/helm',
      'github.com/prometheus/prometheus/cmd/promtool',
      'github.com/prometheus/prometheus/cmd/prometheus',
    ]);
    expect(builds.every((line) => line.includes('-trimpath'))).toBe(true);
    const manifest = JSON.parse(await readFile(join(first.directory, 'build.json'), 'utf8'));
    expect(Object.keys(manifest.seconds)).toEqual(['kube-apiserver', 'client-go-protobuf', 'etcd', 'helm', 'promtool', 'prometheus']);
  });

  it('stops a build that outlasts its time limit, with an error naming the limit, and releases the lock', async () => {
    const copy = join(scratch, 'tools-slow');
    await cp(tools, copy, { recursive: true });
    await writeFile(join(copy, 'etcd/main.go'), '\n// slow\n', { flag: 'a' });
    const cacheRoot = join(scratch, 'slow-cache');
    const calls = join(scratch, 'slow-calls');
    const options = { toolsDir: copy, cacheRoot, goCommand: await standInGo(scratch, calls, true), log: () => undefined, timeLimitMs: 1_000 };
    await expect(ensureGoPrograms(options)).rejects.toThrow(/not ready within 1 s \(building\); see BUILD_TIME_LIMIT_MS/);
    const left = await readdir(cacheRoot);
    expect(left.filter((name) => name.endsWith('.lock') || name.includes('.staging-'))).toEqual([]);
  });
});
