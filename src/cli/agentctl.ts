import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isatty } from 'node:tty';
import { z } from 'zod';
import { runBackup, runRestore } from './backup.command.js';
import { askHidden } from './tty-prompt.js';

/**
 * `agentctl`: ops inspection from a terminal, over the service's ops routes (so it
 * works the same on both profiles and never opens the database behind the service). The
 * exceptions are `backup` and `restore` of the embedded profile's data directory, which read
 * and write it directly (backup.command.ts says why).
 */
const USAGE = `Usage: agentctl <command> [options]

Commands:
  types                                 machine types the service hosts
  list <type> [--state S] [--limit N] [--cursor C]
                                        actors of a type, optionally in one state
  get <type> <id>                       machine state, actor status, version, updatedAt, context
                                        (secret material is censored, as in the logs)
  journal <type> <id> [--after N] [--limit N]
                                        the actor's journal, oldest first
  keys list                             signing keys of identity tokens (active, retired)
  keys rotate                           a new active signing key; the old one is retired and
                                        stays published until every token it signed expired
  audit verify [agentId] [--subject S]  walk the audit hash chains (every one, an agent's by its
                                        actor id, or a subject: agent:<id>, bot:<id>, none) and
                                        check their signed heads; names the first entry of each
                                        chain that does not match (exit 1 when one does not)
  backup <file> [--data-dir D]          embedded profile: a consistent copy of the store (LMDB's
                                        compacting copy, safe while the service runs) and of
                                        secrets.json, sealed with a passphrase, in one archive
  restore <file> --data-dir D [--force] a new data directory from a backup (checks the archive's
                                        checksums and passphrase first; a non-empty D only with
                                        --force, and never one a running service has open)

Options:
  --url URL     service address; default, as the service itself reads them: $AGENTCTL_URL,
                else $PUBLIC_URL, else http://$HOST:$PORT (127.0.0.1 when HOST is a wildcard;
                HOST 127.0.0.1 and PORT 3000 when unset)
  --token T     ops token (default $OPS_TOKEN, else DATA_DIR/secrets.json)
  --json        print raw JSON
  --data-dir D  backup: the data directory (default $DATA_DIR, else ./data)
  --passphrase-file F
                backup, restore: the passphrase sealing the secrets (default $BACKUP_PASSPHRASE,
                else the file $BACKUP_PASSPHRASE_FILE names, else asked on the terminal)
`;

type Env = Record<string, string | undefined>;
type Output = { out: (text: string) => void; err: (text: string) => void; ask?: (question: string) => Promise<string> };

const optionsSchema = z.object({
  url: z.string().url(),
  token: z.string().min(1, 'no ops token: pass --token, set OPS_TOKEN, or run where DATA_DIR/secrets.json is'),
  json: z.boolean(),
  state: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.string().optional(),
  after: z.coerce.number().int().min(0).optional(),
  subject: z.string().optional(),
});

/** Runs one command; returns the process exit code. */
export async function runCli(argv: string[], env: Env, io: Output = defaultOutput): Promise<number> {
  const { positional, flags } = parseArgs(argv);
  const [command, type, id] = positional;
  if (!command || flags.help) {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  if (command === 'backup') return runBackup(type, flags, env, io);
  if (command === 'restore') return runRestore(type, flags, env, io);
  const parsed = optionsSchema.safeParse({
    url: flags.url ?? serviceUrl(env),
    token: flags.token ?? env.OPS_TOKEN ?? tokenFromDataDir(env.DATA_DIR ?? './data') ?? '',
    json: flags.json === true,
    state: flags.state,
    limit: flags.limit,
    cursor: flags.cursor,
    after: flags.after,
    subject: flags.subject,
  });
  if (!parsed.success) {
    io.err(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n'));
    return 2;
  }
  const options = parsed.data;
  const root = `${options.url.replace(/\/$/, '')}/api/nest/ops`;
  const base = `${root}/actors`;
  let path: string;
  let method = 'GET';
  if (command === 'keys' && (type === 'list' || type === 'rotate')) {
    path = type === 'rotate' ? '/rotate' : '';
    method = type === 'rotate' ? 'POST' : 'GET';
  } else if (command === 'audit' && type === 'verify') {
    path = query({ agentId: id, subject: options.subject });
  } else if (command === 'types') path = '';
  else if (command === 'list' && type)
    path = `/${enc(type)}${query({ state: options.state, limit: options.limit, cursor: options.cursor })}`;
  else if (command === 'get' && type && id) path = `/${enc(type)}/${enc(id)}`;
  else if (command === 'journal' && type && id)
    path = `/${enc(type)}/${enc(id)}/journal${query({ afterSeq: options.after, limit: options.limit })}`;
  else {
    io.err(USAGE);
    return 2;
  }
  let response: Response;
  try {
    const target =
      command === 'keys' ? `${root}/identity/signing-keys${path}` : command === 'audit' ? `${root}/audit/verify${path}` : `${base}${path}`;
    response = await fetch(target, {
      method,
      headers: { authorization: `Bearer ${options.token}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
  } catch (error) {
    io.err(`cannot reach ${options.url}: ${(error as Error).message}`);
    return 1;
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const message = (body as { message?: unknown } | null)?.message;
    io.err(`${response.status}: ${typeof message === 'string' ? message : JSON.stringify(body)}`);
    return 1;
  }
  io.out(options.json ? JSON.stringify(body, null, 2) : render(command, body));
  // A chain that does not verify fails the command, so scripts and cron jobs notice.
  return command === 'audit' && (body as { ok?: unknown } | null)?.ok !== true ? 1 : 0;
}

/**
 * Where the service answers, read from the variables the service itself reads: its
 * `PUBLIC_URL`, else `http://HOST:PORT` (the service's own default for `PUBLIC_URL`). A
 * wildcard HOST listens on every interface, so it is reached on loopback.
 */
export function serviceUrl(env: Env): string {
  if (env.AGENTCTL_URL) return env.AGENTCTL_URL;
  if (env.PUBLIC_URL) return env.PUBLIC_URL;
  const host = env.HOST?.trim() || '127.0.0.1';
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${env.PORT?.trim() || '3000'}`;
}

/**
 * One actor, every field labelled: `state` is the machine's state value (what the entity is
 * doing: an agent `paused`), `status` XState's run status of the actor (`active` until it
 * reaches a final state, then `done`; `error`, `stopped`), which printed side by side as
 * `"state":"paused","status":"active"` read as a contradiction.
 */
function renderActor(view: Record<string, unknown>): string {
  return [
    `${String(view.type)}/${String(view.id)}`,
    `machine state:  ${JSON.stringify(view.state)}`,
    `actor status:   ${String(view.status)}  (XState run status: active until a final state, then done; error; stopped)`,
    `version:        ${String(view.version)}  (machine definition v${String(view.machineVersion)})`,
    `updated:        ${String(view.updatedAt)}`,
    `context:        ${JSON.stringify(view.context, null, 2).replace(/\n/g, '\n  ')}`,
  ].join('\n');
}

function render(command: string, body: unknown): string {
  const data = body as { items?: Array<Record<string, unknown>>; nextCursor?: string; nextAfterSeq?: number; types?: string[] };
  if (command === 'types') return (data.types ?? []).join('\n');
  if (command === 'list') {
    const rows = (data.items ?? []).map((a) => [a.id, JSON.stringify(a.state), a.version, a.updatedAt].join('\t'));
    return ['ID\tSTATE\tVERSION\tUPDATED', ...rows, ...(data.nextCursor ? [`(more: --cursor ${data.nextCursor})`] : [])].join('\n');
  }
  if (command === 'journal') {
    const rows = (data.items ?? []).map((e) =>
      [e.seq, new Date(Number(e.at)).toISOString(), JSON.stringify(e.state), JSON.stringify(e.event)].join('\t'),
    );
    return ['SEQ\tAT\tSTATE\tEVENT', ...rows, ...(data.nextAfterSeq ? [`(more: --after ${data.nextAfterSeq})`] : [])].join('\n');
  }
  if (command === 'get') return renderActor(body as Record<string, unknown>);
  if (command === 'keys') {
    const keys = (body as { keys?: Array<Record<string, unknown>> }).keys ?? [];
    const rows = keys.map((k) => [k.kid, k.status, k.createdAt, k.retiredAt ?? '-', k.removeAfter ?? '-'].join('\t'));
    return ['KID\tSTATUS\tCREATED\tRETIRED\tLEAVES JWKS', ...rows].join('\n');
  }
  if (command === 'audit') return renderVerdict(body);
  return JSON.stringify(body, null, 2);
}

/** One line per chain that does not verify, naming its first break, then the totals. */
function renderVerdict(body: unknown): string {
  type Report = {
    subject: string;
    entries: number;
    checkpoint?: { seq: number; at: string; kid?: string; knownKey?: boolean };
    break?: {
      seq: number;
      reason: string;
      message: string;
      entry?: { at: string; operation: string; requestId: string; segmentId: string };
    };
  };
  const verdict = body as { ok: boolean; chains: number; entries: number; failures: Report[]; chain?: Report };
  const lines = verdict.failures.map((report) => {
    const at = report.break?.entry;
    const where = at ? ` [${at.at} ${at.operation} request ${at.requestId}, stored in ${at.segmentId}]` : '';
    return `BROKEN ${report.subject}: ${report.break?.message ?? 'does not verify'} (${report.break?.reason})${where}`;
  });
  const signed = verdict.chain?.checkpoint;
  if (signed)
    lines.push(
      `signed head: entry ${signed.seq} at ${signed.at}${signed.kid ? ` by key ${signed.kid}${signed.knownKey ? '' : ' (no longer in the key ring)'}` : ''}`,
    );
  lines.push(
    `${verdict.ok ? 'OK' : 'FAILED'}: ${verdict.chains} chain(s), ${verdict.entries} entries checked, ${verdict.failures.length} broken`,
  );
  return lines.join('\n');
}

function parseArgs(argv: string[]) {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const name = arg.slice(2);
    const next = argv[i + 1];
    if (name === 'json' || name === 'help' || name === 'force' || next === undefined || next.startsWith('--')) flags[name] = true;
    else flags[name] = argv[++i]!;
  }
  return {
    positional,
    flags: flags as Record<string, string | undefined> & { json?: string | true; help?: string | true; force?: string | true },
  };
}

function tokenFromDataDir(dataDir: string): string | undefined {
  const file = join(dataDir, 'secrets.json');
  if (!existsSync(file)) return undefined;
  try {
    const token = (JSON.parse(readFileSync(file, 'utf8')) as { OPS_TOKEN?: unknown }).OPS_TOKEN;
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}

function query(params: Record<string, string | number | undefined>): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined) as Array<[string, string | number]>;
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}` : '';
}

function enc(value: string): string {
  return encodeURIComponent(value);
}

const defaultOutput: Output = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  // Only a terminal can be asked for a passphrase; elsewhere it comes from the environment or a file.
  ...(isatty(0) ? { ask: askHidden } : {}),
};
