/**
 * A bounded cache of what a function gives for a name: argument names and object keys repeat from
 * call to call, so the secret-name rule and the audit log's key redaction remember their answers.
 * Names are hostile (any number, any length), so the cache holds at most {@link NAME_CACHE_MAX}
 * names, starting over when full, and never a name longer than {@link CACHED_NAME_MAX}. Edge (the
 * only state is each cache's own map).
 *
 * Source: SPEC §3.5 (redaction on the audited path).
 * @module
 */

/** Names remembered at most by one cache (it then starts over). */
export const NAME_CACHE_MAX = 1024;

/** The longest name a cache keeps, in UTF-16 code units (one could hold megabytes alive). */
export const CACHED_NAME_MAX = 64;

/**
 * Wraps a function of a name with a bounded cache of its results.
 *
 * Source: SPEC §3.5.
 * @param compute - A pure function of the name; its result is never `undefined`.
 * @returns The same function, remembered for names up to {@link CACHED_NAME_MAX} code units.
 * @example const isSecret = cachedByName((name) => name.includes("token"));
 */
export function cachedByName<V extends string | number | boolean | object>(
  compute: (name: string) => V,
): (name: string) => V {
  const known = new Map<string, V>();
  return (name: string): V => {
    const cached = known.get(name);
    if (cached !== undefined) return cached;
    const value = compute(name);
    if (name.length <= CACHED_NAME_MAX) {
      if (known.size >= NAME_CACHE_MAX) known.clear();
      known.set(name, value);
    }
    return value;
  };
}
