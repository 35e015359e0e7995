import { Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import { LIVE_EXECUTIONS } from '../../../adapters/resilience/execution-journal.js';
import { JupiterVenue } from '../../../adapters/solana/jupiter-venue.adapter.js';
import { SolanaChain } from '../../../adapters/solana/solana-chain.adapter.js';
import { NATIVE_SOL_MINT } from '../../../kernel/ports/venue.port.js';
import { describeVenueContract } from '../../contracts/venue.contract.js';
import { FakeJupiter } from './support/fake-jupiter.js';
import { LiteSvmRpc } from './support/litesvm-rpc.js';
import { setTokenBalance, solanaSigner } from './support/solana-fixtures.js';

/**
 * The venue contract against JupiterVenue over the fake Jupiter API and LiteSVM: the
 * default pair (100 USDC into JUP; 1M USDC as the large size) trades on the fake's
 * constant-product pool, and every fresh wallet gets 1 SOL for fees and rent.
 */
describeVenueContract('jupiter (fake API over LiteSVM)', async () => {
  const rpc = new LiteSvmRpc();
  const fake = await FakeJupiter.start(rpc);
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  await store.init([LIVE_EXECUTIONS]);
  const chain = new SolanaChain({ rpc });
  return {
    venue: new JupiterVenue({ apiUrl: fake.apiUrl, rpc, store, clock, confirm: { timeoutMs: 2_000, pollMs: 5 } }),
    fund: async (_chain, address, token, amount) => {
      const owner = new PublicKey(address);
      if (token === NATIVE_SOL_MINT) return rpc.airdrop(owner, BigInt(amount));
      setTokenBalance(rpc, owner, new PublicKey(token), BigInt(await chain.tokenBalance(address, token)) + BigInt(amount));
    },
    newSigner: async () => {
      const keypair = Keypair.generate();
      rpc.airdrop(keypair.publicKey, BigInt(LAMPORTS_PER_SOL));
      return solanaSigner(keypair);
    },
    cleanup: () => fake.server.close(),
  };
});
