"""What object storage costs self-play (docs/many-machines.md): `selfplay` writing to SeaweedFS
against writing to local disk, on the same machine, alternating, with one SeaweedFS server running
through every run (so both arms share its idle load), and where the CPU time goes: the self-play
process by thread (the upload threads apart), the server, and the machine's load.

usage: python3 scripts/bench-store.py BINARY [PAIRS] [GAMES] [CONFIG]
       (defaults: 3 pairs, 512 games per run, configs/default.toml; `weed` from
       $CHECKERS_ZERO_WEED, which `source scripts/libtorch-env.sh` sets)
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

BINARY = sys.argv[1]
PAIRS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
GAMES = sys.argv[3] if len(sys.argv) > 3 else "512"
CONFIG = sys.argv[4] if len(sys.argv) > 4 else "configs/default.toml"
TICKS = os.sysconf("SC_CLK_TCK")
# The threads that only serve the store: the outbox's uploader and the store's I/O runtime.
UPLOAD_THREADS = ("rundata-upload", "rundata-store")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_seaweed(dir):
    """`weed mini` on 127.0.0.1 with the bucket `bench`; its pid and the AWS variables for it."""
    flags = ["mini", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-dir={dir}", "-bucket=bench",
             "-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false", "-admin.ui=false",
             "-master.telemetry=false", f"-s3.localSocket={dir}/s3.sock",
             f"-filer.localSocket={dir}/filer.sock"]
    ports = {}
    for part in ["master", "volume", "filer", "s3", "admin"]:
        while True:  # the gRPC twin, port + 10000, must be free too
            port = free_port()
            if port + 10000 < 65536:
                break
        ports[part] = port
        flags += [f"-{part}.port={port}", f"-{part}.port.grpc={port + 10000}"]
    keys = {"AWS_ACCESS_KEY_ID": "bench-key", "AWS_SECRET_ACCESS_KEY": "bench-secret"}
    log = open(os.path.join(dir, "weed.log"), "w")
    weed = subprocess.Popen([os.environ["CHECKERS_ZERO_WEED"], *flags], stdout=log,
                            stderr=subprocess.STDOUT, env={**os.environ, **keys, "TMPDIR": dir})
    env = {**keys, "AWS_REGION": "us-east-1", "AWS_ALLOW_HTTP": "true",
           "AWS_ENDPOINT_URL": f"http://127.0.0.1:{ports['s3']}"}
    return weed, env


def cpu_seconds(pid, task=None):
    path = f"/proc/{pid}/task/{task}/stat" if task else f"/proc/{pid}/stat"
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def threads(pid):
    """CPU seconds of each thread of `pid`, by name (summed over threads of one name)."""
    out = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as f:
                name = f.read().strip()
            out[(name, task)] = cpu_seconds(pid, task)
        except (FileNotFoundError, ProcessLookupError):
            pass
    return out


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_selfplay(run_dir, cache, env, weed):
    """One `selfplay --games GAMES`: its figures and where the CPU time went."""
    args = [BINARY, "selfplay", "--run-dir", run_dir, "--config", CONFIG, "--games", GAMES]
    if cache:
        args += ["--cache", cache]
    load_before, weed_before, start = loadavg(), cpu_seconds(weed.pid), time.time()
    # Into a file, not a pipe: self-play writes a line per shard and must never wait for a reader.
    with tempfile.TemporaryFile("w+") as stdout:
        p = subprocess.Popen(args, stdout=stdout, stderr=subprocess.DEVNULL, text=True,
                             env={**os.environ, **env})
        seen = {}
        while p.poll() is None:
            try:
                seen.update(threads(p.pid))
            except FileNotFoundError:
                pass
            time.sleep(0.5)
        stdout.seek(0)
        out = stdout.read()
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)} failed with {p.returncode}:\n{out}")
    summary = re.search(r"self-play: (\d+) games, (\d+) samples \(.* ([\d.]+) pos/s", out)
    by_name = {}
    for (name, _), v in seen.items():
        by_name[name] = round(by_name.get(name, 0) + v, 2)
    upload = sum(v for name, v in by_name.items() if name in UPLOAD_THREADS)
    return {
        "pos_per_s": float(summary.group(3)),
        "games": int(summary.group(1)),
        "wall_s": round(time.time() - start, 1),
        "process_cpu_s": round(sum(seen.values()), 1),
        "upload_threads_cpu_s": round(upload, 2),
        "threads_cpu_s": by_name,
        "server_cpu_s": round(cpu_seconds(weed.pid) - weed_before, 2),
        "load_before": load_before,
        "load_after": loadavg(),
    }


def main():
    work = tempfile.mkdtemp(prefix="bench-store-")
    os.makedirs(os.path.join(work, "weed"))
    weed, env = start_seaweed(os.path.join(work, "weed"))
    try:
        time.sleep(10)  # the server comes up; the first S3 run waits for it besides
        idle = cpu_seconds(weed.pid)
        time.sleep(20)
        idle = (cpu_seconds(weed.pid) - idle) / 20
        print(f"SeaweedFS idle: {100 * idle:.1f}% of a core", flush=True)
        local = os.path.join(work, "local-run")
        arms = {"local": (local, None, {}),
                "s3": ("s3://bench/run", os.path.join(work, "s3-cache"), env)}
        results = []
        for pair in range(PAIRS):
            for arm in (["local", "s3"] if pair % 2 == 0 else ["s3", "local"]):
                figures = {"pair": pair + 1, "arm": arm, **run_selfplay(*arms[arm], weed)}
                results.append(figures)
                print(json.dumps(figures), flush=True)
        for pair in range(PAIRS):
            rate = {r["arm"]: r["pos_per_s"] for r in results if r["pair"] == pair + 1}
            print(f"pair {pair + 1}: local {rate['local']:.0f} pos/s, s3 {rate['s3']:.0f} pos/s, "
                  f"s3/local {rate['s3'] / rate['local']:.3f}")
        total = {arm: sum(r["pos_per_s"] for r in results if r["arm"] == arm) for arm in arms}
        print(f"all pairs: s3/local {total['s3'] / total['local']:.3f}")
    finally:
        weed.terminate()
        weed.wait()
        shutil.rmtree(work, ignore_errors=True)


main()
