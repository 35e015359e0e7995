/**
 * Client SDK of the agent trading service: `AgentClient` for software agents (MCP tools,
 * events, wallet), `OperatorClient` for people signed in with a wallet (REST),
 * `DirectoryClient` for the public agent directory, `OpsClient` for the
 * service's operators (ops token). Runs on Node
 * 20+ and in browsers: fetch, AbortSignal and Web Crypto only.
 */
export {
  AgentClient,
  type AgentClientOptions,
  type ToolDescriptor,
  type ToolInput,
  type ToolOutput,
  type WalletBalance,
  type Withdrawal,
  type WithdrawEvmInput,
  type WithdrawOptions,
  type WithdrawSolanaInput,
} from './agent-client.js';
export {
  type AgentCredential,
  apiKey,
  type Erc8004Registration,
  type IdentityToken,
  IdentityTokenCredential,
  type Onboarding,
  providerOnboarding,
  type ProviderOnboardingOptions,
  siweOnboarding,
  type SiweOnboardingOptions,
} from './agent-credentials.js';
export type { AccountOptions, CallOptions } from './call-options.js';
export { DirectoryClient, type DirectoryClientOptions, type DirectoryPageQuery, type FeedQuery } from './directory-client.js';
export { isSdkError, RETRYABLE_CODES, SdkError, type SdkErrorCode, type SdkErrorInit } from './errors.js';
export type { AgentEvent, SubscribeOptions, EventSubscription } from './events/event-subscription.js';
export type { WebSocketConstructor, WebSocketLike } from './events/ws-connect.js';
export type * from './generated/tools.js';
export { CHAINS, KEY_SCOPES } from './generated/tools.js';
export { HttpTransport, type RetryObserver } from './http-transport.js';
export {
  type ClaimOptions,
  type ConsoleConfig,
  OperatorClient,
  type OperatorClientOptions,
  type StepUpOptions,
} from './operator-client.js';
export {
  type ActorJournal,
  type ActorView,
  type CatalogView,
  type ChartNode,
  type ChartTransition,
  type KillSwitchStatus,
  type MachineChart,
  type OpsChain,
  OpsClient,
  type OpsClientOptions,
} from './ops-client.js';
export type { EvmSignInOptions, LoginResult, SessionOptions, SessionUser, SignedMessage } from './operator-session.js';
export { resolveRuntime, retryDelayMs, type RetryPolicy, type SdkClock, type SdkRuntimeOptions, systemClock, uuidV4 } from './runtime.js';
export { cryptoKeySigner, type Erc8004Identity, type EvmSigner, naclSigner, type SolanaSigner } from './signers.js';
