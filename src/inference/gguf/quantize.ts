import { fromFp16Bits, toFp16Bits } from "./fp16.js";

/** Values per block for Q8_0 and Q4_0 (ggml's QK8_0 / QK4_0). */
export const QK = 32;
/** Bytes per Q8_0 block: fp16 scale + 32 int8. */
export const Q8_0_BLOCK_BYTES = 2 + QK;
/** Bytes per Q4_0 block: fp16 scale + 16 bytes of packed nibbles. */
export const Q4_0_BLOCK_BYTES = 2 + QK / 2;

/**
 * Q8_0 block quantisation, as ggml's quantize_row_q8_0_ref: d = max|x| / 127, q = round(x / d).
 * Hand-written: no npm package writes ggml block formats.
 */
export function quantizeQ8_0(values: Float32Array): Buffer {
    if (values.length % QK !== 0) throw new Error(`Q8_0 needs a multiple of ${QK} values, got ${values.length}`);
    const blocks = values.length / QK;
    const out = Buffer.alloc(blocks * Q8_0_BLOCK_BYTES);
    for (let b = 0; b < blocks; b++) {
        let amax = 0;
        for (let j = 0; j < QK; j++) amax = Math.max(amax, Math.abs(values[b * QK + j]!));
        const d = Math.fround(amax / 127);
        const id = d ? Math.fround(1 / d) : 0;
        const at = b * Q8_0_BLOCK_BYTES;
        out.writeUInt16LE(toFp16Bits(d), at);
        for (let j = 0; j < QK; j++) out.writeInt8(roundHalfAway(Math.fround(values[b * QK + j]! * id)), at + 2 + j);
    }
    return out;
}

/**
 * Q4_0 block quantisation, as ggml's quantize_row_q4_0_ref: d = (the value of largest magnitude) / -8,
 * q = min(15, trunc(x / d + 8.5)); byte j holds value j in its low nibble and value j+16 in its high nibble.
 */
export function quantizeQ4_0(values: Float32Array): Buffer {
    if (values.length % QK !== 0) throw new Error(`Q4_0 needs a multiple of ${QK} values, got ${values.length}`);
    const blocks = values.length / QK;
    const out = Buffer.alloc(blocks * Q4_0_BLOCK_BYTES);
    for (let b = 0; b < blocks; b++) {
        let amax = 0;
        let max = 0;
        for (let j = 0; j < QK; j++) {
            const v = values[b * QK + j]!;
            if (Math.abs(v) > amax) {
                amax = Math.abs(v);
                max = v;
            }
        }
        const d = Math.fround(max / -8);
        const id = d ? Math.fround(1 / d) : 0;
        const at = b * Q4_0_BLOCK_BYTES;
        out.writeUInt16LE(toFp16Bits(d), at);
        for (let j = 0; j < QK / 2; j++) {
            const x0 = Math.fround(values[b * QK + j]! * id);
            const x1 = Math.fround(values[b * QK + QK / 2 + j]! * id);
            const q0 = Math.min(15, Math.trunc(Math.fround(x0 + 8.5)));
            const q1 = Math.min(15, Math.trunc(Math.fround(x1 + 8.5)));
            out[at + 2 + j] = q0 | (q1 << 4);
        }
    }
    return out;
}

/** Inverse of quantizeQ8_0 (for tests). */
export function dequantizeQ8_0(data: Buffer): Float32Array {
    const blocks = data.length / Q8_0_BLOCK_BYTES;
    const out = new Float32Array(blocks * QK);
    for (let b = 0; b < blocks; b++) {
        const d = fromFp16Bits(data.readUInt16LE(b * Q8_0_BLOCK_BYTES));
        for (let j = 0; j < QK; j++) out[b * QK + j] = d * data.readInt8(b * Q8_0_BLOCK_BYTES + 2 + j);
    }
    return out;
}

/** Inverse of quantizeQ4_0 (for tests). */
export function dequantizeQ4_0(data: Buffer): Float32Array {
    const blocks = data.length / Q4_0_BLOCK_BYTES;
    const out = new Float32Array(blocks * QK);
    for (let b = 0; b < blocks; b++) {
        const d = fromFp16Bits(data.readUInt16LE(b * Q4_0_BLOCK_BYTES));
        for (let j = 0; j < QK / 2; j++) {
            const byte = data[b * Q4_0_BLOCK_BYTES + 2 + j]!;
            out[b * QK + j] = d * ((byte & 0x0f) - 8);
            out[b * QK + QK / 2 + j] = d * ((byte >> 4) - 8);
        }
    }
    return out;
}

/** C's roundf: halves away from zero. */
function roundHalfAway(x: number): number {
    return Math.sign(x) * Math.round(Math.abs(x));
}
