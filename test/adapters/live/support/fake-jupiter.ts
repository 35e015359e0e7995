import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import { NATIVE_SOL_MINT } from '../../../../src/ports/venue.port.js';
import { associatedTokenAddress, createAssociatedTokenAccountIdempotentInstruction, transferCheckedInstruction } from '../../../../adapters/solana/spl-token.helpers.js';
import { FakeHttpServer, json, type SeenRequest } from './fake-http-server.js';
import type { LiteSvmRpc } from './litesvm-rpc.js';
import { createMint, setTokenBalance } from './solana-fixtures.js';

/** Test token's base units per lamport: 1 SOL = 150 USDT (6 decimals). */
const RATE_NUM = 15n;
const RATE_DEN = 100n;
export const SWAP_FEE_BPS = 25n;

/**
 * Jupiter's documented API shapes over a pool of one test token (6 decimals) held by a
 * pool keypair in LiteSVM: `/swap/v1/quote`, `/swap/v1/swap`, `/tokens/v2/search`,
 * `/price/v3`. The swap transaction is a real two-leg transfer between the user and the
 * pool (partially signed by the pool), so executing it moves funds on the ledger.
 */
export class FakeJupiter {
  /** What the swap transaction really delivers, given the quote's `outAmount` (default: 500 units more). */
  deliver: (outAmount: bigint) => bigint = (out) => out + 500n;
  /** Builds swaps paid by this wallet instead of `userPublicKey` (a misbehaving API). */
  payer?: PublicKey;
  readonly pool = Keypair.generate();
  readonly mint: PublicKey;

  private constructor(readonly server: FakeHttpServer, private readonly rpc: LiteSvmRpc) {
    this.mint = createMint(rpc, 6);
    rpc.airdrop(this.pool.publicKey, 100_000_000_000n);
    setTokenBalance(rpc, this.pool.publicKey, this.mint, 1_000_000_000_000n);
    this.healthy();
  }

  static async start(rpc: LiteSvmRpc): Promise<FakeJupiter> {
    return new FakeJupiter(await FakeHttpServer.start(), rpc);
  }

  /** Swap API root as `JUPITER_API_URL` names it. */
  get apiUrl(): string {
    return `${this.server.url}/swap/v1`;
  }

  get tokens() {
    return [
      { id: NATIVE_SOL_MINT, name: 'Wrapped SOL', symbol: 'SOL', decimals: 9, usdPrice: 150.25, isVerified: true, tags: ['verified'], organicScore: 99 },
      { id: this.mint.toBase58(), name: 'Tether USD', symbol: 'USDT', decimals: 6, usdPrice: 1.0001, isVerified: true, holderCount: 10 },
      { id: Keypair.generate().publicKey.toBase58(), name: 'USDT impostor', symbol: 'USDTX', decimals: 9, usdPrice: null, isVerified: false },
    ];
  }

  /** (Re)installs the documented answers on every route. */
  healthy(): void {
    this.server.route('GET', '/swap/v1/quote', (request, res) => json(...this.quote(request))(request, res));
    this.server.route('POST', '/swap/v1/swap', async (request, res) => json(200, await this.swap(request))(request, res));
    this.server.route('GET', '/tokens/v2/search', (request, res) => {
      const query = (request.query.get('query') ?? '').toLowerCase();
      json(200, this.tokens.filter((t) => t.symbol.toLowerCase().includes(query) || t.name.toLowerCase().includes(query) || t.id.toLowerCase() === query))(request, res);
    });
    this.server.route('GET', '/price/v3', (request, res) => {
      const ids = (request.query.get('ids') ?? '').split(',');
      const prices = Object.fromEntries(this.tokens.filter((t) => ids.includes(t.id) && t.usdPrice !== null).map((t) => [t.id, { usdPrice: t.usdPrice, blockId: 348004023, decimals: t.decimals, priceChange24h: 1.29 }]));
      json(200, prices)(request, res);
    });
  }

  private quote(request: SeenRequest): [number, unknown] {
    const inputMint = request.query.get('inputMint')!;
    const outputMint = request.query.get('outputMint')!;
    const amount = BigInt(request.query.get('amount')!);
    const slippageBps = BigInt(request.query.get('slippageBps') ?? '50');
    const known = [NATIVE_SOL_MINT, this.mint.toBase58()];
    if (!known.includes(inputMint) || !known.includes(outputMint)) {
      const unknown = known.includes(inputMint) ? outputMint : inputMint;
      return [400, { error: `The token ${unknown} is not tradable`, errorCode: 'TOKEN_NOT_TRADABLE' }];
    }
    if (inputMint === outputMint) return [400, { error: 'Could not find any route', errorCode: 'COULD_NOT_FIND_ANY_ROUTE' }];
    const fee = (amount * SWAP_FEE_BPS) / 10_000n;
    const net = amount - fee;
    const outAmount = inputMint === NATIVE_SOL_MINT ? (net * RATE_NUM) / RATE_DEN : (net * RATE_DEN) / RATE_NUM;
    const swapInfo = { ammKey: Keypair.generate().publicKey.toBase58(), label: 'Whirlpool', inputMint, outputMint, inAmount: String(amount), outAmount: String(outAmount), feeAmount: String(fee), feeMint: inputMint };
    return [
      200,
      {
        inputMint,
        inAmount: String(amount),
        outputMint,
        outAmount: String(outAmount),
        otherAmountThreshold: String((outAmount * (10_000n - slippageBps)) / 10_000n),
        swapMode: 'ExactIn',
        slippageBps: Number(slippageBps),
        platformFee: null,
        priceImpactPct: '0.0012',
        routePlan: [{ swapInfo, percent: 100, bps: 10_000 }],
        contextSlot: 299_283_763,
        timeTaken: 0.0013,
      },
    ];
  }

  private async swap(request: SeenRequest) {
    const body = request.body as { quoteResponse: { inputMint: string; inAmount: string; outAmount: string }; userPublicKey: string };
    const user = this.payer ?? new PublicKey(body.userPublicKey);
    const quote = body.quoteResponse;
    const inAmount = BigInt(quote.inAmount);
    const delivered = this.deliver(BigInt(quote.outAmount));
    const instructions: TransactionInstruction[] = [createAssociatedTokenAccountIdempotentInstruction({ payer: user, owner: user, mint: this.mint })];
    const poolAta = associatedTokenAddress(this.pool.publicKey, this.mint);
    const userAta = associatedTokenAddress(user, this.mint);
    if (quote.inputMint === NATIVE_SOL_MINT) {
      instructions.push(SystemProgram.transfer({ fromPubkey: user, toPubkey: this.pool.publicKey, lamports: inAmount }));
      instructions.push(transferCheckedInstruction({ source: poolAta, mint: this.mint, destination: userAta, owner: this.pool.publicKey, amount: delivered, decimals: 6 }));
    } else {
      instructions.push(transferCheckedInstruction({ source: userAta, mint: this.mint, destination: poolAta, owner: user, amount: inAmount, decimals: 6 }));
      instructions.push(SystemProgram.transfer({ fromPubkey: this.pool.publicKey, toPubkey: user, lamports: delivered }));
    }
    const { blockhash, lastValidBlockHeight } = await this.rpc.getLatestBlockhash();
    const tx = new VersionedTransaction(new TransactionMessage({ payerKey: user, recentBlockhash: blockhash, instructions }).compileToV0Message());
    tx.sign([this.pool]);
    return { swapTransaction: Buffer.from(tx.serialize()).toString('base64'), lastValidBlockHeight, prioritizationFeeLamports: 0, computeUnitLimit: 200_000 };
  }
}
