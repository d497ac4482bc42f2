/** Every script the package runs, for the checks that cover them all. */
import { ACQUIRE, RECORD, RELEASE_PROBE, SNAPSHOT } from '../src/lua/breaker.js';
import { BUDGET_STATUS } from '../src/lua/budget.js';
import { CACHE_GET, CACHE_SET } from '../src/lua/cache.js';
import { REBOOK } from '../src/lua/holdings.js';
import { RECORD_DELETE, RECORD_GET, RECORD_SET } from '../src/lua/records.js';
import { ADMIT, FINISH, LEAVE_LINE } from '../src/lua/governor.js';
import { ENTER, RELEASE, SETTLE, SETTLE_RELEASE, STATS } from '../src/lua/limiter.js';

export const PROTOCOLS = [ACQUIRE, RECORD, RELEASE_PROBE, SNAPSHOT, BUDGET_STATUS, ADMIT, FINISH, LEAVE_LINE, ENTER, RELEASE, SETTLE, SETTLE_RELEASE, STATS, REBOOK, CACHE_GET, CACHE_SET, RECORD_GET, RECORD_SET, RECORD_DELETE];
