/** Vitest global setup: the console is built once (when stale) before any test serves it. */
import { buildConsole } from '../../scripts/build-console.js';

export default async function setup(): Promise<void> {
  await buildConsole();
}
