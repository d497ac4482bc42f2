// Opens the batch store the env names (PGW_BATCH__ENGINE, …) as `pgw serve` does, and prints its class;
// @pgw/batch is here because @pgw/server brought it.
import { openBatchStore, readBatchSettings } from '@pgw/batch';

const store = await openBatchStore(readBatchSettings(process.env));
console.log(JSON.stringify({ store: store.constructor.name }));
await store.close();
