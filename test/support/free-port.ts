import { createServer } from 'node:net';

/**
 * A free local port, for a service that must listen on the port its PUBLIC_URL names (EIP-4361
 * messages name that host, and a browser page on it must be the service's own origin).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
