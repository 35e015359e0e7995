/**
 * The SDK's console configuration and a bot's widget against the real service: the embedded
 * profile offers the test wallet, the production profile does not (its route alone, since a
 * production service needs MongoDB and Redis); a bot's widget origins set and read, the embed
 * script's address answered with the script, and the client events a widget session reported.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleRoutes } from '../../src/http/console.routes.js';
import { isSdkError, naclSigner, OperatorClient } from '../../sdk/src/index.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

let svc: TestService;
let operator: OperatorClient;
beforeAll(async () => {
  svc = await startTestService();
  operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
  await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
});
afterAll(() => svc.stop());

describe('console configuration', () => {
  it('offers the test wallet on the embedded profile, without a session', async () => {
    const stranger = new OperatorClient({ baseUrl: svc.url });
    expect(await stranger.consoleConfig()).toEqual({ profile: 'embedded', testWallet: true });
  });

  it('does not on the production profile; a query is refused', async () => {
    const app = express().use(createConsoleRoutes({ dir: mkdtempSync(join(tmpdir(), 'no-console-')), profile: 'production' }));
    const answer = await request(app).get('/api/nest/console/config');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ profile: 'production', testWallet: false });
    const query = await fetch(`${svc.url}/api/nest/console/config?x=1`);
    expect(query.status).toBe(400);
  });
});

describe("a bot's widget through the SDK", () => {
  it('sets and reads the allowed origins, and reads the events a widget session reported', async () => {
    const bot = await operator.bots.create({ name: 'widget bot' });
    expect(await operator.bots.widgetConfig(bot.id)).toEqual({ allowedOrigins: [], enabled: true });
    const set = await operator.bots.setWidgetConfig(bot.id, { allowedOrigins: ['HTTPS://Shop.example.com:443/'] });
    expect(set).toMatchObject({ allowedOrigins: ['https://shop.example.com'], enabled: true });
    expect((await operator.bots.widgetConfig(bot.id)).allowedOrigins).toEqual(['https://shop.example.com']);

    const script = await fetch(operator.bots.widgetScriptUrl(bot.id));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);

    const origin = { origin: 'https://shop.example.com', 'content-type': 'application/json' };
    const init = await fetch(`${svc.url}/api/widget/${bot.id}/init`, { method: 'POST', headers: origin, body: '{}' });
    const { sessionToken } = (await init.json()) as { sessionToken: string };
    const event = await fetch(`${svc.url}/api/widget/${bot.id}/client-event`, {
      method: 'POST',
      headers: { ...origin, authorization: `Bearer ${sessionToken}` },
      body: JSON.stringify({ type: 'error', detail: 'could not load' }),
    });
    expect(event.status).toBe(202);
    const { events } = await operator.bots.widgetEvents(bot.id, { limit: 10 });
    expect(events).toEqual([expect.objectContaining({ type: 'error', detail: 'could not load', origin: 'https://shop.example.com' })]);

    const refused = await operator.bots
      .setWidgetConfig(bot.id, { allowedOrigins: ['https://shop.example.com/path'] })
      .catch((e: unknown) => e);
    expect(isSdkError(refused) && refused.status).toBe(400);
  });
});
