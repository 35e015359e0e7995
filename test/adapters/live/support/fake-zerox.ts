import { encodeFunctionData, getAddress, type Address } from 'viem';
import { usdReference } from '../../../../adapters/evm/evm-tokens.js';
import { NATIVE_EVM_ADDRESS } from '../../../../kernel/ports/venue.port.js';
import { FakeHttpServer, json, type SeenRequest } from './fake-http-server.js';
import { TEST_TOKEN_ABI } from './test-token.js';

const ZEROX_FEE_BPS = 15n;
/** Test token (6 decimals) per wei: 1 ETH = 3,000 TUSD. */
const TUSD_PER_ETH = 3_000_000_000n;
const ETH = 10n ** 18n;

/**
 * The 0x Swap API v2 (allowance-holder) over one pair on an in-process chain: selling ETH
 * for the test token. The firm quote's transaction calls the token's payable `mint` for the
 * taker with the ETH as value, so executing it really swaps ETH for tokens on chain.
 * Selling the token (for ETH or USDC) is priced, and quoted with an allowance issue.
 */
export class FakeZeroEx {
  /** What the quote's transaction really mints, given `buyAmount` (default: 7 more). */
  deliver: (buyAmount: bigint) => bigint = (buy) => buy + 7n;
  /** Calldata override for the swap transaction (e.g. one that reverts). */
  calldata?: `0x${string}`;
  /** Issues the firm quote reports. */
  issues: { allowance: unknown; balance: unknown } = { allowance: null, balance: null };

  private readonly token: Address;

  private constructor(
    readonly server: FakeHttpServer,
    token: Address,
  ) {
    this.token = getAddress(token);
    this.healthy();
  }

  static async start(token: Address): Promise<FakeZeroEx> {
    return new FakeZeroEx(await FakeHttpServer.start(), token);
  }

  healthy(): void {
    this.server.route('GET', '/swap/allowance-holder/price', (request, res) => json(...this.answer(request, false))(request, res));
    this.server.route('GET', '/swap/allowance-holder/quote', (request, res) => json(...this.answer(request, true))(request, res));
    this.server.route('GET', '/sources', json(200, { sources: ['Uniswap_V3', 'Aerodrome_V2'], zid: '0x1' }));
  }

  private answer(request: SeenRequest, firm: boolean): [number, unknown] {
    const sellToken = getAddress(request.query.get('sellToken')!);
    const buyToken = getAddress(request.query.get('buyToken')!);
    const sellAmount = BigInt(request.query.get('sellAmount')!);
    const slippageBps = BigInt(request.query.get('slippageBps') ?? '100');
    const usdc = usdReference('base').address as Address;
    const known = [NATIVE_EVM_ADDRESS, this.token, usdc];
    if (!known.includes(sellToken) || !known.includes(buyToken))
      return [400, { name: 'TOKEN_NOT_SUPPORTED', message: 'Token is not supported', data: { zid: '0x2' } }];
    if (sellAmount > 1_000n * ETH) return [200, { liquidityAvailable: false, zid: '0x3' }];
    const gross = this.rate(sellToken, buyToken, sellAmount);
    const fee = (gross * ZEROX_FEE_BPS) / 10_000n;
    const buyAmount = gross - fee;
    const body: Record<string, unknown> = {
      blockNumber: '20850142',
      buyAmount: String(buyAmount),
      buyToken,
      fees: { integratorFee: null, zeroExFee: { amount: String(fee), token: buyToken, type: 'volume' }, gasFee: null },
      issues: { ...this.issues, simulationIncomplete: false, invalidSourcesPassed: [] },
      liquidityAvailable: true,
      minBuyAmount: String((buyAmount * (10_000n - slippageBps)) / 10_000n),
      route: { fills: [{ from: sellToken, to: buyToken, source: 'Uniswap_V3', proportionBps: '10000' }], tokens: [] },
      sellAmount: String(sellAmount),
      sellToken,
      totalNetworkFee: '21080000000000',
      zid: '0x4',
    };
    if (firm) {
      const taker = getAddress(request.query.get('taker')!);
      body.transaction = {
        to: this.token,
        data: this.calldata ?? encodeFunctionData({ abi: TEST_TOKEN_ABI, functionName: 'mint', args: [taker, this.deliver(buyAmount)] }),
        gas: '200000',
        gasPrice: '2000000000',
        value: sellToken === NATIVE_EVM_ADDRESS ? String(sellAmount) : '0',
      };
    }
    return [200, body];
  }

  /** ETH↔TUSD at 3,000; TUSD and USDC at par. */
  private rate(sell: Address, buy: Address, amount: bigint): bigint {
    if (sell === NATIVE_EVM_ADDRESS) return (amount * TUSD_PER_ETH) / ETH;
    if (buy === NATIVE_EVM_ADDRESS) return (amount * ETH) / TUSD_PER_ETH;
    return amount;
  }
}
