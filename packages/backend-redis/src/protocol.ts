import type { RedisClient } from './connection.js';
import { luaScript, runScript, type LuaScript } from './scripts.js';

/**
 * The typed store protocol: every script is declared once here, by name — its KEYS and ARGV as
 * fields, its replies as named kinds with named fields — and both sides are derived from that one
 * declaration. The TypeScript side encodes objects into positions and decodes replies into tagged
 * objects; the Lua side gets generated bindings (`K.name`, `A.name`, `REPLY.kind{...}`), so no
 * script reads `ARGV[21]` and adding a field renumbers nothing. A script with an `item` takes any
 * number of items in one call (keys and args repeated per item, run in order): the shape admission
 * and settlement are coalesced into.
 */

type Names = readonly string[];
export type FieldValue = string | number;
type FieldsOf<N extends Names> = { readonly [F in N[number]]: FieldValue };
type KeysOf<N extends Names> = { readonly [F in N[number]]: string };
type ValueKind = 'number' | 'string';
type ReplySpec = Readonly<Record<string, { readonly code: number; readonly fields: Readonly<Record<string, ValueKind>> }>>;

/** A reply decoded: its kind, and each field as the kind its declaration names. */
export type Reply<R extends ReplySpec> = {
  [Kind in keyof R & string]: { readonly kind: Kind } & { readonly [F in keyof R[Kind]['fields']]: R[Kind]['fields'][F] extends 'number' ? number : string };
}[keyof R & string];

export interface ItemSpec<RK extends Names, RA extends Names, SK extends Names, SA extends Names> {
  /** An item's own KEYS and ARGV. */
  readonly keys: RK;
  readonly args: RA;
  /**
   * KEYS and ARGV items share (a source's books and limits): sent once per call for every distinct
   * set its items name, each item carrying only its set's index.
   */
  readonly shared?: { readonly keys: SK; readonly args: SA };
}

export interface ProtocolSpec<HK extends Names, HA extends Names, RK extends Names, RA extends Names, R extends ReplySpec, SK extends Names = [], SA extends Names = []> {
  readonly label: string;
  /** KEYS and ARGV once per call (`K`, `A` in Lua). */
  readonly keys: HK;
  readonly args: HA;
  /** KEYS and ARGV once per item; Lua reads item i with `item(i)`, whose `K`, `A` fall back to its shared set's, then to the call's. */
  readonly item?: ItemSpec<RK, RA, SK, SA>;
  readonly replies: R;
  /** Shared Lua functions, then the body: for a script with items, the body answers `ITEMS` replies in order. */
  readonly lua: string;
}

export interface Call<HK extends Names, HA extends Names> {
  readonly keys: KeysOf<HK>;
  readonly args: FieldsOf<HA>;
}
/** An item: its own fields, and the shared set it names (the same object for every item of the set). */
export type Item<RK extends Names, RA extends Names, SK extends Names = [], SA extends Names = []> = Call<RK, RA> & { readonly shared?: Call<SK, SA> };

/** The item a protocol with items takes, its shared set, and the reply a protocol answers. */
export type ItemOf<P> = P extends ScriptProtocol<any, any, infer RK, infer RA, any, infer SK, infer SA> ? Item<RK, RA, SK, SA> : never;
export type SharedOf<P> = P extends ScriptProtocol<any, any, any, any, any, infer SK, infer SA> ? Call<SK, SA> : never;
export type ReplyOf<P> = P extends ScriptProtocol<any, any, any, any, infer R, any, any> ? Reply<R> : never;

const LUA_NAME = /^[a-z][A-Za-z0-9]*$/;
const LABEL = /^[a-z][a-z0-9_]*$/;

export class ScriptProtocol<HK extends Names, HA extends Names, RK extends Names, RA extends Names, R extends ReplySpec, SK extends Names = [], SA extends Names = []> {
  readonly script: LuaScript;
  readonly #spec: ProtocolSpec<HK, HA, RK, RA, R, SK, SA>;
  readonly #kindOf = new Map<number, { kind: string; fields: [string, ValueKind][] }>();

  constructor(spec: ProtocolSpec<HK, HA, RK, RA, R, SK, SA>) {
    this.#spec = spec;
    const { keys, args, item: itemSpec, replies } = spec;
    if (!LABEL.test(spec.label)) throw new RangeError(`script label ${JSON.stringify(spec.label)} must be lower snake case`);
    const fieldNames = [keys, args, itemSpec?.keys ?? [], itemSpec?.args ?? [], itemSpec?.shared?.keys ?? [], itemSpec?.shared?.args ?? [], Object.keys(replies)];
    for (const name of fieldNames.flat()) if (!LUA_NAME.test(name)) throw new RangeError(`${spec.label}: field ${name} is not a Lua identifier`);
    for (const [kind, { code, fields }] of Object.entries(replies)) {
      if (this.#kindOf.has(code)) throw new RangeError(`${spec.label}: reply code ${code} declared twice`);
      this.#kindOf.set(code, { kind, fields: Object.entries(fields) });
    }
    if (itemSpec !== undefined && itemSpec.shared === undefined && itemSpec.args.length === 0) throw new RangeError(`${spec.label}: an item needs at least one arg`);
    this.script = luaScript(spec.label, `${this.bindings()}\n${spec.lua}`);
  }

  get spec(): ProtocolSpec<HK, HA, RK, RA, R, SK, SA> {
    return this.#spec;
  }

  /** The generated Lua that names KEYS, ARGV and the replies (read by the protocol's own test). */
  bindings(): string {
    const { keys, args, item: itemSpec, replies } = this.#spec;
    const table = (names: Names, from: string, base: string) =>
      `{${names.map((name, i) => `${name} = ${from}[${base}${i + 1}]`).join(', ')}}`;
    // Reading a name the declaration lacks is an error, not a silent nil (it costs nothing on a declared name).
    const lines = [
      `local function undeclared(what) return {__index = function(_, name) error('${this.#spec.label}: undeclared ' .. what .. ' ' .. tostring(name)) end} end`,
      `local K = setmetatable(${table(keys, 'KEYS', '')}, undeclared('key'))`,
      `local A = setmetatable(${table(args, 'ARGV', '')}, undeclared('arg'))`,
    ];
    if (itemSpec?.shared !== undefined) lines.push(...this.#sharedItems(itemSpec as ItemSpec<RK, RA, Names, Names> & { shared: { keys: Names; args: Names } }, table));
    else if (itemSpec !== undefined) {
      lines.push(
        `local ITEMS = (#ARGV - ${args.length}) / ${itemSpec.args.length}`,
        'local K_OF, A_OF = {__index = K}, {__index = A}',
        'local function item(i)',
        `  local k, a = ${keys.length} + (i - 1) * ${itemSpec.keys.length}, ${args.length} + (i - 1) * ${itemSpec.args.length}`,
        `  return setmetatable(${table(itemSpec.keys, 'KEYS', 'k + ')}, K_OF), setmetatable(${table(itemSpec.args, 'ARGV', 'a + ')}, A_OF)`,
        'end',
      );
    }
    const constructors = Object.entries(replies).map(
      ([kind, { code, fields }]) => `  ${kind} = function(r) return {${[String(code), ...Object.keys(fields).map((f) => `r.${f}`)].join(', ')}} end`,
    );
    lines.push(`local REPLY = setmetatable({\n${constructors.join(',\n')}\n}, undeclared('reply'))`);
    return lines.join('\n');
  }

  /**
   * KEYS: the call's, each shared set's, each item's own. ARGV: the call's, the number of shared
   * sets, each set's, then per item its set's index and its own. A set's tables are built once.
   */
  #sharedItems(
    itemSpec: ItemSpec<RK, RA, Names, Names> & { shared: { keys: Names; args: Names } },
    table: (names: Names, from: string, base: string) => string,
  ): string[] {
    const { keys, args } = this.#spec;
    const { shared } = itemSpec;
    const perItem = itemSpec.args.length + 1;
    return [
      `local SETS = tonumber(ARGV[${args.length + 1}])`,
      `local ITEM_ARGS, ITEM_KEYS = ${args.length + 1} + SETS * ${shared.args.length}, ${keys.length} + SETS * ${shared.keys.length}`,
      `local ITEMS = (#ARGV - ITEM_ARGS) / ${perItem}`,
      'local K_OF, A_OF, sets = {__index = K}, {__index = A}, {}',
      'local function set_of(s)',
      '  local found = sets[s]',
      '  if not found then',
      `    local k, a = ${keys.length} + (s - 1) * ${shared.keys.length}, ${args.length + 1} + (s - 1) * ${shared.args.length}`,
      `    local sk, sa = setmetatable(${table(shared.keys, 'KEYS', 'k + ')}, K_OF), setmetatable(${table(shared.args, 'ARGV', 'a + ')}, A_OF)`,
      '    found = {keys = sk, args_of = {__index = sa}, keys_of = {__index = sk}}',
      '    sets[s] = found',
      '  end',
      '  return found',
      'end',
      'local function item(i)',
      `  local a = ITEM_ARGS + (i - 1) * ${perItem}`,
      '  local s = set_of(tonumber(ARGV[a + 1]))',
      itemSpec.keys.length === 0
        ? '  local own_keys = s.keys'
        : `  local own_keys = setmetatable(${table(itemSpec.keys, 'KEYS', `ITEM_KEYS + (i - 1) * ${itemSpec.keys.length} + `)}, s.keys_of)`,
      `  return own_keys, setmetatable(${table(itemSpec.args, 'ARGV', 'a + 1 + ')}, s.args_of)`,
      'end',
    ];
  }

  /** KEYS and ARGV of one call, in the declared order. */
  encode(call: Call<HK, HA>, items: readonly Item<RK, RA, SK, SA>[] = []): { keys: string[]; args: FieldValue[] } {
    const { keys, args, item: itemSpec, label } = this.#spec;
    const outKeys = keys.map((name) => field(call.keys, name, label) as string);
    const outArgs = args.map((name) => field(call.args, name, label));
    const shared = itemSpec?.shared;
    if (shared === undefined) {
      for (const it of items) {
        for (const name of itemSpec!.keys) outKeys.push(field(it.keys, name, label) as string);
        for (const name of itemSpec!.args) outArgs.push(field(it.args, name, label));
      }
      return { keys: outKeys, args: outArgs };
    }
    const sets = new Map<Call<SK, SA>, number>();
    const setArgs: FieldValue[] = [];
    const ownKeys: string[] = [];
    const ownArgs: FieldValue[] = [];
    for (const it of items) {
      const set = it.shared;
      if (set === undefined) throw new RangeError(`${label}: an item names no shared set`);
      let index = sets.get(set);
      if (index === undefined) {
        index = sets.size + 1;
        sets.set(set, index);
        for (const name of shared.keys) outKeys.push(field(set.keys, name, label) as string);
        for (const name of shared.args) setArgs.push(field(set.args, name, label));
      }
      for (const name of itemSpec!.keys) ownKeys.push(field(it.keys, name, label) as string);
      ownArgs.push(index);
      for (const name of itemSpec!.args) ownArgs.push(field(it.args, name, label));
    }
    outKeys.push(...ownKeys);
    outArgs.push(sets.size, ...setArgs, ...ownArgs);
    return { keys: outKeys, args: outArgs };
  }

  decode(reply: unknown): Reply<R> {
    const code = Array.isArray(reply) ? Number(reply[0]) : NaN;
    const declared = this.#kindOf.get(code);
    if (declared === undefined || (reply as unknown[]).length !== declared.fields.length + 1) return this.#unexpected(reply);
    const decoded: Record<string, FieldValue> = { kind: declared.kind };
    declared.fields.forEach(([name, kind], i) => {
      const value = (reply as unknown[])[i + 1];
      if (kind === 'string') {
        decoded[name] = String(value);
      } else {
        const n = Number(value);
        if (!Number.isFinite(n)) this.#unexpected(reply);
        decoded[name] = n;
      }
    });
    return decoded as Reply<R>;
  }

  /** Runs one call (over `items`, for a script that answers them together); its reply decoded. */
  async run(redis: RedisClient, call: Call<HK, HA>, timeoutMs: number, items: readonly Item<RK, RA, SK, SA>[] = []): Promise<Reply<R>> {
    const { keys, args } = this.encode(call, items);
    return this.decode(await runScript(redis, this.script, keys, args, timeoutMs));
  }

  /** Runs one call over `items`, answering each item's reply in their order. */
  async runItems(redis: RedisClient, call: Call<HK, HA>, items: readonly Item<RK, RA, SK, SA>[], timeoutMs: number): Promise<Reply<R>[]> {
    const { keys, args } = this.encode(call, items);
    const replies = await runScript(redis, this.script, keys, args, timeoutMs);
    if (!Array.isArray(replies) || replies.length !== items.length) return this.#unexpected(replies);
    return replies.map((reply) => this.decode(reply));
  }

  #unexpected(reply: unknown): never {
    throw new Error(`unexpected ${this.#spec.label} reply ${JSON.stringify(reply)}`);
  }
}

function field(values: Readonly<Record<string, FieldValue>>, name: string, label: string): FieldValue {
  const value = values[name];
  if (value === undefined) throw new RangeError(`${label}: field ${name} missing`);
  return value;
}

/** Declares a script's protocol (the const type parameters keep the field names as literal types). */
export function scriptProtocol<
  const HK extends Names,
  const HA extends Names,
  const R extends ReplySpec,
  const RK extends Names = [],
  const RA extends Names = [],
  const SK extends Names = [],
  const SA extends Names = [],
>(spec: ProtocolSpec<HK, HA, RK, RA, R, SK, SA>): ScriptProtocol<HK, HA, RK, RA, R, SK, SA> {
  return new ScriptProtocol(spec);
}
