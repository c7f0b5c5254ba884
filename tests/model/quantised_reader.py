"""Reference reader of the quantised net file (`checkers-zero export --format quantised`),
written from docs/export.md alone: checks the magic and the CRC32, reads every integer, and
evaluates positions given as lists of active features. Usage:

    python3 quantised_reader.py NET.czq POSITIONS.json

POSITIONS.json holds a list of feature lists (indices in 0..203, in the mover's frame); the
script prints one value (P(win) - P(loss) for the side to move) a line.
"""
import json
import math
import struct
import sys
import zlib


def read(path):
    data = open(path, "rb").read()
    body, (crc,) = data[:-4], struct.unpack("<I", data[-4:])
    if data[:8] not in (b"CZQNET01", b"CZQNET02"):
        sys.exit(f"{path}: not a quantised checkers-zero net")
    if zlib.crc32(body) != crc:
        sys.exit(f"{path}: CRC32 mismatch")
    at = 8

    def take(fmt, count):
        nonlocal at
        size = struct.calcsize("<" + fmt) * count
        values = struct.unpack_from(f"<{count}{fmt}", body, at)
        at += size
        return list(values)

    features, acc, acc_shift, layers = take("I", 4)
    buckets = take("I", 1)[0] if data[:8] == b"CZQNET02" else 1
    columns = take("h", features * acc)
    bias = take("h", acc)
    stacks = []
    for _ in range(buckets):
        dense = []
        for _ in range(layers + 1):
            inputs, outputs, shift = take("I", 3)
            weights = take("h", inputs * outputs)
            layer_bias = take("i", outputs)
            dense.append((inputs, outputs, shift, weights, layer_bias))
        stacks.append(dense)
    if at != len(body):
        sys.exit(f"{path}: {len(body) - at} bytes left over")
    return features, acc, acc_shift, columns, bias, stacks


def value(net, active):
    features, acc, acc_shift, columns, bias, stacks = net
    pieces = sum(1 for f in active if f < 128)
    dense = stacks[min(pieces, 24) * len(stacks) // 25]
    q = 1 << acc_shift
    x = list(bias)
    for f in active:
        for a in range(acc):
            x[a] += columns[f * acc + a]
    x = [min(max(v, 0), q) for v in x]
    for i, (inputs, outputs, shift, weights, layer_bias) in enumerate(dense):
        sums = [layer_bias[o] + sum(weights[o * inputs + k] * x[k] for k in range(inputs))
                for o in range(outputs)]
        if i + 1 < len(dense):
            x = [min(max(s >> shift, 0), q) for s in sums]
        else:
            logits = [s / (q * (1 << shift)) for s in sums]
    top = max(logits)
    w, d, l = (math.exp(v - top) for v in logits)
    return (w - l) / (w + d + l)


if __name__ == "__main__":
    net = read(sys.argv[1])
    for active in json.load(open(sys.argv[2])):
        print(repr(value(net, active)))
