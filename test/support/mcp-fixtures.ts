/**
 * Shared set-up of the MCP tests: an operator with agents, bots and keys of each scope on a
 * real service, and a raw JSON-RPC POST for cases the SDK client would refuse to send.
 */
import { Client, signInSolana, solanaWallet, type TestService } from './test-service.js';
import { codeAt } from './totp-codes.js';
import { ManualClock } from './manual-clock.adapter.js';

export interface RawAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: any;
  text: string;
}

/** POSTs `body` as it is (a string is sent verbatim) to `/mcp/<publicId>`. */
export async function rawRpc(base: string, publicId: string, body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const response = await fetch(`${base}/mcp/${publicId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

/**
 * A set-up call the service refused: its status, body and `Retry-After`, so a test decides by
 * status (a 429 is waited out, anything else fails) instead of reading the message text.
 */
export class FixtureHttpError extends Error {
  constructor(
    what: string,
    readonly status: number,
    readonly body: unknown,
    /** Seconds the service asked to wait (`Retry-After`), when it said. */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(`${what} failed: ${status} ${JSON.stringify(body)}`);
    this.name = 'FixtureHttpError';
  }
}

function refused(what: string, answer: { status: number; body: unknown; headers: Headers }): FixtureHttpError {
  const retryAfter = Number(answer.headers.get('retry-after') ?? Number.NaN);
  return new FixtureHttpError(what, answer.status, answer.body, Number.isFinite(retryAfter) ? retryAfter : undefined);
}

/** A signed-in operator that creates agents, bots and keys. */
export class Operator {
  readonly client: Client;
  /** The signed-in user's id (the `:userId` of trading routes). */
  userId = '';
  /** The wallet it signed in with: signing in again (e.g. after a clock jump) is the same user. */
  wallet = solanaWallet();
  /** The TOTP secret and a clock stopped at its activation. */
  private totp: { secret: string; clock: ManualClock } | undefined;
  private nextStep = 1;

  private constructor(base: string) {
    this.client = new Client(base);
  }

  static async signIn(svc: Pick<TestService, 'url'>): Promise<Operator> {
    const operator = new Operator(svc.url);
    const login = await signInSolana(operator.client, operator.wallet);
    operator.userId = login.user.id;
    return operator;
  }

  async agent(name = 'mcp-agent'): Promise<{ agentId: string; publicId: string }> {
    const answer = await this.client.post('/api/nest/agents', { name });
    if (answer.status !== 201) throw refused('agent creation', answer);
    return answer.body;
  }

  /** A key of `scope`; manage keys get their step-up token through TOTP (enrolled once). Refused: `FixtureHttpError`. */
  async agentKey(agentId: string, scope: 'read' | 'trade' | 'manage', name = `${scope}-key`): Promise<{ keyId: string; secret: string }> {
    const stepUpToken = scope === 'manage' ? await this.stepUp(`/api/nest/agents/${agentId}/control/mcp/step-up`) : undefined;
    const answer = await this.client.post(`/api/nest/agents/${agentId}/keys`, {
      name,
      scope,
      ...(stepUpToken ? { stepUpToken } : {}),
    });
    if (answer.status !== 201) throw refused('key creation', answer);
    return answer.body;
  }

  async revokeAgentKey(agentId: string, keyId: string): Promise<void> {
    const { status } = await this.client.delete(`/api/nest/agents/${agentId}/keys/${keyId}`);
    if (status !== 200) throw new Error(`revoke failed: ${status}`);
  }

  /** A legacy bot with MCP config `mcp` and a key of `scope`. */
  async botWithKey(mcp: { granularErrors?: boolean } = {}, scope: 'read' | 'trade' = 'read') {
    const bot = await this.client.post('/api/nest/bots', { name: 'legacy-bot' });
    if (bot.status !== 201) throw new Error(`bot creation failed: ${bot.status}`);
    if (Object.keys(mcp).length) {
      const configured = await this.client.put(`/api/nest/bots/${bot.body.id}/mcp`, mcp);
      if (configured.status !== 200) throw new Error(`bot mcp config failed: ${configured.status} ${JSON.stringify(configured.body)}`);
    }
    const key = await this.client.post(`/api/nest/bots/${bot.body.id}/mcp/keys`, { name: 'bot-key', scope });
    if (key.status !== 201) throw new Error(`bot key creation failed: ${key.status}`);
    return { botId: bot.body.id as string, publicId: bot.body.publicId as string, secret: key.body.secret as string };
  }

  /**
   * TOTP codes of successive steps, counted from the activation's step (not from now: a 30 s
   * boundary crossed between the two calls would put "now + 1" two steps past the activation,
   * outside the ±1 window): each is valid (±1 step) and used once.
   */
  private async stepUp(path: string): Promise<string> {
    if (!this.totp) {
      const enrolled = await this.client.post('/api/nest/auth/totp/enroll');
      this.totp = { secret: enrolled.body.secret as string, clock: new ManualClock(Date.now()) };
      const activated = await this.client.post('/api/nest/auth/totp/activate', {
        code: await codeAt(this.totp.secret, this.totp.clock, 0),
      });
      if (activated.status !== 200) throw refused('TOTP activation', activated);
    }
    if (this.nextStep > 1) throw new Error('only one step-up per operator in these tests (TOTP accepts one step ahead)');
    const { status, body } = await this.client.post(path, { code: await codeAt(this.totp.secret, this.totp.clock, this.nextStep++) });
    if (status !== 200) throw new Error(`step-up failed: ${status} ${JSON.stringify(body)}`);
    return body.stepUpToken as string;
  }
}
