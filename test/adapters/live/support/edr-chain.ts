import {
  ContractDecoder,
  EdrContext,
  L1_CHAIN_TYPE,
  MineOrdering,
  l1GenesisState,
  l1HardforkLatest,
  l1HardforkToString,
  l1ProviderFactory,
  type Provider,
} from '@nomicfoundation/edr';
import { custom, hexToBytes, keccak256, type Address, type Hex, type Transport } from 'viem';

/** EDR wants one context per process. */
let context: Promise<EdrContext> | undefined;
function edrContext(): Promise<EdrContext> {
  context ??= (async () => {
    const created = new EdrContext();
    await created.registerProviderFactory(L1_CHAIN_TYPE, l1ProviderFactory());
    return created;
  })();
  return context;
}

/**
 * An in-process EVM (Hardhat's EDR) behind a viem `custom` transport: automine, the
 * given chain id, funded accounts. Counts the raw transactions that reached it, and can
 * lose the next broadcasts as a node that drops them from its mempool would.
 */
export class EdrChain {
  /** Hashes of raw transactions EDR accepted. */
  readonly broadcasts: string[] = [];
  /** Raw broadcasts to answer with a hash but never apply. */
  dropNextSends = 0;
  readonly transport: Transport;
  private id = 0;

  private constructor(private readonly provider: Provider) {
    this.transport = custom({ request: ({ method, params }) => this.request(method, params) });
  }

  /**
   * `revertingCalls`: a reverted `eth_call` is a JSON-RPC error, as geth and other real nodes
   * answer it (by default EDR answers it with empty data, `0x`).
   */
  static async start(options: {
    chainId: number;
    funded: Array<{ address: Address; wei: bigint }>;
    revertingCalls?: boolean;
  }): Promise<EdrChain> {
    const hardfork = l1HardforkLatest();
    const provider = await (await edrContext()).createProvider(
      L1_CHAIN_TYPE,
      {
        allowBlocksWithSameTimestamp: false,
        allowUnlimitedContractSize: false,
        bailOnCallFailure: options.revertingCalls ?? false,
        bailOnTransactionFailure: false,
        chainId: BigInt(options.chainId),
        coinbase: hexToBytes('0x00000000000000000000000000000000000c0ffe'),
        // Keep the default gas limit at or below 2^24 (EIP-7825 caps a transaction's gas at 2^24 on newer forks).
        defaultTransactionGasLimit: 16_000_000n,
        genesisState: [
          ...l1GenesisState(hardfork),
          ...options.funded.map(({ address, wei }) => ({ address: hexToBytes(address), balance: wei })),
        ],
        hardfork: l1HardforkToString(hardfork),
        initialBaseFeePerGas: 1_000_000_000n,
        minGasPrice: 0n,
        mining: { autoMine: true, memPool: { order: MineOrdering.Priority } },
        network: { genesisBlockGasLimit: 30_000_000n },
        networkId: BigInt(options.chainId),
        observability: {},
        ownedAccounts: [],
        precompileOverrides: [],
      },
      { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => undefined },
      { subscriptionCallback: () => undefined },
      new ContractDecoder(),
    );
    return new EdrChain(provider);
  }

  /** Sends one JSON-RPC request straight to EDR (test setup: mining, state changes). */
  async request(method: string, params?: unknown): Promise<unknown> {
    if (method === 'eth_sendRawTransaction' && this.dropNextSends > 0) {
      this.dropNextSends--;
      return keccak256((params as [Hex])[0]);
    }
    const response = await this.provider.handleRequest(JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params: params ?? [] }));
    const data = (typeof response.data === 'string' ? JSON.parse(response.data) : response.data) as {
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    if (data.error) throw Object.assign(new Error(data.error.message), { code: data.error.code, data: data.error.data });
    if (method === 'eth_sendRawTransaction') this.broadcasts.push(data.result as string);
    return data.result;
  }
}
