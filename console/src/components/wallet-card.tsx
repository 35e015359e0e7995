/** One custodial wallet of the agent: its address and balances, the paper faucet on the paper venue, or a button to create it. */
import type { TradingWalletCustodialGetOutput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { tokens, usd } from '../format.js';
import { useAction } from '../hooks/use-action.js';
import { FAMILY_LABELS, type Position } from '../portfolio.model.js';
import { PaperFaucet } from './paper-faucet.js';
import { Empty, ErrorText } from './status.js';
import { toast } from '../toast.js';

export function WalletCard(props: {
  agentId: string;
  wallet: TradingWalletCustodialGetOutput;
  positions: Position[];
  paper: boolean;
  onChanged(): void;
}) {
  const { wallet } = props;
  const title = wallet.chain === 'solana' ? 'Solana wallet' : `EVM wallet (${FAMILY_LABELS.evm})`;
  const create = useAction(async () => {
    await client.wallets.ensureCustodial({ chain: wallet.chain }, { agentId: props.agentId });
    toast(`${title} created`);
    props.onChanged();
  });
  const held = props.positions.filter((p) => p.amount !== '0');
  return (
    <section class="card" aria-label={title}>
      <h3>{title}</h3>
      {wallet.wallet ? (
        <>
          <p class="mono" title="Address">
            {wallet.wallet.address}
          </p>
          {held.length === 0 ? (
            <Empty>Empty.</Empty>
          ) : (
            <ul class="balances" aria-label={`Balances of the ${title}`}>
              {held.map((p) => (
                <li key={`${p.chain}:${p.token}`}>
                  <span>
                    {tokens(p.amount)} {p.symbol}
                    {wallet.chain === 'evm' ? <span class="muted small"> on {p.chain}</span> : null}
                  </span>
                  <span class="muted">{usd(p.valueUsd)}</span>
                </li>
              ))}
            </ul>
          )}
          {props.paper ? <PaperFaucet agentId={props.agentId} family={wallet.chain} onFunded={props.onChanged} /> : null}
        </>
      ) : (
        <>
          <Empty>No custodial wallet yet.</Empty>
          <button type="button" disabled={create.busy} onClick={() => void create.run()}>
            {create.busy ? 'Creating…' : `Create the ${title}`}
          </button>
        </>
      )}
      <ErrorText text={create.error} />
    </section>
  );
}
