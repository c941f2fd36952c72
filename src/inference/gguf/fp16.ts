/**
 * float32 → IEEE 754 half-precision bits, round to nearest even.
 * Hand-written because Node 20 has no Float16Array / Math.f16round and the block
 * quantisers need exactly the rounding ggml's reference uses (ggml_fp32_to_fp16).
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Half-precision bit pattern of `value` (as a float32 first), round to nearest even. */
export function toFp16Bits(value: number): number {
    f32[0] = value;
    const x = u32[0]!;
    const sign = (x >>> 16) & 0x8000;
    const exp = (x >>> 23) & 0xff;
    let mant = x & 0x7fffff;
    if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // inf / nan
    const e = exp - 127 + 15;
    if (e >= 0x1f) return sign | 0x7c00; // overflow → inf
    if (e <= 0) {
        // subnormal half (or zero)
        if (e < -10) return sign;
        mant |= 0x800000;
        const shift = 14 - e;
        let half = mant >>> shift;
        const rem = mant & ((1 << shift) - 1);
        const mid = 1 << (shift - 1);
        if (rem > mid || (rem === mid && half & 1)) half++;
        return sign | half;
    }
    let half = (e << 10) | (mant >>> 13);
    const rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++; // may carry into the exponent, which is right
    return sign | half;
}

/** The float value of half-precision bits (for tests and dequantisation). */
export function fromFp16Bits(h: number): number {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >>> 10) & 0x1f;
    const mant = h & 0x3ff;
    if (exp === 0) return sign * mant * 2 ** -24;
    if (exp === 0x1f) return mant ? NaN : sign * Infinity;
    return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}
