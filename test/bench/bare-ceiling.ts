import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The ceiling the benches compare with: bare node:http that parses a JSON-RPC body and answers
 * a tool result, nothing else. Whatever a request costs on this machine (the socket, the
 * parser, the wake-up of a sleeping process) it costs here too, so our figure over its
 * figure in the same run is what our code adds.
 */
export const bareCeiling: RequestListener = (req, res) => {
  readJson(req).then(
    (message) => {
      const json = JSON.stringify({
        jsonrpc: '2.0',
        id: (message as { id?: unknown }).id ?? null,
        result: { content: [{ type: 'text', text: '{}' }], isError: false },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) }).end(json);
    },
    () => res.writeHead(400).end(),
  );
};

/** A server for `listener` on a free loopback port. */
export async function listen(listener: RequestListener): Promise<{ server: Server; base: string }> {
  const server = createServer(listener).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}
