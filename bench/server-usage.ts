/**
 * What a server under test costs the machine, read from /proc: its CPU time and memory,
 * alone and with the database that stores its objects (Cairn and PostgreSQL's processes;
 * kube-apiserver and etcd), so that Cairn's figures and kube-apiserver's compare alike.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cpuSeconds, processTreeCpuSeconds } from './process-cpu.js';
import { processTreeProportionalBytes, residentBytes } from './process-memory.js';
import type { PostgresCluster } from './postgres-cluster.js';

/** A figure of the server's process alone, and of it with its database's processes. */
export interface ServerAndStore {
  readonly server: number;
  readonly serverAndStore: number;
}

/** Reads a server's CPU time and memory. */
export interface ServerUsage {
  /** CPU seconds used so far. */
  cpuSeconds(): ServerAndStore;
  /** The server's RSS, alone and with its database's memory. */
  memoryBytes(): ServerAndStore;
}

/** A database's processes: one (etcd), or a parent and its children that share memory (PostgreSQL's postmaster and backends). */
export interface StoreProcesses {
  readonly pid: number;
  readonly tree: boolean;
}

/**
 * The usage of process `server` and, when given, of `store`. A single process's memory is
 * its RSS; a tree's is the sum of its processes' proportional set sizes, so that
 * PostgreSQL's shared buffers, mapped by every backend, count once. (A single process's
 * PSS would depend on what else runs: the pages of its binary that other processes map
 * too, such as another Node's, would count only in part.)
 */
export function processUsage(server: number, store?: StoreProcesses): ServerUsage {
  const storeCpu = (): number => (store === undefined ? 0 : store.tree ? processTreeCpuSeconds(store.pid) : cpuSeconds(store.pid));
  const storeMemory = (): number => (store === undefined ? 0 : store.tree ? processTreeProportionalBytes(store.pid) : residentBytes(store.pid));
  return {
    cpuSeconds: () => {
      const own = cpuSeconds(server);
      return { server: own, serverAndStore: own + storeCpu() };
    },
    memoryBytes: () => {
      const own = residentBytes(server);
      return { server: own, serverAndStore: own + storeMemory() };
    },
  };
}

/** `cluster`'s processes: its postmaster, the parent of every backend and background process. */
export async function postgresProcesses(cluster: PostgresCluster): Promise<StoreProcesses> {
  const pid = Number((await readFile(join(cluster.dataDirectory, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`${cluster.dataDirectory}/postmaster.pid: no pid`);
  return { pid, tree: true };
}

/** CPU ms per request from two readings around a load that served `requests`. */
export function cpuMsPerRequest(before: ServerAndStore, after: ServerAndStore, requests: number): ServerAndStore {
  if (requests <= 0) throw new Error('no request succeeded: no CPU per request');
  return { server: ((after.server - before.server) * 1000) / requests, serverAndStore: ((after.serverAndStore - before.serverAndStore) * 1000) / requests };
}
