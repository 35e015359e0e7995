/**
 * Dependency rules of DESIGN.md / CONVENTIONS.md, checked in `npm test`:
 * machines are pure, agents see machines and ports only, adapters implement ports,
 * and only the composition root (src/main.ts, src/composition/) picks adapters.
 */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Circular imports hide layering mistakes.', from: {}, to: { circular: true } },
    {
      name: 'machines-are-pure',
      severity: 'error',
      comment: 'machines/ imports xstate and domain types only.',
      from: { path: '^machines/' },
      to: { pathNot: ['^machines/', '^node_modules/xstate/', 'xstate'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'machines-no-io-types',
      severity: 'error',
      comment: 'machines/ must not even name adapters, the runtime or surfaces.',
      from: { path: '^machines/' },
      to: { path: ['^adapters/', '^src/', '^agents/'] },
    },
    {
      name: 'agents-no-adapters-or-surfaces',
      severity: 'error',
      comment: 'agents/ sees machines, domain and port types only.',
      from: { path: '^agents/' },
      to: { path: ['^adapters/', '^src/(http|mcp|composition|runtime)/', '^src/main\\.ts$'] },
    },
    {
      name: 'agents-not-operations',
      severity: 'error',
      comment: 'No folder cycle operations <-> agents (issue 17): the catalog calls the domain; the domain does not know the catalog.',
      from: { path: '^agents/' },
      to: { path: '^src/operations/' },
    },
    {
      name: 'auth-not-accounts',
      severity: 'error',
      comment: 'No folder cycle auth <-> accounts (issue 17): accounts use auth (step-up, the key format); auth needs nothing of accounts.',
      from: { path: '^src/auth/' },
      to: { path: '^src/accounts/' },
    },
    {
      name: 'adapters-only-from-composition-root',
      severity: 'error',
      comment: 'Only src/main.ts and src/composition/ choose adapters.',
      from: { path: '^(src|agents|machines)/', pathNot: ['^src/main\\.ts$', '^src/composition/'] },
      to: { path: '^adapters/' },
    },
    {
      name: 'adapters-not-surfaces',
      severity: 'error',
      comment: 'adapters/ implement ports; they do not reach into the runtime or the surfaces.',
      from: { path: '^adapters/' },
      to: { path: ['^src/(http|mcp|composition|runtime|operations)/', '^src/main\\.ts$', '^agents/'] },
    },
    {
      name: 'surfaces-reach-accounts-and-agents-through-operations',
      severity: 'error',
      comment: 'Every capability goes through the catalog (issue 17): REST, MCP and events name neither the account services nor the domain.',
      from: { path: '^src/(http|mcp)/' },
      to: { path: ['^src/accounts/', '^agents/'] },
    },
    {
      name: 'only-the-runtime-knows-actor-storage',
      severity: 'error',
      comment: 'How actors are stored (their collections) is the runtime\'s own: everything else reads and steers them through runtime.collection(definition) (issue 17).',
      from: { path: '^(src|agents|machines|adapters)/', pathNot: '^src/runtime/' },
      to: { path: '^src/runtime/actor-storage\\.ts$' },
    },
    {
      name: 'mcp-not-http',
      severity: 'error',
      comment: 'MCP is served before express: what it shares with REST (envelopes, request ids, rate-limit answers, security headers) lives in src/surface-common/.',
      from: { path: '^src/mcp/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'surface-common-is-neutral',
      severity: 'error',
      comment: 'src/surface-common/ is what every surface writes on the wire: it knows no surface, no express, and nothing the surfaces reach only through the catalog.',
      from: { path: '^src/surface-common/' },
      to: { path: ['^src/(http|mcp|composition|operations|accounts|runtime)/', '^agents/', '^adapters/', '(^|/)node_modules/(@types/)?express/'] },
    },
    {
      name: 'identity-not-surfaces',
      severity: 'error',
      comment: 'src/identity/ (signing keys, identity tokens, onboarding) is a core the surfaces call: it names no surface, no catalog and no account service (the composition hands it what it needs).',
      from: { path: '^src/identity/' },
      to: { path: ['^src/(http|mcp|composition|operations|accounts|runtime)/', '^adapters/', '(^|/)node_modules/(@types/)?express/'] },
    },
    {
      name: 'sdk-is-standalone',
      severity: 'error',
      comment: 'The client SDK (issue 21) ships on its own: no server code inside; the catalog types it needs are generated into sdk/src/generated/.',
      from: { path: '^sdk/' },
      to: { path: ['^src/', '^agents/', '^machines/', '^adapters/', '^test/', '^scripts/'] },
    },
    {
      name: 'sdk-runs-in-browsers',
      severity: 'error',
      comment: 'The SDK runs on Node 20+ and in browsers: fetch, AbortSignal and Web Crypto, no Node built-in modules.',
      from: { path: '^sdk/src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'no-test-code-in-production',
      severity: 'error',
      from: { path: '^(src|agents|machines|adapters)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The SDK's build output (npm run build:sdk) is its sources again.
    exclude: { path: '^sdk/dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
    moduleSystems: ['es6', 'cjs'],
  },
};
