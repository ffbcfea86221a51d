/**
 * The database tools production runs beside PostgreSQL (PgBouncer, Patroni, HAProxy,
 * etcd) are Debian packages the test machine may not have yet: tests that start one
 * install it when it is missing, as root, and otherwise fail with what to install.
 */
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** apt can take minutes on a cold cache; a test's own timeout should be the longer. */
const aptTimeoutMs = 10 * 60_000;

/** Where Debian's packages put programs that are not on a user's PATH (pgbouncer is in /usr/sbin). */
const systemDirectories = ['/usr/sbin', '/usr/bin', '/sbin', '/bin', '/usr/local/sbin', '/usr/local/bin'];

/** Concurrent callers in one process share one install per package. */
const installs = new Map<string, Promise<string>>();

/**
 * The absolute path of `binary`, installing the Debian package `pkg` first when no such
 * program is found. Installing needs root (`apt-get install -y` with
 * DEBIAN_FRONTEND=noninteractive); as another user it throws saying what to install.
 *
 * @example
 * const pgbouncer = await ensureDebianPackage('pgbouncer', 'pgbouncer');
 */
export function ensureDebianPackage(pkg: string, binary: string): Promise<string> {
  const key = `${pkg}\0${binary}`;
  let install = installs.get(key);
  if (install === undefined) {
    install = findOrInstall(pkg, binary);
    installs.set(key, install);
    // A failure is not cached: a later caller may run after the package was installed by hand.
    install.catch(() => installs.delete(key));
  }
  return install;
}

async function findOrInstall(pkg: string, binary: string): Promise<string> {
  const found = await findProgram(binary);
  if (found !== undefined) return found;
  if (process.getuid?.() !== 0) {
    throw new Error(`${binary} is not installed and this process is not root: install it with \`sudo apt-get install -y ${pkg}\``);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await apt(['install', '-y', '--no-install-recommends', pkg], env);
  } catch {
    // A fresh machine's package lists may be missing or stale: refresh them once and retry.
    await apt(['update'], env);
    await apt(['install', '-y', '--no-install-recommends', pkg], env);
  }
  const installed = await findProgram(binary);
  if (installed === undefined) throw new Error(`apt-get installed ${pkg} but no program ${binary} was found on PATH or in ${systemDirectories.join(', ')}`);
  return installed;
}

async function apt(args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  try {
    await execFileAsync('apt-get', [...args], { env, timeout: aptTimeoutMs, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new Error(`apt-get ${args.join(' ')} failed: ${(failure.stderr ?? '').trim() || failure.message}`, { cause: error });
  }
}

/** The first executable `binary` on PATH or in the system directories. */
async function findProgram(binary: string): Promise<string | undefined> {
  const directories = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...systemDirectories];
  for (const directory of directories) {
    const candidate = join(directory, binary);
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}
