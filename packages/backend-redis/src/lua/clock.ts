/**
 * Lua prelude shared by every script. Time is the Redis server's `TIME`, so workers with skewed
 * clocks agree. Test seam: a non-empty `injected` argument (the client's injected `now`, used only
 * by tests and contract suites) replaces it.
 */
export const PRELUDE_LUA = `
local function clock(injected)
  if injected ~= '' then return tonumber(injected) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Numbers cross into strings (stored or returned) with 17 digits so they round-trip exactly.
local function num(x)
  return string.format('%.17g', x)
end

local function int(x)
  return string.format('%d', x)
end
`;
