/** A free TCP port on loopback, for the servers tests start: the bench's probe (the bench may not import tests). */
export { freeLoopbackPort } from '../../bench/free-port.js';
