/**
 * A minimal GGUF v3 writer: header, typed key/value metadata, tensor infos, aligned tensor data.
 * Hand-written because no maintained npm package writes GGUF (node-llama-cpp only reads it);
 * eddy needs it for its deterministic tiny test models and for crafted bad files.
 */

/** GGUF metadata value types (gguf.h: gguf_type). */
export const GgufValueType = {
    UINT8: 0, INT8: 1, UINT16: 2, INT16: 3, UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7,
    STRING: 8, ARRAY: 9, UINT64: 10, INT64: 11, FLOAT64: 12
} as const;

/** ggml tensor types eddy writes (ggml.h: ggml_type). */
export const GgmlTensorType = { F32: 0, F16: 1, Q4_0: 2, Q8_0: 8 } as const;

/** One metadata value with its GGUF type. */
export type GgufValue =
    | { type: "u32" | "i32" | "f32" | "u64" | "u8"; value: number }
    | { type: "bool"; value: boolean }
    | { type: "string"; value: string }
    | { type: "array"; itemType: "string"; values: string[] }
    | { type: "array"; itemType: "f32" | "i32" | "u32"; values: number[] };

/** One tensor: its name, shape (ne0 = row length first, as in GGUF), ggml type and raw bytes. */
export interface GgufTensor {
    name: string;
    dims: number[];
    type: number;
    data: Buffer;
}

/** Everything one file holds. */
export interface GgufContent {
    metadata: [key: string, value: GgufValue][];
    tensors: GgufTensor[];
    /** Data alignment; 32 unless general.alignment says otherwise. */
    alignment?: number;
}

const GGUF_MAGIC = Buffer.from("GGUF", "ascii");

/** Serialise a GGUF v3 file. Same input → same bytes. */
export function writeGguf(content: GgufContent): Buffer {
    const align = content.alignment ?? 32;
    const parts: Buffer[] = [];
    const u32 = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); parts.push(b); };
    const u64 = (v: number) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); parts.push(b); };
    const str = (s: string) => { const bytes = Buffer.from(s, "utf8"); u64(bytes.length); parts.push(bytes); };
    const scalar = (type: string, v: number | boolean) => {
        const b = Buffer.alloc(type === "u64" ? 8 : type === "u8" || type === "bool" ? 1 : 4);
        if (type === "u32") b.writeUInt32LE(v as number);
        else if (type === "i32") b.writeInt32LE(v as number);
        else if (type === "f32") b.writeFloatLE(v as number);
        else if (type === "u64") b.writeBigUInt64LE(BigInt(v as number));
        else if (type === "u8") b.writeUInt8(v as number);
        else if (type === "bool") b.writeUInt8(v ? 1 : 0);
        parts.push(b);
    };
    const typeCode = (t: string): number => ({
        u8: GgufValueType.UINT8, u32: GgufValueType.UINT32, i32: GgufValueType.INT32, f32: GgufValueType.FLOAT32,
        u64: GgufValueType.UINT64, bool: GgufValueType.BOOL, string: GgufValueType.STRING, array: GgufValueType.ARRAY
    })[t]!;

    parts.push(GGUF_MAGIC);
    u32(3);
    u64(content.tensors.length);
    u64(content.metadata.length);
    for (const [key, v] of content.metadata) {
        str(key);
        u32(typeCode(v.type));
        if (v.type === "string") str(v.value);
        else if (v.type === "array") {
            u32(typeCode(v.itemType));
            u64(v.values.length);
            for (const item of v.values) {
                if (v.itemType === "string") str(item as string);
                else scalar(v.itemType, item as number);
            }
        } else scalar(v.type, v.value);
    }
    let offset = 0;
    const offsets: number[] = [];
    for (const t of content.tensors) {
        offsets.push(offset);
        offset = alignUp(offset + t.data.length, align);
    }
    content.tensors.forEach((t, i) => {
        str(t.name);
        u32(t.dims.length);
        for (const d of t.dims) u64(d);
        u32(t.type);
        u64(offsets[i]!);
    });
    const headerLength = parts.reduce((n, b) => n + b.length, 0);
    parts.push(Buffer.alloc(alignUp(headerLength, align) - headerLength));
    content.tensors.forEach((t) => {
        parts.push(t.data);
        parts.push(Buffer.alloc(alignUp(t.data.length, align) - t.data.length));
    });
    return Buffer.concat(parts);
}

function alignUp(n: number, align: number): number {
    return Math.ceil(n / align) * align;
}
