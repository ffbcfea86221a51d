/**
 * `npm run controller -- --kubeconfig PATH`: runs the sample controller as its own
 * process against any Cairn server the kubeconfig reaches (`npm start` also runs one
 * in-process unless `--no-controller`). Stops gracefully on SIGINT and SIGTERM.
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createCairnClient } from '../client/cairn-client.js';
import { loadKubeconfig } from '../machinery/kubeclient/kubeconfig.js';
import { startController } from './controller.js';

const usage = `usage: npm run controller -- --kubeconfig PATH [--context NAME] [--tick SECONDS] [--log-level LEVEL]
environment: KUBECONFIG, LOG_LEVEL`;

/** The command line, or the usage as an error. */
function parse(): { kubeconfig: string; context?: string; tickMs: number; logLevel: string } {
  const { values } = parseArgs({
    options: {
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      tick: { type: 'string', default: '0.5' },
      'log-level': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const kubeconfig = values.kubeconfig ?? process.env.KUBECONFIG;
  const tick = Number(values.tick);
  if (values.help || !kubeconfig || !(tick > 0)) throw new Error(usage);
  return { kubeconfig, context: values.context, tickMs: tick * 1000, logLevel: values['log-level'] ?? process.env.LOG_LEVEL ?? 'info' };
}

async function main(): Promise<void> {
  let options;
  let access;
  try {
    options = parse();
    access = await loadKubeconfig(options.kubeconfig, options.context);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  const logger = pino({ level: options.logLevel });
  const client = createCairnClient(access);
  const controller = startController(client, { tickMs: options.tickMs, logger });
  logger.info({ server: access.server }, 'controller started');
  const stop = (signal: string): void => {
    logger.info({ signal }, 'controller stopping');
    void controller.stop().then(() => client.close());
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

await main();
