import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The widget tests launch the same browser as the console's. */
export { launchChromium } from './browser.js';

/**
 * A site that embeds the widget, served on its own port: `http://127.0.0.1:<port>` and
 * `http://localhost:<port>` are two origins of one server. Its CSS is hostile on purpose (the
 * widget's shadow root must keep it out).
 */
export async function startHostSite(scriptUrl: () => string): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shop</title><style>
body{margin:0;font:18px Georgia,serif;background:#f3efe6;color:#222}
main{max-width:720px;margin:40px auto;padding:0 20px}
button{background:red!important;border:4px dashed lime!important;font-size:30px!important}
div{padding:9px;color:purple}
</style></head><body><main><h1>A shop</h1><p>Everything a host page might have, with CSS that would break a widget living in the page.</p>
<button type="button">Buy now</button></main>
<script src="${scriptUrl()}" data-title="Shop assistant" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
