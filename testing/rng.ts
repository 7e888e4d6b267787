/**
 * The project's one seeded pseudo-random generator: the demo workload, the
 * FakeApiServer's random body splits, the benchmarks and the seeded
 * property tests draw from it, so a seed replays the same run anywhere.
 * Not exported from `testing/mod.ts`.
 *
 * @module
 */

/** A seeded pseudo-random generator (mulberry32): deterministic per seed. */
export class Rng {
  #state: number;

  /**
   * Create a generator.
   * @param seed any integer; the same seed gives the same sequence
   */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** A name suffix the way Kubernetes generates them (consonants and digits). */
  suffix(length: number): string {
    const alphabet = "bcdfghjklmnpqrstvwxz2456789";
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }

  /** A random UUID (version 4 layout) drawn from this generator. */
  uuid(): string {
    const hex = (n: number) => {
      let s = "";
      for (let i = 0; i < n; i++) s += this.int(16).toString(16);
      return s;
    };
    return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  }
}
