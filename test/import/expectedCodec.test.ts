/**
 * The expected-outputs file of an imported problem (src/import/humaneval/expected_codec.py, issue
 * #43): every value a canonical solution can hand back as plain data comes back as it was, types
 * included, and reading runs no code and ends in a value or a ValueError whatever the bytes.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const CODEC = path.resolve("src/import/humaneval/expected_codec.py");

function python(body: string): { stdout: string; stderr: string; status: number | null } {
    const prelude = [
        "import importlib.util, sys",
        "sys.setrecursionlimit(10000)",
        `spec = importlib.util.spec_from_file_location("codec", ${JSON.stringify(CODEC)})`,
        "codec = importlib.util.module_from_spec(spec); spec.loader.exec_module(codec)",
        "enc, dec = codec.encode_expected, codec.decode_expected",
        "def rec(**kw):",
        "    return dict(format=codec.EXPECTED_FORMAT, **kw)",
        "def same(a, b):",
        "    # equal, and of the same types all the way down (True is not 1, 1.0 is not 1, -0.0 is not 0.0)",
        "    import math",
        "    if type(a) is not type(b):",
        "        return False",
        "    if type(a) is float:",
        "        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))",
        "    if type(a) in (list, tuple) or type(a).__name__ == 'deque':",
        "        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))",
        "    if isinstance(a, dict):",
        "        return list(a) == list(b) and all(same(a[k], b[k]) for k in a) and all(same(x, y) for x, y in zip(a, b))",
        "    if type(a) in (set, frozenset):",
        "        return a == b and {type(x) for x in a} == {type(x) for x in b}",
        "    return a == b",
        ""
    ].join("\n");
    const r = spawnSync("python3", ["-I", "-c", prelude + body], { encoding: "utf8", timeout: 120_000 });
    return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

describe("the expected-outputs file (tagged JSON)", () => {
    it("gives back every plain value as it was, types included", () => {
        const r = python(
            [
                "import collections",
                "deep = []",
                "x = deep",
                "for _ in range(1000):",
                "    x.append([]); x = x[0]",
                "values = [",
                "    None, True, False, 0, 1, -1, 2**53 + 1, -(2**63), 10**5000, -(10**6000) - 7, 1.0, -0.0, 0.1, 1e-300, 1.7976931348623157e308,",
                "    float('nan'), float('inf'), float('-inf'), complex(1.5, -2), complex(float('inf'), 0),",
                "    '', 'a\\u00e9\\u4e2d\\U0001f600', '\\ud800 lone', '{\"$tuple\": [1]}', '$dict', b'', b'\\x00\\xffbytes',",
                "    [], (), (1,), [1, 2.0, 'x', None, True], (1, (2, (3, [4]))), [[1, 2], [3]], [(1, 'a'), (2, 'b')],",
                "    set(), {1, 2, 3}, frozenset({(1, 2), 'x'}), {'a': 1, 2: [3], (4, 5): {6: 7.5}, None: (), True: 'bool key', 1.5: 'float key'},",
                "    {'$tuple': 'a key that looks like a tag'}, collections.Counter('abracadabra'), collections.OrderedDict([('z', 1), ('a', 2)]),",
                "    collections.defaultdict(None, {'k': [1]}), collections.deque([1, (2,), 'three']), [10**5000, float('nan')], (float('inf'), 2**20000),",
                "    deep, list(range(100000)), ['x' * 1000] * 100",
                "]",
                "blob = enc(rec(values=values, groups=['base']))",
                "assert blob.isascii()",
                "back = dec(blob)",
                "assert back['groups'] == ['base']",
                "bad = [i for i, (a, b) in enumerate(zip(values, back['values'])) if not same(a, b)]",
                "print('ok' if not bad and len(back['values']) == len(values) else 'differ at %r' % bad)"
            ].join("\n")
        );
        expect(r.stderr).toBe("");
        expect(r.stdout.trim()).toBe("ok");
    });

    it("refuses what it does not store, at the top level and inside", () => {
        const r = python(
            [
                "class Payload:",
                "    def __reduce__(self):",
                "        return (print, ('unpickled',))",
                "for v in (Payload(), [1, Payload()], {'a': (Payload(),)}, type, print, bytearray(b'x'), range(3)):",
                "    try:",
                "        enc(rec(v=v))",
                "        print('stored', type(v).__name__)",
                "    except TypeError:",
                "        pass",
                "for r in ([], {'$x': 1}, {1: 2}):",
                "    try:",
                "        enc(r)",
                "        print('stored a top level of', r)",
                "    except TypeError:",
                "        pass",
                "print('ok')"
            ].join("\n")
        );
        expect(r.stderr).toBe("");
        expect(r.stdout.trim()).toBe("ok");
    });

    it("reads anything else as a ValueError, never running code or hanging: malformed files, hash floods, deep nesting, random corruption", () => {
        const r = python(
            [
                "import random, time",
                "good = enc(rec(groups=['base'], base=[(1, 'a'), {2: {3.5, 4}}, [10**5000], b'xy', complex(1, 2), float('nan')]))",
                "P = 2**61 - 1",
                "flood_keys = [1 + k * P for k in range(5000)]",
                "cases = [",
                "    b'', b'{', b'null', b'[]', b'{\"format\": \"other\"}', good[:-1], good + b'x', good.replace(b'eddy-expected/1', b'eddy-expected/9'),",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":{\"$pickle\":\"gASV\"}}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":{\"$tuple\":[1],\"x\":2}}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":{\"$int\":\"12\"}}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":{\"$int\":\"0x1g\"}}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":{\"$set\":[[1]]}}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":{\"$dict\":[[1,2],[1,3]]}}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":{\"$dict\":[[[1],2]]}}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":{\"$bytes\":\"!!\"}}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":{\"$complex\":[\"1\",2]}}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":{\"$float\":\"1.5\"}}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":NaN}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":' + b'9' * 5000 + b'}',",
                "    b'{\"format\":\"eddy-expected/1\",\"v\":' + b'[' * 200000 + b']' * 200000 + b'}',",
                "    b'{\"format\":\"eddy-expected/1\",\"format\":\"eddy-expected/1\"}',",
                "    '{\"format\":\"eddy-expected/1\",\"v\":\"\u00e9\"}'.encode('utf-8'),",
                "    ('{\"format\":\"eddy-expected/1\",\"v\":{\"$set\":%s}}' % flood_keys).encode(),",
                "    ('{\"format\":\"eddy-expected/1\",\"v\":{\"$dict\":%s}}' % [[k, 0] for k in flood_keys]).encode(),",
                "]",
                "rng = random.Random(43)",
                "for _ in range(3000):",
                "    b = bytearray(good)",
                "    for _ in range(rng.randint(1, 4)):",
                "        b[rng.randrange(len(b))] = rng.randrange(256)",
                "    cases.append(bytes(b))",
                "decoded = 0",
                "t0 = time.process_time()",
                "for c in cases:",
                "    try:",
                "        dec(c)",
                "        decoded += 1",
                "    except ValueError:",
                "        pass",
                "assert time.process_time() - t0 < 60, 'slow'",
                "# the hand-written cases above are all refused; a random change can still be a valid file",
                "for c in cases[:24]:",
                "    try:",
                "        dec(c)",
                "        print('read', c[:80])",
                "    except ValueError:",
                "        pass",
                "print('ok', decoded < len(cases))"
            ].join("\n")
        );
        expect(r.stderr).toBe("");
        expect(r.stdout.trim()).toBe("ok True");
    }, 120_000);
});
