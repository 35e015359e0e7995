/**
 * Time is data: everything that needs "now" or a timer gets it from a Clock, so tests
 * can drive time and nothing depends on an in-memory timer surviving a restart.
 */
export interface ClockPort {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `fn` once after `ms`; returns a function that cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}
