import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { getAddress, hexToBytes } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../kernel/errors/app-error.js';
import {
  walletChainOf,
  type Chain,
  type ExecuteRequest,
  type ExecutionResult,
  type TokenInfo,
  type VenuePort,
  type WalletSigner,
} from '../../kernel/ports/venue.port.js';

export interface VenueSubject {
  venue: VenuePort;
  /** Gives `address` `amountBaseUnits` of `token` (an address) on `chain`. */
  fund: (chain: Chain, address: string, token: string, amountBaseUnits: string) => Promise<void>;
  /** A wallet the venue trades for; default: a fresh key pair of the chain's family. */
  newSigner?: (chain: Chain) => Promise<WalletSigner>;
  cleanup?: () => Promise<void>;
}

export interface VenueContractOptions {
  /** Chain to trade on (default: the venue's first chain). */
  chain?: Chain;
  /** Symbols or addresses of the pair, an ordinary size and a size large enough to move the price. */
  pair?: { input: string; output: string; amountIn: string; largeAmountIn: string };
}

/** 100 USDC into a non-native token (native balances also pay gas on a live chain); 1M USDC as the large size. */
function defaultPair(chain: Chain): NonNullable<VenueContractOptions['pair']> {
  const output = chain === 'solana' ? 'JUP' : 'WETH';
  return { input: 'USDC', output, amountIn: '100000000', largeAmountIn: '1000000000000' };
}

/** A fresh key pair; its secret is handed out only inside `withSecretKey` and wiped after. */
async function freshSigner(chain: Chain): Promise<WalletSigner> {
  const family = walletChainOf(chain);
  let secret: Uint8Array;
  let address: string;
  if (family === 'solana') {
    const pair = nacl.sign.keyPair();
    secret = pair.secretKey;
    address = bs58.encode(pair.publicKey);
  } else {
    const key = generatePrivateKey();
    secret = hexToBytes(key);
    address = privateKeyToAccount(key).address;
  }
  return {
    walletId: randomUUID(),
    chain: family,
    address,
    async withSecretKey(use) {
      const copy = Uint8Array.from(secret);
      try {
        return await use(copy);
      } finally {
        copy.fill(0);
      }
    },
  };
}

/** An address no venue lists as a token. */
function unknownMint(chain: Chain): string {
  return chain === 'solana' ? bs58.encode(randomBytes(32)) : getAddress(`0x${randomBytes(20).toString('hex')}`);
}

/**
 * The behaviour every VenuePort adapter must show. `makeVenue` returns a fresh venue per
 * test; `fund` must credit real balances the venue will debit. Each test trades from its
 * own new wallet with its own order ids, so the suite can run against a shared live venue.
 */
export function describeVenueContract(name: string, makeVenue: () => Promise<VenueSubject>, options: VenueContractOptions = {}): void {
  describe(`Venue contract: ${name}`, () => {
    let subject: VenueSubject;
    let venue: VenuePort;
    let chain: Chain;
    let input: TokenInfo;
    let output: TokenInfo;
    let amountIn: bigint;
    let largeAmountIn: bigint;

    beforeEach(async () => {
      subject = await makeVenue();
      venue = subject.venue;
      chain = options.chain ?? venue.chains[0]!;
      const pair = options.pair ?? defaultPair(chain);
      const found = [await venue.findToken(chain, pair.input), await venue.findToken(chain, pair.output)];
      if (!found[0] || !found[1]) throw new Error(`the venue does not list ${pair.input} and ${pair.output} on ${chain}`);
      [input, output] = found as [TokenInfo, TokenInfo];
      amountIn = BigInt(pair.amountIn);
      largeAmountIn = BigInt(pair.largeAmountIn);
    });
    afterEach(async () => subject.cleanup?.());

    const quote = (amount: bigint, slippageBps = 100) =>
      venue.quote({ chain, inputMint: input.address, outputMint: output.address, amountIn: amount.toString(), slippageBps });
    const fundedSigner = async (units: bigint) => {
      const signer = await (subject.newSigner ?? freshSigner)(chain);
      if (units > 0n) await subject.fund(chain, signer.address, input.address, units.toString());
      return signer;
    };
    const order = (signer: WalletSigner, minOut: bigint, clientOrderId: string = randomUUID()): ExecuteRequest => ({
      clientOrderId,
      chain,
      signer,
      inputMint: input.address,
      outputMint: output.address,
      amountIn: amountIn.toString(),
      minOut: minOut.toString(),
      slippageBps: 100,
    });
    /** Executes and, for a venue that answers `submitted`, waits for the final outcome. */
    const execute = async (request: ExecuteRequest): Promise<ExecutionResult> => {
      let result = await venue.execute(request);
      for (let tries = 0; result.status === 'submitted' && tries < 60; tries++) {
        await sleep(1_000);
        result = (await venue.lookup(request.clientOrderId, chain)) ?? result;
      }
      return result;
    };
    /** Balance of a token; addresses are compared case-insensitively on EVM chains. */
    const balanceOf = async (signer: WalletSigner, token: TokenInfo): Promise<bigint> => {
      const balances = await venue.balances(chain, signer.address);
      const same = (key: string) => (chain === 'solana' ? key === token.address : key.toLowerCase() === token.address.toLowerCase());
      const key = Object.keys(balances).find(same);
      return BigInt(key === undefined ? '0' : balances[key]!);
    };
    const holdings = async (signer: WalletSigner) => [await balanceOf(signer, input), await balanceOf(signer, output)];
    const minOutNow = async () => BigInt((await quote(amountIn)).minOut);

    it('finds a token by symbol in any case and by address', async () => {
      expect(input).toMatchObject({ chain, symbol: expect.any(String), name: expect.any(String) });
      expect(Number.isInteger(input.decimals) && input.decimals >= 0).toBe(true);
      expect(await venue.findToken(chain, input.symbol.toLowerCase())).toEqual(input);
      expect(await venue.findToken(chain, input.symbol.toUpperCase())).toEqual(input);
      expect(await venue.findToken(chain, input.address)).toEqual(input);
      if (chain !== 'solana') expect(await venue.findToken(chain, input.address.toLowerCase())).toEqual(input);
    });

    it('answers null for an unknown token and 404 `Token not found: <mint>` when quoting it', async () => {
      const mint = unknownMint(chain);
      expect(await venue.findToken(chain, mint)).toBeNull();
      const asInput = venue.quote({ chain, inputMint: mint, outputMint: output.address, amountIn: amountIn.toString(), slippageBps: 50 });
      await expect(asInput).rejects.toBeInstanceOf(AppError);
      await expect(asInput).rejects.toMatchObject({ code: 'TOKEN_NOT_FOUND', kind: 'not_found', message: `Token not found: ${mint}` });
      const asOutput = venue.quote({ chain, inputMint: input.address, outputMint: mint, amountIn: amountIn.toString(), slippageBps: 50 });
      await expect(asOutput).rejects.toMatchObject({ code: 'TOKEN_NOT_FOUND', kind: 'not_found', message: `Token not found: ${mint}` });
    });

    it('quotes with minOut ≤ expectedOut ≤ spotOut and minOut at the slippage tolerance', async () => {
      const q = await quote(amountIn, 100);
      expect(q).toMatchObject({
        chain,
        inputMint: input.address,
        outputMint: output.address,
        amountIn: amountIn.toString(),
        venue: venue.name,
      });
      for (const field of [q.expectedOut, q.minOut, q.spotOut, q.feeAmount]) expect(field).toMatch(/^\d+$/);
      const [minOut, expected, spot] = [BigInt(q.minOut), BigInt(q.expectedOut), BigInt(q.spotOut)];
      expect(expected).toBeGreaterThan(0n);
      expect(minOut <= expected && expected <= spot).toBe(true);
      // Venues round differently; within one base unit of expectedOut less 1%.
      const tolerance = (expected * 9_900n) / 10_000n;
      expect(minOut >= tolerance - 1n && minOut <= tolerance + 1n).toBe(true);
      expect(q.priceImpactBps).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(q.expiresAt)).toBe(true);
    });

    it('gives a larger order a larger price impact and a worse rate', async () => {
      const [small, large] = [await quote(amountIn), await quote(largeAmountIn)];
      expect(large.priceImpactBps).toBeGreaterThan(small.priceImpactBps);
      // Output per unit of input: large.out / large.in < small.out / small.in.
      expect(BigInt(large.expectedOut) * amountIn).toBeLessThan(BigInt(small.expectedOut) * largeAmountIn);
    });

    it('fills an order and moves exactly amountIn and filledOut', async () => {
      const signer = await fundedSigner(amountIn * 2n);
      const [inBefore, outBefore] = await holdings(signer);
      const minOut = await minOutNow();
      const result = await execute(order(signer, minOut));
      if (result.status !== 'filled') throw new Error(`expected a fill, got ${JSON.stringify(result)}`);
      expect(BigInt(result.filledOut)).toBeGreaterThanOrEqual(minOut);
      expect(result.txSignature.length).toBeGreaterThan(0);
      expect(await holdings(signer)).toEqual([inBefore! - amountIn, outBefore! + BigInt(result.filledOut)]);
    });

    it('executes one client order id once: a repeat returns the same outcome and moves nothing', async () => {
      const signer = await fundedSigner(amountIn * 3n);
      const request = order(signer, await minOutNow());
      const first = await execute(request);
      expect(first.status).toBe('filled');
      const afterFirst = await holdings(signer);
      expect(await execute(request)).toEqual(first);
      expect(await holdings(signer)).toEqual(afterFirst);
      expect(await venue.lookup(request.clientOrderId, chain)).toEqual(first);
    });

    it('fills once when 20 executes of one id race', async () => {
      const signer = await fundedSigner(amountIn * 3n);
      const request = order(signer, await minOutNow());
      const results = await Promise.all(Array.from({ length: 20 }, () => execute(request)));
      expect(results[0]!.status).toBe('filled');
      for (const result of results) expect(result).toEqual(results[0]);
      expect(await balanceOf(signer, input)).toBe(amountIn * 2n);
    });

    it('fails with insufficient_balance and moves nothing, even when retried after funding', async () => {
      const signer = await fundedSigner(amountIn - 1n);
      const before = await holdings(signer);
      const request = order(signer, await minOutNow());
      const result = await execute(request);
      expect(result).toMatchObject({ status: 'failed', reason: 'insufficient_balance' });
      expect(await holdings(signer)).toEqual(before);
      expect(await venue.lookup(request.clientOrderId, chain)).toEqual(result);
      await subject.fund(chain, signer.address, input.address, amountIn.toString());
      expect(await execute(request)).toEqual(result);
      expect(await balanceOf(signer, input)).toBe(before[0]! + amountIn);
    });

    it('fails with slippage when minOut is above what the pool gives, and moves nothing', async () => {
      const signer = await fundedSigner(amountIn * 2n);
      const before = await holdings(signer);
      const beyond = BigInt((await quote(amountIn)).spotOut) * 2n;
      const result = await execute(order(signer, beyond));
      expect(result).toMatchObject({ status: 'failed', reason: 'slippage' });
      expect(await holdings(signer)).toEqual(before);
    });

    it('answers lookup of an id it never saw with null', async () => {
      expect(await venue.lookup(randomUUID(), chain)).toBeNull();
    });
  });
}
