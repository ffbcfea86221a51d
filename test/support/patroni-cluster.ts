/**
 * PostgreSQL as production runs it: three Patroni members (PostgreSQL 15) in
 * synchronous mode keeping their leader in one etcd, every part on loopback ports in a
 * temporary directory, each daemon in its own process group. Tests inject the faults a
 * production cluster meets (a switchover, a killed postmaster, a killed Patroni agent)
 * and ask Patroni's REST API who leads.
 */
import { execFile } from 'node:child_process';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { stringify } from 'yaml';
import { patroniTiming } from '../../bench/faults-bench.js';
import { ensureDebianPackage } from './debian-packages.js';
import { freeLoopbackPort } from './free-port.js';
import { killGroup, startProcessGroup, type ProcessGroup } from './process-group.js';

const execFileAsync = promisify(execFile);
const postgresBin = '/usr/lib/postgresql/15/bin';
const serverUser = 'postgres';
const scope = 'cairn';

export { patroniTiming };

/** One member as Patroni's REST API describes it (`GET /cluster`). */
export interface PatroniMemberState {
  readonly name: string;
  readonly role: string;
  readonly state: string;
  readonly host: string;
  readonly port: number;
  readonly timeline?: number;
  readonly lag?: number | string;
}

/** One member of the cluster. */
export interface PatroniMember {
  readonly name: string;
  /** The loopback port PostgreSQL listens on. */
  readonly postgresPort: number;
  /** The loopback port of Patroni's REST API. */
  readonly restPort: number;
  readonly dataDirectory: string;
  readonly configFile: string;
  /** The Patroni agent's process group (the postmaster runs in a session of its own). */
  agent: ProcessGroup;
}

/** A running Patroni cluster. */
export interface PatroniCluster {
  readonly directory: string;
  readonly members: readonly PatroniMember[];
  /** The member named, or throws. */
  member(name: string): PatroniMember;
  /** `GET /cluster` on the first member whose REST API answers. */
  state(): Promise<readonly PatroniMemberState[]>;
  /** Waits until a leader runs and every other live member streams from it with a synchronous standby chosen; returns the leader. */
  waitHealthy(timeoutMs: number, members?: number): Promise<PatroniMember>;
  /** Whether `member`'s REST API answers `OPTIONS /primary` with 200 (what HAProxy checks). */
  isPrimary(member: PatroniMember): Promise<boolean>;
  /**
   * Whether `member` is primary and its PostgreSQL takes writes (not in recovery): after a
   * crash Patroni answers /primary while it restarts PostgreSQL as a standby to promote it.
   */
  isWritablePrimary(member: PatroniMember): Promise<boolean>;
  /**
   * Whether `member` is a writable primary with a synchronous standby streaming from it: in
   * strict synchronous mode only then can it acknowledge a commit, so a failover is over.
   */
  acknowledgesWrites(member: PatroniMember): Promise<boolean>;
  /** `patronictl switchover --force`: the leader hands over to its synchronous standby. */
  switchover(): Promise<string>;
  /** The pid of the member's postmaster (from its postmaster.pid), or undefined when none runs. */
  postmasterPid(member: PatroniMember): Promise<number | undefined>;
  /** Stops everything and removes the directory. Idempotent. */
  destroy(): Promise<void>;
}

/** Starts etcd and three Patroni members and waits until the cluster is healthy. */
export async function startPatroniCluster(options: { members?: number } = {}): Promise<PatroniCluster> {
  const [patroni, patronictl, etcd] = await Promise.all([
    ensureDebianPackage('patroni', 'patroni'),
    ensureDebianPackage('patroni', 'patronictl'),
    ensureDebianPackage('etcd-server', 'etcd'),
  ]);
  const directory = await mkdtemp(join(tmpdir(), 'cairn-patroni-'));
  const cluster = new LocalPatroniCluster(directory, patronictl);
  try {
    await cluster.start(patroni, etcd, options.members ?? 3);
    await cluster.waitHealthy(120_000);
    return cluster;
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
}

class LocalPatroniCluster implements PatroniCluster {
  readonly members: PatroniMember[] = [];
  #etcd: ProcessGroup | undefined;
  #etcdPort = 0;
  #destroyed = false;

  constructor(
    readonly directory: string,
    readonly patronictl: string,
  ) {}

  async start(patroni: string, etcd: string, count: number): Promise<void> {
    if (process.getuid?.() === 0) await chownToServerUser(this.directory);
    this.#etcdPort = await freeLoopbackPort();
    const peerPort = await freeLoopbackPort();
    const etcdData = join(this.directory, 'etcd');
    this.#etcd = startProcessGroup(
      etcd,
      [
        '--name=etcd0',
        `--data-dir=${etcdData}`,
        `--listen-client-urls=http://127.0.0.1:${this.#etcdPort}`,
        `--advertise-client-urls=http://127.0.0.1:${this.#etcdPort}`,
        `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
        `--initial-cluster=etcd0=http://127.0.0.1:${peerPort}`,
        '--log-level=warn',
      ],
      { logFile: join(this.directory, 'etcd.log'), cwd: this.directory },
    );
    await this.#waitFor(
      'etcd answers',
      30_000,
      async () => (await fetchStatus(`http://127.0.0.1:${this.#etcdPort}/health`)) === 200,
      () => this.#etcd!.logTail(),
    );
    for (let i = 0; i < count; i++) {
      const name = `member${i}`;
      const postgresPort = await freeLoopbackPort();
      const restPort = await freeLoopbackPort();
      const dataDirectory = join(this.directory, name);
      const configFile = join(this.directory, `${name}.yml`);
      await writeFile(configFile, stringify(this.#config(name, postgresPort, restPort, dataDirectory)));
      if (process.getuid?.() === 0) await chownToServerUser(configFile);
      const agent = startProcessGroup(patroni, [configFile], { logFile: join(this.directory, `${name}.log`), cwd: this.directory, asUser: serverUser });
      this.members.push({ name, postgresPort, restPort, dataDirectory, configFile, agent });
    }
  }

  /** A member's Patroni configuration (Patroni reads YAML). */
  #config(name: string, postgresPort: number, restPort: number, dataDirectory: string): unknown {
    return {
      scope,
      name,
      log: { level: 'WARNING' },
      restapi: { listen: `127.0.0.1:${restPort}`, connect_address: `127.0.0.1:${restPort}` },
      etcd3: { hosts: [`127.0.0.1:${this.#etcdPort}`] },
      bootstrap: {
        dcs: {
          ...patroniTiming,
          maximum_lag_on_failover: 1_048_576,
          // A commit is acknowledged once a standby has it: a failover promotes only that standby.
          synchronous_mode: true,
          // And never acknowledged on the primary alone, even with every standby gone: a failover
          // after the last standby failed would otherwise lose what was acknowledged meanwhile.
          synchronous_mode_strict: true,
          postgresql: {
            use_pg_rewind: true,
            parameters: {
              max_connections: 200,
              wal_keep_size: '256MB',
              fsync: 'on',
              synchronous_commit: 'on',
              // A standby whose primary went away tries again after this (default 5 s); in strict
              // synchronous mode no write commits until one is back, so it bounds the write gap.
              wal_retrieve_retry_interval: '1s',
            },
          },
        },
        initdb: [{ encoding: 'UTF8' }, { locale: 'C' }],
      },
      postgresql: {
        listen: `127.0.0.1:${postgresPort}`,
        connect_address: `127.0.0.1:${postgresPort}`,
        data_dir: dataDirectory,
        bin_dir: postgresBin,
        pgpass: join(this.directory, `${name}.pgpass`),
        authentication: {
          superuser: { username: 'postgres', password: 'postgres' },
          replication: { username: 'replicator', password: 'replicator' },
          rewind: { username: 'postgres', password: 'postgres' },
        },
        parameters: { unix_socket_directories: this.directory },
        pg_hba: ['local all all trust', 'host replication replicator 127.0.0.1/32 trust', 'host all all 127.0.0.1/32 trust'],
      },
      tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
    };
  }

  member(name: string): PatroniMember {
    const found = this.members.find((m) => m.name === name);
    if (!found) throw new Error(`no Patroni member ${name}`);
    return found;
  }

  async state(): Promise<readonly PatroniMemberState[]> {
    for (const member of this.members) {
      const body = await fetchJson(`http://127.0.0.1:${member.restPort}/cluster`);
      if (body !== undefined) return (body as { members: PatroniMemberState[] }).members;
    }
    throw new Error('no Patroni REST API answers');
  }

  async waitHealthy(timeoutMs: number, members = this.members.filter((m) => !m.agent.exited).length): Promise<PatroniMember> {
    let leader: PatroniMember | undefined;
    await this.#waitFor(
      `a Patroni leader with ${members - 1} streaming standbys, one synchronous`,
      timeoutMs,
      async () => {
        const state = await this.state().catch(() => []);
        const lead = state.find((m) => m.role === 'leader' && m.state === 'running');
        const standbys = state.filter((m) => m.role !== 'leader' && (m.state === 'running' || m.state === 'streaming'));
        leader = lead && this.members.find((m) => m.name === lead.name);
        return leader !== undefined && standbys.length >= members - 1 && standbys.some((m) => m.role === 'sync_standby') && (await this.isPrimary(leader));
      },
      () => this.members.map((m) => `--- ${m.name} ---\n${m.agent.logTail(15)}`).join('\n'),
    );
    return leader!;
  }

  async isPrimary(member: PatroniMember): Promise<boolean> {
    return (await fetchStatus(`http://127.0.0.1:${member.restPort}/primary`, 'OPTIONS')) === 200;
  }

  async isWritablePrimary(member: PatroniMember): Promise<boolean> {
    return (await this.isPrimary(member)) && (await this.#query(member, 'SELECT NOT pg_is_in_recovery() AS ok'));
  }

  async acknowledgesWrites(member: PatroniMember): Promise<boolean> {
    return (
      (await this.isWritablePrimary(member)) &&
      (await this.#query(member, "SELECT EXISTS (SELECT 1 FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')) AS ok"))
    );
  }

  /** Runs `sql`, which answers one boolean `ok`, on the member's PostgreSQL directly; false when it cannot. */
  async #query(member: PatroniMember, sql: string): Promise<boolean> {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${member.postgresPort}/postgres`, connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ ok: boolean }>(sql);
      return rows[0]?.ok === true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async switchover(): Promise<string> {
    const { stdout, stderr } = await execFileAsync(this.patronictl, ['-c', this.members[0].configFile, 'switchover', '--force', scope], { timeout: 60_000 });
    return `${stdout}${stderr}`;
  }

  async postmasterPid(member: PatroniMember): Promise<number | undefined> {
    const text = await readFile(join(member.dataDirectory, 'postmaster.pid'), 'utf8').catch(() => '');
    const pid = Number(text.split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    try {
      process.kill(pid, 0);
      return pid;
    } catch {
      return undefined;
    }
  }

  async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    // Agents first, so none restarts its postgres; then each postmaster's own session; etcd last.
    await Promise.all(this.members.map((m) => m.agent.kill()));
    for (const member of this.members) {
      const pid = await this.postmasterPid(member);
      // Patroni starts the postmaster in a session of its own (setsid in a launcher that exits): kill that group.
      if (pid !== undefined) killGroup(await processGroupOf(pid));
    }
    await this.#etcd?.kill();
    for (const member of this.members) {
      for (let i = 0; i < 50 && (await this.postmasterPid(member)) !== undefined; i++) await sleep(100);
    }
    await rm(this.directory, { recursive: true, force: true });
  }

  async #waitFor(what: string, timeoutMs: number, probe: () => Promise<boolean>, logs: () => string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${logs()}`);
      await sleep(200);
    }
  }
}

/** The process group of `pid` (the fifth field of /proc/PID/stat, after the command in parentheses). */
async function processGroupOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  return Number.isInteger(group) && group > 1 ? group : pid;
}

async function chownToServerUser(path: string): Promise<void> {
  const { stdout } = await execFileAsync('id', ['-u', serverUser]);
  const { stdout: gid } = await execFileAsync('id', ['-g', serverUser]);
  await chown(path, Number(stdout.trim()), Number(gid.trim()));
}

/** The HTTP status of a request, or 0 when nothing answers within a second. */
async function fetchStatus(url: string, method = 'GET'): Promise<number> {
  try {
    const response = await fetch(url, { method, signal: AbortSignal.timeout(1000) });
    await response.body?.cancel();
    return response.status;
  } catch {
    return 0;
  }
}

async function fetchJson(url: string): Promise<unknown> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    return response.ok ? await response.json() : undefined;
  } catch {
    return undefined;
  }
}
