import type { CompressionSample } from '../../adapters/lmdb/lmdb-compression.js';
import { SAFETY_CHECKS } from '../../agents/trading/safety-path.js';

/**
 * Documents shaped as the service stores them, of which the embedded store makes the LZ4
 * dictionary of a new data directory (adapters/lmdb/lmdb-compression.ts). What a value shares
 * with them (property names, states, event types, mints, id prefixes) is coded as a reference
 * into the dictionary instead of spelt out: an agent's record of ~470 bytes stores in ~190.
 *
 * Changing these changes only the dictionary of data directories created afterwards: each
 * keeps the one it was made with. Ids and hashes are made up; their prefixes are what repeats.
 * Order matters: when they exceed the dictionary's size only the last are kept, so the
 * documents held by the hundred thousand (agents, strategies, their journals, schedules and
 * audit segments) come last.
 */
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOL = 'So11111111111111111111111111111111111111112';
const AGENT = 'agt_q3Lx9VbN2kTfWm7R';
const USER = 'usr_Hd72nQwLp0ZsYc4Kx9TbRm';
const ORDER = 'ord_Vt8sKq2LmNx4Pz7Rw1YcHb0D';
const AT = 1_796_303_992_670;
// An auto-approved order keeps every check's name and then this one.
const CHECKS = [...SAFETY_CHECKS, 'auto_approved'];
const ORDER_INPUT = {
  orderId: ORDER,
  subjectType: 'agent',
  subjectId: AGENT,
  userId: USER,
  chain: 'solana',
  side: 'swap',
  inputMint: USDC,
  outputMint: SOL,
  inputSymbol: 'USDC',
  outputSymbol: 'SOL',
  inputDecimals: 6,
  outputDecimals: 9,
  amountIn: '1000000',
  expectedOut: '7255191',
  minOut: '7182639',
  slippageBps: 100,
  priceImpactBps: 0,
  valueUsd: 1,
  feeAmount: '3000',
  venue: 'paper',
  walletId: 'wal_Jk4mT8qZr2Vn6Xc0Lp3Ws9Ay',
  walletAddress: 'CdkCjAwZvpWJLZuew5oH13ieQdvpstfMBCJTgqJwcMTo',
  channel: 'mcp',
  checks: CHECKS,
  createdAt: AT,
  requestDigest: 'swap:44373446b8c6bf48b3daba23407741ad5975faec97bc496d955669b5ab325e19',
};
const FILL = {
  filledOut: '7255191',
  txSignature: '55p6LyhT6SsDo8ypkCD5rgqRV5pudKDWZqrH443D5Hdvxx4uSB3r3VQnkADPj2dxvTWjxpqjzXrSPTPRc7xUVGMP',
};
const snapshot = (value: string, context: object) => ({
  status: value === 'filled' ? 'done' : 'active',
  value,
  historyValue: {},
  context,
  children: {},
});
const ORDER_IDS = ['ord_9bEogaMu_Ojn5-QmedwOtaTN', 'ord_ux_2HaZzUaOqT8gTcfdRcfvh', 'ord_SDnLGmVQ8hf6hebnlLC9F3sa'];
const STRATEGY_INPUT = {
  strategyId: 'dca_ymmMacGRq79DOcOv',
  name: 'weekly SOL',
  subjectType: 'agent',
  subjectId: AGENT,
  userId: USER,
  chain: 'solana',
  inputToken: USDC,
  outputToken: SOL,
  inputSymbol: 'USDC',
  outputSymbol: 'SOL',
  inputDecimals: 6,
  outputDecimals: 9,
  amount: '1',
  interval: { text: 'every 1 hours', everyMs: 3_600_000 },
  startAt: AT + 3_600_000,
  catchUp: true,
  maxFailuresInRow: 3,
  createdAt: AT,
};
const auditEntry = (seq: number, operation: string) => ({
  chain: {
    seq,
    prev: '80da261f11aad10ad68c4988a3f07d6f6819ba1b103039bb313e8d85a210939f',
    prevAt: AT,
    hash: '2b1a5a9a668d594fee244991b7f4fe760117d07b9b0a1db0e843847b78344504',
  },
  at: AT + seq,
  surface: 'rest',
  operation,
  principal: { type: 'session', id: USER },
  scope: 'manage',
  argsDigest: '4699ccc7cde030a4cfb15a76779ebd5ff54025658714c1e4f60d185e83e3f6f0',
  outcome: 'ok',
  latencyMs: 6,
  requestId: '0d10a581-5030-4f26-aedc-67104495176d',
  correlationId: '0d10a581-5030-4f26-aedc-67104495176d',
  subject: `agent:${AGENT}`,
});

export const STORE_COMPRESSION_SAMPLES: readonly CompressionSample[] = [
  {
    id: 'ses_sDmatOXdKeOS9qg3cLtThw',
    indexes: { state: 'active', userId: USER },
    data: {
      machineVersion: 1,
      snapshot: snapshot('active', {
        sessionId: 'ses_sDmatOXdKeOS9qg3cLtThw',
        userId: USER,
        refreshJti: 'QCXpKbL0IJ1GxcQhO6BMSA',
        createdAt: AT,
      }),
    },
  },
  {
    id: 'key_o0EIEh0dAQMqEMI3',
    indexes: { state: 'active', secretHash: '474d1cdadb586f9ea491b94716d22123d2b6108b608646a01cc9ecbb776c660f', owner: `agent:${AGENT}` },
    data: {
      machineVersion: 1,
      snapshot: snapshot('active', {
        keyId: 'key_o0EIEh0dAQMqEMI3',
        ownerType: 'agent',
        ownerId: AGENT,
        name: 'trade-key',
        scope: 'trade',
        prefix: 'mcpk_pZztBq0E',
      }),
    },
  },
  {
    id: `agent:${AGENT}|solana|${SOL}`,
    indexes: { subject: `agent:${AGENT}` },
    data: {
      subject: `agent:${AGENT}`,
      chain: 'solana',
      token: SOL,
      symbol: 'SOL',
      decimals: 9,
      amount: '5.217655761',
      amountBase: '5217655761',
      costBasisUsd: 687.17,
      realizedPnlUsd: 0,
      applied: ORDER_IDS,
      updatedAt: AT,
    },
  },
  {
    id: 'solana:CdkCjAwZvpWJLZuew5oH13ieQdvpstfMBCJTgqJwcMTo',
    data: { balances: { [USDC]: '4999970000000', [SOL]: '5000000217655761' }, applied: ORDER_IDS },
  },
  {
    id: ORDER,
    data: {
      clientOrderId: ORDER,
      chain: 'solana',
      address: ORDER_INPUT.walletAddress,
      inputMint: USDC,
      outputMint: SOL,
      amountIn: '1000000',
      minOut: '7182639',
      slippageBps: 100,
      outcome: { status: 'filled', ...FILL, at: AT },
    },
  },
  {
    id: 'xbdVdlffiO6CFv4sRE2Ta0jJyJPnQEZQTuuAGR22AwE',
    data: {
      state: 'done',
      fingerprint: 'trading_solana_aggregator_swap:k1:f86261427cbf989595e71c5e1d5c36ac1130cbdc81781df002bebca09470d8db',
      leaseUntil: 0,
      outcome: { ok: true, value: { order_id: ORDER, agentId: AGENT, ...ORDER_INPUT, valueUsd: '1.00', status: 'filled', ...FILL } },
    },
  },
  {
    id: ORDER,
    indexes: {
      state: 'filled',
      subject: `agent:${AGENT}`,
      subjectTime: `agent:${AGENT}|998203696006499`,
      subjectStatus: `agent:${AGENT}|filled|998203696006499`,
      subjectOpen: `agent:${AGENT}|closed`,
    },
    data: {
      machineVersion: 1,
      snapshot: snapshot('filled', { ...ORDER_INPUT, status: 'filled', updatedAt: AT, approvedAt: AT, submittedAt: AT, ...FILL }),
    },
    journal: {
      event: {
        type: 'xstate.init',
        input: { ...ORDER_INPUT, requiresApproval: false },
        continuedWith: [{ type: 'order.fill', at: AT, ...FILL }],
      },
      state: 'filled',
      at: AT,
    },
  },
  {
    id: 'none',
    indexes: { pending: 1, signedAt: AT },
    data: {
      seq: 19,
      hash: '73dc183f4ab581f27599351641e6a92735d041e3d9a8cd385fb15a5f8033a76b',
      at: AT,
      checkpoint: {
        seq: 1,
        hash: '6c9b6d219e59666aef1b3515b0a556f88813e54d29fb617fcf65889e208dbca9',
        at: AT,
        jws: 'eyJhbGciOiJFUzI1NiIsImtpZCI6Ii15UDk0bjFLamFROW5URWwzbGpQcHBlQ2pMc19XckIwcTZtNzB6SmlNRDgifQ',
      },
    },
  },
  {
    id: '0dfc01d43220680de999999999997',
    indexes: { subject: `agent:${AGENT}` },
    data: { entries: [auditEntry(2, 'trading_dca_strategy_create'), auditEntry(1, 'agent_create')] },
  },
  {
    id: 'repeat:dca:dca_ymmMacGRq79DOcOv',
    indexes: { wakeAt: AT },
    data: {
      kind: 'repeat',
      id: 'dca:dca_ymmMacGRq79DOcOv',
      address: { type: 'dca-strategy', id: 'dca_ymmMacGRq79DOcOv' },
      event: { type: 'dca.tick' },
      everyMs: 3_600_000,
      startAt: AT,
      dueAt: AT,
      attempts: 0,
    },
  },
  {
    id: 'dca_ymmMacGRq79DOcOv',
    indexes: { state: 'active', subject: `agent:${AGENT}` },
    data: {
      machineVersion: 5,
      snapshot: snapshot('active', {
        ...STRATEGY_INPUT,
        buys: 0,
        spentBase: '0',
        acquiredBase: '0',
        spentUsd: 0,
        failuresInRow: 0,
        failures: 0,
        skipped: 0,
        recentDueAts: [],
        coveredUntil: 0,
        inFlight: [],
        updatedAt: AT,
      }),
    },
    journal: { event: { type: 'xstate.init', input: STRATEGY_INPUT }, state: 'active', at: AT },
  },
  {
    id: AGENT,
    indexes: { state: 'active', ownerId: USER, publicId: 'pub_qDnAH-OwFJYqwRPu8cpm7jBU' },
    data: {
      machineVersion: 2,
      snapshot: snapshot('active', {
        agentId: AGENT,
        publicId: 'pub_qDnAH-OwFJYqwRPu8cpm7jBU',
        ownerId: USER,
        name: 'trader',
        createdAt: AT,
        tradingEnabled: false,
      }),
    },
    journal: {
      event: {
        type: 'xstate.init',
        input: { agentId: AGENT, publicId: 'pub_qDnAH-OwFJYqwRPu8cpm7jBU', ownerId: USER, name: 'trader', createdAt: AT },
      },
      state: 'active',
      at: AT,
    },
  },
];
