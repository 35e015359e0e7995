/**
 * Redis layout and the publish script of the Redis event bus.
 *
 * Per stream: a counter (`…:seq`), a Redis Stream (`…:log`) whose entry ids are `<seq>-0`,
 * and a pub/sub channel (`…:live`). The explicit `<seq>-0` id makes "replay after N" a plain
 * `XRANGE log (N+1)-0 +` (a radix-tree seek, no secondary index), and XADD itself refuses an
 * id that does not grow, so a counter bug fails loudly instead of reordering history.
 */

export interface EventBusKeys {
  seq: string;
  log: string;
  channel: string;
}

/**
 * The `{stream}` hash tag keeps a stream's keys in one cluster slot, which a multi-key
 * script requires; everything before it is shared, so the tag is always the same.
 */
export function eventBusKeys(keyPrefix: string, stream: string): EventBusKeys {
  const base = `${keyPrefix}bus:{${stream}}`;
  return { seq: `${base}:seq`, log: `${base}:log`, channel: `${base}:live` };
}

/** Entries looked at per publish when trimming; each publish adds one, so backlogs drain. */
export const TRIM_BATCH = 100;

/**
 * KEYS: seq, log. ARGV: channel, body (JSON object `{type,data,at}`), at (= now, ms),
 * minCount, maxAgeMs, trimBatch. Returns the new id.
 *
 * One script so that numbering, appending, trimming and announcing are atomic: two
 * processes can never interleave between INCR and XADD, and pub/sub order equals id order.
 */
export const PUBLISH_SCRIPT = `
local seq = redis.call('INCR', KEYS[1])
if seq == 1 and redis.call('EXISTS', KEYS[2]) == 1 then
  -- The counter was lost (evicted, deleted) but the log was not: continue after the
  -- log's last id, because ids are never reused.
  local info = redis.call('XINFO', 'STREAM', KEYS[2])
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then
      local top = tonumber(string.match(info[i + 1], '^(%d+)'))
      if top and top >= seq then
        seq = top + 1
        redis.call('SET', KEYS[1], string.format('%d', seq))
      end
    end
  end
end
local id = string.format('%d', seq)
redis.call('XADD', KEYS[2], id .. '-0', 'at', ARGV[3], 'body', ARGV[2])

-- Drop from the oldest end only entries that are beyond the latest minCount AND older
-- than maxAgeMs; stop at the first recent one (keeps more, never less, if clocks skew).
local excess = redis.call('XLEN', KEYS[2]) - tonumber(ARGV[4])
if excess > 0 then
  local cutoff = tonumber(ARGV[3]) - tonumber(ARGV[5])
  local oldest = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', math.min(excess, tonumber(ARGV[6])))
  local last = nil
  for _, entry in ipairs(oldest) do
    local at = nil
    local fields = entry[2]
    for j = 1, #fields, 2 do
      if fields[j] == 'at' then at = tonumber(fields[j + 1]) end
    end
    -- An entry without a readable time is garbage: it may go (still only beyond minCount).
    if at ~= nil and at >= cutoff then break end
    last = entry[1]
  end
  if last then
    local ms, s = string.match(last, '^(%d+)-(%d+)$')
    -- MINID drops ids below the threshold: the id just after the last old entry.
    redis.call('XTRIM', KEYS[2], 'MINID', ms .. '-' .. string.format('%d', tonumber(s) + 1))
  end
end

-- The body is spliced rather than re-encoded: cjson would turn [] into {} and mangle numbers.
redis.call('PUBLISH', ARGV[1], '{"id":' .. id .. ',' .. string.sub(ARGV[2], 2))
return seq
`;
