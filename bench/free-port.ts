/** A free TCP port on loopback, for the servers the bench starts. */
import { createServer } from 'node:net';

/** Finds a free port by binding port 0 on 127.0.0.1 and releasing it. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not probe a free port'))));
    });
  });
}
