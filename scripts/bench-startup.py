"""Start-up and Hub serving figures (docs/performance.md): process start of `perft 1`, of a
two-game `match` between built-in players, of `hub` to `ready`, and moves served per second by one
`hub` process against one `bestmove` process per move.

usage: python3 scripts/bench-startup.py BINARY [PLAYER]   (PLAYER default: alphabeta:1)
"""
import statistics
import subprocess
import sys
import time

BINARY = sys.argv[1]
PLAYER = sys.argv[2] if len(sys.argv) > 2 else "alphabeta:1"
START_FEN = "B:W21-32:B1-12"
RUNS = 10
MOVES = 40


def median_seconds(run):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def perft():
    subprocess.run([BINARY, "perft", "1"], check=True, stdout=subprocess.DEVNULL)


def builtin_match():
    subprocess.run([BINARY, "match", "random", "random", "--games", "2", "--pdn", "/dev/null"],
                   check=True, stdout=subprocess.DEVNULL)


def hub_ready():
    p = subprocess.Popen([BINARY, "hub", "--player", PLAYER], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, bufsize=1)
    p.stdin.write("hub\ninit\n")
    p.stdin.flush()
    while p.stdout.readline().strip() != "ready":
        pass
    p.stdin.write("quit\n")
    p.stdin.flush()
    p.wait()


def hub_moves():
    p = subprocess.Popen([BINARY, "hub", "--player", PLAYER], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, bufsize=1)
    start = time.perf_counter()
    for _ in range(MOVES):
        p.stdin.write(f"pos pos={START_FEN}\ngo think\n")
        p.stdin.flush()
        while not p.stdout.readline().startswith("done"):
            pass
    elapsed = time.perf_counter() - start
    p.stdin.write("quit\n")
    p.stdin.flush()
    p.wait()
    return MOVES / elapsed


def bestmove_moves():
    start = time.perf_counter()
    for _ in range(MOVES):
        subprocess.run([BINARY, "bestmove", PLAYER, "--fen", START_FEN], check=True,
                       stdout=subprocess.DEVNULL)
    return MOVES / (time.perf_counter() - start)


for name, run in (("perft 1 (process start)", perft),
                  ("match random random --games 2", builtin_match),
                  (f"hub --player {PLAYER} to ready", hub_ready)):
    median, best = median_seconds(run)
    print(f"{name}: median {median * 1000:.0f} ms, best {best * 1000:.0f} ms over {RUNS} runs")
served, one_per_move = hub_moves(), bestmove_moves()
print(f"moves/s, {PLAYER}: hub {served:.1f}, bestmove process per move {one_per_move:.1f} "
      f"({served / one_per_move:.1f}x)")
