/**
 * The per-address connection cap (config `HTTP_MAX_CONNECTIONS_PER_IP`): one client cannot
 * take every connection of the global cap and leave none for others (health checks
 * included). Counted per TCP peer, event streams included: an upgraded or streaming socket
 * stays counted until it closes.
 */
import { isIPv6 } from 'node:net';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The address a connection is counted under: an IPv4 address (IPv4-mapped IPv6 included) as
 * it is; an IPv6 address by its /64, the block one subscriber gets, or one client could pick a
 * new address per connection.
 */
export function clientBlockOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * Closes, at once and without a byte (as the global cap does), a connection whose address
 * already holds `max`. A peer `exempt` says is a trusted proxy (config `TRUST_PROXY`) is not
 * counted: it carries many clients, and it caps each of them itself (deploy/nginx.conf).
 */
export function capConnectionsPerAddress(server: Server, max: number, exempt: (address: string) => boolean): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || exempt(address)) return;
    const block = clientBlockOf(address);
    const held = open.get(block) ?? 0;
    if (held >= max) return void socket.destroy();
    open.set(block, held + 1);
    socket.once('close', () => {
      const left = (open.get(block) ?? 1) - 1;
      if (left > 0) open.set(block, left);
      else open.delete(block);
    });
  });
}
