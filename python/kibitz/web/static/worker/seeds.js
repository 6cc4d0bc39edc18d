// The seeds of a table, derived as the Python server derives them (kibitz.match.derive_seed, and
// Python's random.Random for a bot's seed of each decision), so that a static table with seed S
// deals and plays as `kibitz serve` with seed S does, and its record replays in Python.
// Seeds are BigInts (63 bits).

const MASK64 = (1n << 64n) - 1n;
const IV = [
  0x6a09e667f3bcc908n, 0xbb67ae8584caa73bn, 0x3c6ef372fe94f82bn, 0xa54ff53a5f1d36f1n,
  0x510e527fade682d1n, 0x9b05688c2b3e6c1fn, 0x1f83d9abfb41bd6bn, 0x5be0cd19137e2179n,
];
const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4], [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13], [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11], [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5], [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

const rotr = (x, n) => ((x >> BigInt(n)) | (x << BigInt(64 - n))) & MASK64;

// BLAKE2b (RFC 7693) without a key, `size` bytes of digest: as Python's hashlib.blake2b(data, digest_size=size).
export function blake2b(data, size = 64) {
  const h = IV.slice();
  h[0] ^= 0x01010000n ^ BigInt(size);
  const blocks = Math.max(1, Math.ceil(data.length / 128));
  for (let b = 0; b < blocks; b++) {
    const block = new Uint8Array(128);
    block.set(data.subarray(b * 128, (b + 1) * 128));
    const m = [];
    for (let i = 0; i < 16; i++) {
      let word = 0n;
      for (let k = 7; k >= 0; k--) word = (word << 8n) | BigInt(block[i * 8 + k]);
      m.push(word);
    }
    const last = b === blocks - 1;
    const v = [...h, ...IV];
    v[12] ^= BigInt(last ? data.length : (b + 1) * 128);
    if (last) v[14] ^= MASK64;
    const g = (a, bb, c, d, x, y) => {
      v[a] = (v[a] + v[bb] + x) & MASK64; v[d] = rotr(v[d] ^ v[a], 32);
      v[c] = (v[c] + v[d]) & MASK64; v[bb] = rotr(v[bb] ^ v[c], 24);
      v[a] = (v[a] + v[bb] + y) & MASK64; v[d] = rotr(v[d] ^ v[a], 16);
      v[c] = (v[c] + v[d]) & MASK64; v[bb] = rotr(v[bb] ^ v[c], 63);
    };
    for (let round = 0; round < 12; round++) {
      const s = SIGMA[round % 10];
      g(0, 4, 8, 12, m[s[0]], m[s[1]]); g(1, 5, 9, 13, m[s[2]], m[s[3]]);
      g(2, 6, 10, 14, m[s[4]], m[s[5]]); g(3, 7, 11, 15, m[s[6]], m[s[7]]);
      g(0, 5, 10, 15, m[s[8]], m[s[9]]); g(1, 6, 11, 12, m[s[10]], m[s[11]]);
      g(2, 7, 8, 13, m[s[12]], m[s[13]]); g(3, 4, 9, 14, m[s[14]], m[s[15]]);
    }
    for (let i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
  }
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = Number((h[i >> 3] >> BigInt(8 * (i & 7))) & 0xffn);
  return out;
}

// A 63-bit seed derived from `seed` and a path such as ("chance", 12), as kibitz.match.derive_seed.
export function deriveSeed(seed, ...path) {
  const digest = blake2b(new TextEncoder().encode([seed, ...path].map(String).join("/")), 8);
  let value = 0n;
  for (const byte of digest) value = (value << 8n) | BigInt(byte);
  return value >> 1n;
}

// A random 63-bit seed (a new table without a seed the person chose).
export function freshSeed() {
  const words = crypto.getRandomValues(new Uint32Array(2));
  return ((BigInt(words[0]) << 32n) | BigInt(words[1])) >> 1n;
}

const N = 624;

// Python's random.Random (the Mersenne Twister, seeded from an integer as CPython seeds it):
// getrandbits and choice give what Python's give for the same seed.
export class PyRandom {
  constructor(seed) {
    this.mt = new Uint32Array(N);
    this.index = N;
    const key = [];
    for (let rest = seed < 0n ? -seed : BigInt(seed); rest > 0n; rest >>= 32n) key.push(Number(rest & 0xffffffffn));
    this.#seedArray(key.length ? key : [0]);
  }

  #seedArray(key) {
    const mt = this.mt;
    mt[0] = 19650218;
    for (let i = 1; i < N; i++) mt[i] = Math.imul(1812433253, mt[i - 1] ^ (mt[i - 1] >>> 30)) + i;
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      mt[i] = (mt[i] ^ Math.imul(mt[i - 1] ^ (mt[i - 1] >>> 30), 1664525)) + key[j] + j;
      i++; j++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      mt[i] = (mt[i] ^ Math.imul(mt[i - 1] ^ (mt[i - 1] >>> 30), 1566083941)) - i;
      i++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
    }
    mt[0] = 0x80000000;
  }

  #next() {
    const mt = this.mt;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % N] & 0x7fffffff);
        mt[k] = mt[(k + 397) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  // k random bits as a BigInt (random.getrandbits(k)): 32-bit words from the least significant.
  getrandbits(k) {
    let value = 0n;
    for (let shift = 0; k > 0; shift += 32, k -= 32) {
      const word = k < 32 ? this.#next() >>> (32 - k) : this.#next();
      value |= BigInt(word) << BigInt(shift);
    }
    return value;
  }

  // An item of `items` (random.choice).
  choice(items) {
    if (!items.length) throw new RangeError("choice from an empty list");
    const bits = items.length.toString(2).length;
    let r;
    do r = Number(this.getrandbits(bits)); while (r >= items.length);
    return items[r];
  }
}
