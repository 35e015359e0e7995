import type { Chain } from 'agent-runtime-sdk';
import { useState } from 'preact/hooks';
import { client } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import { FAMILY_CHAINS, type Family } from '../portfolio.model.js';
import { ErrorText } from './status.js';
import { toast } from '../toast.js';

/** Paper venue only: play money into the custodial wallet. */
export function PaperFaucet(props: { agentId: string; family: Family; onFunded(): void }) {
  const chains = FAMILY_CHAINS[props.family];
  const [chain, setChain] = useState<Chain>(chains[0] ?? 'solana');
  const [token, setToken] = useState('USDC');
  const [amount, setAmount] = useState('1000');
  const fund = useAction(async () => {
    const funded = await client.trading.paperFaucet({ chain, token: token.trim(), amount: amount.trim() }, { agentId: props.agentId });
    toast(`Added ${funded.credited} ${funded.symbol} (paper); balance ${funded.balance}`);
    props.onFunded();
  });
  const id = `faucet-${props.family}`;
  return (
    <form
      class="faucet"
      onSubmit={(event) => {
        event.preventDefault();
        void fund.run();
      }}
      aria-labelledby={`${id}-title`}
    >
      <h4 id={`${id}-title`}>Paper faucet</h4>
      <div class="row">
        {chains.length > 1 ? (
          <label>
            Chain
            <select value={chain} onChange={(event) => setChain(event.currentTarget.value as typeof chain)}>
              {chains.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          Token
          <input value={token} required maxLength={64} onInput={(event) => setToken(event.currentTarget.value)} />
        </label>
        <label>
          Amount
          <input value={amount} required inputMode="decimal" onInput={(event) => setAmount(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={fund.busy}>
          {fund.busy ? 'Adding…' : 'Add test funds'}
        </button>
      </div>
      <ErrorText text={fund.error} />
    </form>
  );
}
