import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import { NATIVE_SOL_MINT } from '../../../../kernel/ports/venue.port.js';
import {
  associatedTokenAddress,
  createAssociatedTokenAccountIdempotentInstruction,
  transferCheckedInstruction,
} from '../../../../adapters/solana/spl-token.helpers.js';
import { FakeHttpServer, json, type SeenRequest } from './fake-http-server.js';
import type { LiteSvmRpc } from './litesvm-rpc.js';
import { createMint, setTokenBalance } from './solana-fixtures.js';

/** Test token's base units per lamport: 1 SOL = 150 USDT (6 decimals). */
const RATE_NUM = 15n;
const RATE_DEN = 100n;
const SWAP_FEE_BPS = 25n;
/** Constant-product reserves of the USDC/JUP pool: 1M USDC against 2M JUP, both 6 decimals. */
const RESERVES: Record<'usdc' | 'jup', bigint> = { usdc: 1_000_000_000_000n, jup: 2_000_000_000_000n };

/**
 * Jupiter's documented API shapes over test pools held by a pool keypair in LiteSVM:
 * SOL/USDT at a fixed rate (0.12 % impact), USDC/JUP at constant product (impact grows with
 * size). Routes: `/swap/v1/quote`, `/swap/v1/swap`, `/tokens/v2/search`, `/price/v3`. The
 * swap transaction is a real two-leg transfer between the user and the pool (partially
 * signed by the pool), so executing it moves funds on the ledger.
 */
export class FakeJupiter {
  /** What the swap transaction really delivers, given the quote's `outAmount` (default: 500 units more). */
  deliver: (outAmount: bigint) => bigint = (out) => out + 500n;
  /** Builds swaps paid by this wallet instead of `userPublicKey` (a misbehaving API). */
  payer?: PublicKey;
  readonly pool = Keypair.generate();
  /** USDT (fixed-rate pool with SOL). */
  readonly mint: PublicKey;
  readonly usdc: PublicKey;
  readonly jup: PublicKey;
  /** An unverified token that also calls itself USDC, listed before the real one. */
  readonly lookAlike = Keypair.generate().publicKey.toBase58();

  private constructor(
    readonly server: FakeHttpServer,
    private readonly rpc: LiteSvmRpc,
  ) {
    [this.mint, this.usdc, this.jup] = [createMint(rpc, 6), createMint(rpc, 6), createMint(rpc, 6)];
    rpc.airdrop(this.pool.publicKey, 100_000_000_000n);
    setTokenBalance(rpc, this.pool.publicKey, this.mint, 1_000_000_000_000n);
    setTokenBalance(rpc, this.pool.publicKey, this.usdc, RESERVES.usdc);
    setTokenBalance(rpc, this.pool.publicKey, this.jup, RESERVES.jup);
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
      {
        id: NATIVE_SOL_MINT,
        name: 'Wrapped SOL',
        symbol: 'SOL',
        decimals: 9,
        usdPrice: 150.25,
        isVerified: true,
        tags: ['verified'],
        organicScore: 99,
      },
      { id: this.mint.toBase58(), name: 'Tether USD', symbol: 'USDT', decimals: 6, usdPrice: 1.0001, isVerified: true, holderCount: 10 },
      { id: this.lookAlike, name: 'USD Coin', symbol: 'USDC', decimals: 6, usdPrice: 0.01, isVerified: false },
      { id: this.usdc.toBase58(), name: 'USD Coin', symbol: 'USDC', decimals: 6, usdPrice: 1, isVerified: true },
      { id: this.jup.toBase58(), name: 'Jupiter', symbol: 'JUP', decimals: 6, usdPrice: 0.5, isVerified: true },
      {
        id: Keypair.generate().publicKey.toBase58(),
        name: 'USDT impostor',
        symbol: 'USDTX',
        decimals: 9,
        usdPrice: null,
        isVerified: false,
      },
    ];
  }

  /** (Re)installs the documented answers on every route. */
  healthy(): void {
    this.server.route('GET', '/swap/v1/quote', (request, res) => json(...this.quote(request))(request, res));
    this.server.route('POST', '/swap/v1/swap', async (request, res) => json(200, await this.swap(request))(request, res));
    this.server.route('GET', '/tokens/v2/search', (request, res) => {
      const query = (request.query.get('query') ?? '').toLowerCase();
      json(
        200,
        this.tokens.filter(
          (t) => t.symbol.toLowerCase().includes(query) || t.name.toLowerCase().includes(query) || t.id.toLowerCase() === query,
        ),
      )(request, res);
    });
    this.server.route('GET', '/price/v3', (request, res) => {
      const ids = (request.query.get('ids') ?? '').split(',');
      const prices = Object.fromEntries(
        this.tokens
          .filter((t) => ids.includes(t.id) && t.usdPrice !== null)
          .map((t) => [t.id, { usdPrice: t.usdPrice, blockId: 348004023, decimals: t.decimals, priceChange24h: 1.29 }]),
      );
      json(200, prices)(request, res);
    });
  }

  private quote(request: SeenRequest): [number, unknown] {
    const inputMint = request.query.get('inputMint')!;
    const outputMint = request.query.get('outputMint')!;
    const amount = BigInt(request.query.get('amount')!);
    const slippageBps = BigInt(request.query.get('slippageBps') ?? '50');
    const known = [NATIVE_SOL_MINT, this.mint, this.usdc, this.jup].map(String);
    if (!known.includes(inputMint) || !known.includes(outputMint)) {
      const unknown = known.includes(inputMint) ? outputMint : inputMint;
      return [400, { error: `The token ${unknown} is not tradable`, errorCode: 'TOKEN_NOT_TRADABLE' }];
    }
    const fee = (amount * SWAP_FEE_BPS) / 10_000n;
    const net = amount - fee;
    const priced = this.price(inputMint, outputMint, net);
    if (!priced) return [400, { error: 'Could not find any route', errorCode: 'COULD_NOT_FIND_ANY_ROUTE' }];
    const { outAmount, impact } = priced;
    const swapInfo = {
      ammKey: Keypair.generate().publicKey.toBase58(),
      label: 'Whirlpool',
      inputMint,
      outputMint,
      inAmount: String(amount),
      outAmount: String(outAmount),
      feeAmount: String(fee),
      feeMint: inputMint,
    };
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
        priceImpactPct: impact,
        routePlan: [{ swapInfo, percent: 100, bps: 10_000 }],
        contextSlot: 299_283_763,
        timeTaken: 0.0013,
      },
    ];
  }

  /** Output of `net` input on the pair's pool, and the price impact as Jupiter writes it (a fraction). */
  private price(inputMint: string, outputMint: string, net: bigint): { outAmount: bigint; impact: string } | null {
    const [sol, usdt, usdc, jup] = [NATIVE_SOL_MINT, this.mint.toBase58(), this.usdc.toBase58(), this.jup.toBase58()];
    if (inputMint === sol && outputMint === usdt) return { outAmount: (net * RATE_NUM) / RATE_DEN, impact: '0.0012' };
    if (inputMint === usdt && outputMint === sol) return { outAmount: (net * RATE_DEN) / RATE_NUM, impact: '0.0012' };
    const side = (mint: string): 'usdc' | 'jup' | null => (mint === usdc ? 'usdc' : mint === jup ? 'jup' : null);
    const [from, to] = [side(inputMint), side(outputMint)];
    if (!from || !to || from === to) return null;
    const outAmount = (net * RESERVES[to]) / (RESERVES[from] + net);
    return { outAmount, impact: String(Number(net) / Number(RESERVES[from] + net)) };
  }

  private async swap(request: SeenRequest) {
    const body = request.body as {
      quoteResponse: { inputMint: string; outputMint: string; inAmount: string; outAmount: string };
      userPublicKey: string;
    };
    const user = this.payer ?? new PublicKey(body.userPublicKey);
    const quote = body.quoteResponse;
    const pool = this.pool.publicKey;
    // Leg 1: the user pays the pool; leg 2: the pool pays the user (creating the user's token account).
    const leg = (mint: string, from: PublicKey, to: PublicKey, amount: bigint): TransactionInstruction[] => {
      if (mint === NATIVE_SOL_MINT) return [SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: amount })];
      const token = new PublicKey(mint);
      return [
        createAssociatedTokenAccountIdempotentInstruction({ payer: user, owner: to, mint: token }),
        transferCheckedInstruction({
          source: associatedTokenAddress(from, token),
          mint: token,
          destination: associatedTokenAddress(to, token),
          owner: from,
          amount,
          decimals: 6,
        }),
      ];
    };
    const instructions = [
      ...leg(quote.inputMint, user, pool, BigInt(quote.inAmount)),
      ...leg(quote.outputMint, pool, user, this.deliver(BigInt(quote.outAmount))),
    ];
    const { blockhash, lastValidBlockHeight } = await this.rpc.getLatestBlockhash();
    const tx = new VersionedTransaction(
      new TransactionMessage({ payerKey: user, recentBlockhash: blockhash, instructions }).compileToV0Message(),
    );
    tx.sign([this.pool]);
    return {
      swapTransaction: Buffer.from(tx.serialize()).toString('base64'),
      lastValidBlockHeight,
      prioritizationFeeLamports: 0,
      computeUnitLimit: 200_000,
    };
  }
}
