#!/usr/bin/env python3
"""Elo against core-hours for the scaling config, the old default, the scaling config with
self-play from the 3-move ballots, the scaling config with four buckets of material and the
openings config with a 256-wide accumulator, from the head-to-head match records beside this file
and in ../openings-2026-12-06, ../buckets-2026-12-06 and ../wide-2026-12-07 (`python3 plot.py` writes elo-vs-core-hours.svg and prints the table).

Every match gives an Elo difference between two nets and its variance (the score's variance from
its wins, draws and losses, through the Elo curve's slope). The nets' Elo are the weighted
least-squares fit of all those differences (each weighted by the inverse of its variance), with the
scaling config's half-hour net at 0, and their 95% intervals come from the fit's covariance: a net
met by several matches is rated by all of them."""
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OLD_4H_VS_2H = os.path.join(HERE, "..", "2026-12-04-default-4h-vs-search-value-2-0.1s.jsonl")


def opening(record):
    """A match record of the openings arm."""
    return os.path.join(HERE, "..", "openings-2026-12-06", record)


def bucketed(record):
    """A match record of the buckets-of-material arm."""
    return os.path.join(HERE, "..", "buckets-2026-12-06", record)


def wide(record):
    """A match record of the 256-wide arm."""
    return os.path.join(HERE, "..", "wide-2026-12-07", record)


# (record, a player's checkpoint name in it, its opponent's, the player's net, the opponent's net):
# every head-to-head match between these nets, all `mcts:` at 0.1 s a move. A net is its series and
# its core-hours.
MATCHES = [
    ("1ch-vs-0.5ch.jsonl", "1ch-best", "0.5ch-best", "new 1", "new 0.5"),
    ("2ch-vs-1ch.jsonl", "2ch-best", "1ch-best", "new 2", "new 1"),
    ("4ch-vs-2ch.jsonl", "4ch-best", "2ch-best", "new 4", "new 2"),
    ("5.7ch-wide-vs-4ch.jsonl", "5.7ch-wide-best", "4ch-best", "new 5.7", "new 4"),
    ("8ch-vs-4ch.jsonl", "8ch-best", "4ch-best", "new 8", "new 4"),
    ("8ch-vs-2ch.jsonl", "8ch-best", "2ch-best", "new 8", "new 2"),
    ("2ch-vs-4h-reference.jsonl", "2026-12-04-default-4h-best", "2ch-best", "old 4", "new 2"),
    ("8ch-vs-4h-reference.jsonl", "8ch-best", "2026-12-04-default-4h-best", "new 8", "old 4"),
    (OLD_4H_VS_2H, "default2h", "default4h", "old 2", "old 4"),
    (opening("scratch-0.5ch-vs-scaling-0.5ch.jsonl"), "scratch-0.5ch", "scaling-0.5ch", "open 0.5", "new 0.5"),
    (opening("scratch-1ch-vs-scaling-1ch.jsonl"), "scratch-1ch", "scaling-1ch", "open 1", "new 1"),
    (opening("scratch-1ch-vs-scaling-1ch-reversed.jsonl"), "scratch-1ch", "scaling-1ch", "open 1", "new 1"),
    (opening("scratch-1ch-vs-scratch-0.5ch.jsonl"), "scratch-1ch", "scratch-0.5ch", "open 1", "open 0.5"),
    (opening("scratch-2ch-vs-scaling-2ch.jsonl"), "scratch-2ch", "2ch-best", "open 2", "new 2"),
    (opening("scratch-2ch-vs-scratch-1ch.jsonl"), "scratch-2ch", "scratch-1ch", "open 2", "open 1"),
    (opening("scratch-4ch-vs-scratch-2ch.jsonl"), "scratch-4ch", "scratch-2ch", "open 4", "open 2"),
    (opening("scratch-4ch-vs-scaling-4ch.jsonl"), "scratch-4ch", "scaling-4ch", "open 4", "new 4"),
    (opening("scratch-6ch-vs-4h-reference.jsonl"), "scratch-6ch", "2026-12-04-default-4h-best", "open 6", "old 4"),
    (opening("scratch-8ch-vs-4h-reference.jsonl"), "scratch-8ch", "2026-12-04-default-4h-best", "open 8", "old 4"),
    (opening("scratch-8ch-vs-scratch-2ch.jsonl"), "scratch-8ch", "scratch-2ch", "open 8", "open 2"),
    (opening("scratch-8ch-vs-scratch-4ch.jsonl"), "scratch-8ch", "scratch-4ch", "open 8", "open 4"),
    (bucketed("buckets-1ch-vs-scaling-1ch.jsonl"), "buckets-1ch", "scaling-1ch", "bkt 1", "new 1"),
    (bucketed("buckets-2ch-vs-scaling-2ch.jsonl"), "buckets-2ch", "scaling-2ch", "bkt 2", "new 2"),
    (wide("wide-0.97ch-vs-scratch-1ch.jsonl"), "wide-0.97ch", "scratch-1ch", "wide 0.97", "open 1"),
    (wide("wide-2ch-vs-scratch-2ch.jsonl"), "wide-2ch", "scratch-2ch", "wide 2", "open 2"),
    (wide("wide-2ch-vs-wide-1ch.jsonl"), "wide-2ch", "wide-1ch", "wide 2", "wide 1.06"),
    (wide("wide-4ch-vs-wide-2ch.jsonl"), "wide-4ch", "wide-2ch", "wide 4", "wide 2"),
    (wide("wide-4ch-vs-scratch-4ch.jsonl"), "wide-4ch", "scratch-4ch", "wide 4", "open 4"),
    (wide("wide-2ch-vs-wide-0.97ch.jsonl"), "wide-2ch", "wide-0.97ch", "wide 2", "wide 0.97"),
    (wide("wide-8ch-vs-4h-reference.jsonl"), "wide-8ch", "2026-12-04-default-4h-best", "wide 8", "old 4"),
    (wide("wide-8ch-vs-wide-2ch.jsonl"), "wide-8ch", "wide-2ch", "wide 8", "wide 2"),
    (wide("wide-8ch-vs-wide-4ch.jsonl"), "wide-8ch", "wide-4ch", "wide 8", "wide 4"),
]
# The net rated 0.
ANCHOR = "new 0.5"
SERIES = {"new": ("scaling config (configs/scaling.toml)", "#1f77b4"),
          "old": ("old default (the 4-hour reference run)", "#d62728"),
          "open": ("scaling config + openings deck", "#2ca02c"),
          "bkt": ("scaling config + 4 buckets of material", "#9467bd"),
          "wide": ("openings config, 256 wide", "#ff7f0e")}


def tally(path, player, other):
    """Wins, draws and losses of `player` against `other` in the record at `path`."""
    w = d = l = 0
    for line in open(os.path.join(HERE, path)):
        r = json.loads(line)
        if {r["black"], r["white"]} != {player, other}:
            continue
        if r["result"] == "1/2-1/2":
            d += 1
        elif (r["result"] == "1-0") == (r["black"] == player):
            w += 1
        else:
            l += 1
    return w, d, l


def elo_and_variance(w, d, l):
    """The Elo difference a score gives, and its variance."""
    n = w + d + l
    s = (w + d / 2) / n
    var_s = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s ** 2) / n / n
    slope = 400 / (math.log(10) * s * (1 - s))
    return -400 * math.log10(1 / s - 1), var_s * slope ** 2


def inverse(matrix):
    """The inverse of a small symmetric positive-definite matrix (Gauss-Jordan)."""
    k = len(matrix)
    rows = [row[:] + [float(i == j) for j in range(k)] for i, row in enumerate(matrix)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        scale = rows[col][col]
        rows[col] = [x / scale for x in rows[col]]
        for r in range(k):
            if r != col and rows[r][col]:
                factor = rows[r][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col])]
    return [row[k:] for row in rows]


def ratings():
    """Each net's (Elo, 95% half-width, games played): the weighted least-squares fit of every
    match's Elo difference (weight: the inverse of its variance), the anchor at 0."""
    nets = sorted({net for match in MATCHES for net in match[3:]} - {ANCHOR})
    index = {net: i for i, net in enumerate(nets)}
    normal = [[0.0] * len(nets) for _ in nets]
    rhs = [0.0] * len(nets)
    games = {net: 0 for net in nets + [ANCHOR]}
    for path, player, other, net, base in MATCHES:
        w, d, l = tally(path, f"mcts:{player}:0.1s", f"mcts:{other}:0.1s")
        diff, var = elo_and_variance(w, d, l)
        games[net] += w + d + l
        games[base] += w + d + l
        # One observation: Elo(net) - Elo(base) = diff, with weight 1 / var.
        row = {index[n]: sign for n, sign in ((net, 1.0), (base, -1.0)) if n != ANCHOR}
        for i, a in row.items():
            rhs[i] += a * diff / var
            for j, b in row.items():
                normal[i][j] += a * b / var
    covariance = inverse(normal)
    rated = {ANCHOR: (0.0, 0.0, games[ANCHOR])}
    for net, i in index.items():
        elo = sum(covariance[i][j] * rhs[j] for j in range(len(nets)))
        rated[net] = (elo, 1.96 * math.sqrt(covariance[i][i]), games[net])
    return rated


def svg(rated):
    width, height, left, right, top, bottom = 720, 440, 70, 250, 30, 55
    xs = [math.log2(float(net.split()[1])) for net in rated]
    ys = [e for e, m, _ in rated.values() for e in (e - m, e + m)]
    x0, x1 = min(xs) - 0.3, max(xs) + 0.3
    y0, y1 = math.floor(min(ys) / 50) * 50, math.ceil(max(ys) / 50) * 50
    px = lambda h: left + (math.log2(h) - x0) / (x1 - x0) * (width - left - right)
    py = lambda e: height - bottom - (e - y0) / (y1 - y0) * (height - top - bottom)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for e in range(int(y0), int(y1) + 1, 50):
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{py(e):.1f}" y2="{py(e):.1f}" '
                   f'stroke="#ddd"/><text x="{left - 8}" y="{py(e) + 4:.1f}" '
                   f'text-anchor="end">{e}</text>')
    for h in (0.5, 1, 2, 4, 8):
        if x0 <= math.log2(h) <= x1:
            out.append(f'<text x="{px(h):.1f}" y="{height - bottom + 18}" '
                       f'text-anchor="middle">{h:g}</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">'
               'core-hours of training (one core of the 2-core machine), log scale</text>')
    out.append(f'<text x="16" y="{(top + height - bottom) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {(top + height - bottom) / 2})">'
               'Elo, head to head at 0.1 s a move (95% interval)</text>')
    for k, (key, (label, colour)) in enumerate(SERIES.items()):
        # Each series a little to the side of the other, so that their intervals do not overlap.
        nudge = 2 ** (0.08 * (k - (len(SERIES) - 1) / 2))
        points = sorted((float(n.split()[1]) * nudge, v) for n, v in rated.items() if n.startswith(key))
        path = " ".join(f"{px(h):.1f},{py(e):.1f}" for h, (e, _, _) in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for h, (e, m, _) in points:
            out.append(f'<line x1="{px(h):.1f}" x2="{px(h):.1f}" y1="{py(e - m):.1f}" '
                       f'y2="{py(e + m):.1f}" stroke="{colour}"/>'
                       f'<circle cx="{px(h):.1f}" cy="{py(e):.1f}" r="4" fill="{colour}"/>')
        ly = top + 20 + 22 * k
        out.append(f'<line x1="{width - right + 15}" x2="{width - right + 40}" y1="{ly}" '
                   f'y2="{ly}" stroke="{colour}" stroke-width="2"/>'
                   f'<text x="{width - right + 46}" y="{ly + 4}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    rated = ratings()
    print("| net | core-hours | Elo [95%] | games it played |")
    print("| --- | ---: | ---: | ---: |")
    for net, (elo, margin, games) in sorted(rated.items(), key=lambda x: (x[0][:3], float(x[0][4:]))):
        series, hours = net.split()
        print(f"| {series} | {hours} | {elo:+.0f} [{elo - margin:+.0f}, {elo + margin:+.0f}] | {games} |")
    with open(os.path.join(HERE, "elo-vs-core-hours.svg"), "w") as f:
        f.write(svg(rated))
