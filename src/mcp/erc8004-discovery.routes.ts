/**
 * The ERC-8004 discovery documents (the discovery routes and versioning): what the service is and where to
 * onboard (`erc8004-discovery.json`), the onboarding parameters (`erc8004-onboarding.json`,
 * version `erc8004-onboarding-v2`) and the same for people (`erc8004-onboarding.md`, rendered
 * from the same object), and the skills manifest, built from the operations catalog when asked
 * (no fixed tool count). Public, rate limited per address, cacheable.
 */
import { Router, type RequestHandler } from 'express';
import { AGENT_ALREADY_CLAIMED } from '../identity/onboarding/onboarding.service.js';
import { IDENTITY_TOKEN_MESSAGES } from '../identity/tokens/identity-token.errors.js';
import { TOKEN_LIFETIME_S } from '../identity/tokens/token-lifetimes.js';
import type { OperationCatalog } from '../operations/operation-catalog.js';
import { EVM_CHAIN_IDS } from '../../kernel/ports/venue.port.js';
import { ToolDirectory } from './mcp-tools.js';

export interface Erc8004DiscoveryDeps {
  publicUrl: string;
  publicLimit: RequestHandler;
  catalog: OperationCatalog;
  /** Configured identity provider names. */
  providers: string[];
  /** Chains with a registry RPC (`ERC8004_RPC_URLS`) and the allowed registries (`ERC8004_REGISTRIES`, empty: any). */
  registryChainIds: number[];
  registries: string[];
}

const ONBOARDING_VERSION = 'erc8004-onboarding-v2';

/** The onboarding document; `erc8004-onboarding.md` is rendered from it. */
function onboardingDocument(deps: Pick<Erc8004DiscoveryDeps, 'publicUrl' | 'providers' | 'registryChainIds' | 'registries'>) {
  const base = deps.publicUrl.replace(/\/+$/, '');
  return {
    version: ONBOARDING_VERSION,
    steps: [
      {
        step: 'nonce',
        method: 'POST',
        url: `${base}/api/nest/auth/evm/nonce`,
        body: '{walletAddress?}',
        answer: '{nonce, expiresAt} (single use, 5 minutes)',
      },
      {
        step: 'sign',
        description: `Build an EIP-4361 message (domain ${new URL(base).host}, URI on ${base}, the nonce, Issued At now, statement "Onboard an agent at ${new URL(base).host}": a message made for onboarding, which no sign-in or claim takes) and sign it with the owner wallet. For an ERC-8004 identity use the SIWA form: add "Agent ID: <tokenId>" and "Agent Registry: eip155:<chainId>:<registry>" after "Version".`,
      },
      {
        step: 'onboard-wallet',
        method: 'POST',
        url: `${base}/api/public/erc8004/onboarding/siwe`,
        body: '{message, signature, scope, registration?}',
      },
      {
        step: 'onboard-provider',
        method: 'POST',
        url: `${base}/api/public/erc8004/onboarding/identity`,
        body: '{provider, providerToken, scope, agentId?, registration?}',
      },
      {
        step: 'use',
        description: `Send "Authorization: Bearer <accessToken>" to ${base}/mcp/{publicId}; renew before expiresIn runs out.`,
      },
      {
        step: 'first-trade',
        description:
          'A new agent starts with trading off: its first trade answers "Trading bu bot icin kapali." (the soft refusal; `hint` over MCP, ' +
          '`details.hint` over REST, says what to do). Its owner signs in to the service with the owner wallet, claims the agent ' +
          `(POST ${base}/api/nest/agents/{agentId}/control/claim, a sign-in message whose statement is "Claim agent {agentId}") and switches ` +
          `trading on (PUT ${base}/api/nest/agents/{agentId}/trading {"enabled":true}). Then a wallet: the MCP tool ` +
          "trading_wallet_custodial_ensure, funded by a deposit or, on the paper venue, by the owner's paper faucet.",
      },
      { step: 'revoke', method: 'POST', url: `${base}/api/public/erc8004/onboarding/tokens/revoke`, body: '{token}' },
    ],
    scopes: { read: { lifetimeSeconds: TOKEN_LIFETIME_S.read }, trade: { lifetimeSeconds: TOKEN_LIFETIME_S.trade } },
    manageAtOnboarding: false,
    providers: deps.providers,
    registries: { chainIds: deps.registryChainIds, allowed: deps.registries.length ? deps.registries : 'any registry on these chains' },
    jwks_uri: `${base}/.well-known/jwks.json`,
    errors: [
      { status: 401, message: 'Invalid or expired nonce' },
      { status: 401, message: 'Nonce already consumed' },
      { status: 401, message: 'Wallet address does not match signed message' },
      { status: 401, message: IDENTITY_TOKEN_MESSAGES.unknownProvider('<provider>') },
      { status: 403, message: IDENTITY_TOKEN_MESSAGES.scopeNotAvailable },
      { status: 401, message: IDENTITY_TOKEN_MESSAGES.invalid, code: 'TOKEN_VALIDATION_FAILED' },
      { status: 401, message: IDENTITY_TOKEN_MESSAGES.revoked },
      { status: 400, message: IDENTITY_TOKEN_MESSAGES.alreadyRevoked },
      // An operator claimed the agent (control/claim): only the claimant's wallet onboards into it.
      { status: 409, message: AGENT_ALREADY_CLAIMED },
    ],
  };
}

/** The onboarding document for people, from the same object. */
function onboardingMarkdown(document: ReturnType<typeof onboardingDocument>): string {
  const lines = [`# ERC-8004 onboarding (${document.version})`, '', '## Steps', ''];
  document.steps.forEach((step, i) => {
    const call = 'url' in step ? `\`${step.method} ${step.url}\` ${step.body ? `with \`${step.body}\`` : ''}` : '';
    lines.push(
      `${i + 1}. **${step.step}**: ${[call, 'description' in step ? step.description : '', 'answer' in step ? `→ ${step.answer}` : ''].filter(Boolean).join(' ')}`,
    );
  });
  lines.push(
    '',
    '## Scopes',
    '',
    ...Object.entries(document.scopes).map(([scope, { lifetimeSeconds }]) => `- \`${scope}\`: tokens live ${lifetimeSeconds} s`),
    '- `manage` is never issued at onboarding.',
  );
  lines.push(
    '',
    '## Identity providers',
    '',
    ...(document.providers.length ? document.providers.map((name) => `- \`${name}\``) : ['- none configured']),
  );
  lines.push('', '## Errors', '', '| Status | Message |', '|---|---|', ...document.errors.map((e) => `| ${e.status} | \`${e.message}\` |`));
  lines.push('', `Public keys: ${document.jwks_uri}`, '');
  return lines.join('\n');
}

export function createErc8004DiscoveryRoutes(deps: Erc8004DiscoveryDeps): Router {
  const router = Router();
  const base = deps.publicUrl.replace(/\/+$/, '');
  const onboarding = onboardingDocument(deps);
  const markdown = onboardingMarkdown(onboarding);
  const tools = new ToolDirectory(deps.catalog);
  const cached = (res: Parameters<RequestHandler>[1]) =>
    res.set({ 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' });
  const discovery = JSON.stringify({
    service: 'agent-runtime-service',
    description: 'Always-on Web3 trading agents; external agents onboard with ERC-8004 and call MCP tools with identity access tokens.',
    supportedRegistries: { namespace: 'eip155', chainIds: deps.registryChainIds, registries: deps.registries },
    chains: { evm: Object.values(EVM_CHAIN_IDS) },
    onboarding: {
      siwe: `${base}/api/public/erc8004/onboarding/siwe`,
      identity: `${base}/api/public/erc8004/onboarding/identity`,
      nonce: `${base}/api/nest/auth/evm/nonce`,
      metadata: `${base}/.well-known/erc8004-onboarding.json`,
    },
    tokens: {
      revoke: `${base}/api/public/erc8004/onboarding/tokens/revoke`,
      revokeStatus: `${base}/api/public/erc8004/onboarding/tokens/revoke-status`,
    },
    jwks_uri: `${base}/.well-known/jwks.json`,
    mcp: { endpoint: `${base}/mcp/{publicId}`, discovery: `${base}/.well-known/mcp.json` },
    skillsManifest: `${base}/.well-known/erc8004-skills-manifest.json`,
  });
  router.get(
    '/.well-known/erc8004-discovery.json',
    deps.publicLimit,
    (_req, res) => void cached(res).type('application/json').send(discovery),
  );
  router.get('/.well-known/erc8004-onboarding.json', deps.publicLimit, (_req, res) => void cached(res).json(onboarding));
  router.get('/.well-known/erc8004-onboarding.md', deps.publicLimit, (_req, res) => void cached(res).type('text/markdown').send(markdown));
  // Built at request time: the catalog changes with its runtime settings and deploys.
  router.get('/.well-known/erc8004-skills-manifest.json', deps.publicLimit, (_req, res) => {
    const visible = deps.catalog.visibleTo({ kind: 'agent', scope: 'manage' });
    res.set({ 'Cache-Control': 'public, max-age=60', 'Access-Control-Allow-Origin': '*' }).json({
      version: deps.catalog.version,
      note: 'Dynamic: read tools/list with your credential for what it may call; never rely on a fixed count.',
      tools: visible.map((operation) => ({
        name: operation.name,
        family: operation.family,
        minScope: operation.minScope,
        description: operation.description,
        inputSchema: tools.descriptor(operation).inputSchema,
      })),
    });
  });
  return router;
}
