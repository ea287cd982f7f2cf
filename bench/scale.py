#!/usr/bin/env python3
"""Scale-out timings, driven by bench/scale.sh: real processes on this machine,
one API (`stillreel serve`, STILLREEL_WORKERS=0) and N `stillreel worker` processes (one slot
each) sharing only a fresh PostgreSQL database and a fresh moto bucket.

  one      one 6-clip 720p video, 1 worker against 2 workers (rounds interleaved)
  batch    8 videos x 6 clips with 1, 2 and 3 workers: wall time, videos/min, clips/s
  tail     stitch tail of every video above: its last clip record written -> video complete
           (PostgreSQL timestamps: max(clips.updated_at) -> videos.updated_at)

Each worker is pinned to a core of its own (`taskset -c n`; the ffmpeg it starts inherits the
mask), which is how a worker on a machine of its own behaves, instead of N workers fighting
over every core; with more workers than cores they share round robin. PIN=0 turns it off.

Prints one line per run and a summary with medians; everything from the environment:
STILLREEL_BIN, MOTO_SERVER, PG_ADMIN_URL, SAMPLES_DIR, ROUNDS, BATCH_ROUNDS, PARTS, PIN.
"""
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid

BIN = os.environ["STILLREEL_BIN"]
MOTO = os.environ["MOTO_SERVER"]
PG_ADMIN = os.environ["PG_ADMIN_URL"]
SAMPLES = os.environ["SAMPLES_DIR"]
ROUNDS = int(os.environ.get("ROUNDS", "3"))
BATCH_ROUNDS = int(os.environ.get("BATCH_ROUNDS", "1"))
PARTS = os.environ.get("PARTS", "one batch").split()
IMAGES = ["house-colonial.jpg", "house-bungalow.jpg", "house-modern.webp", "living-room.png",
          "house-farm-exif-rotated.jpg", "house-townhouse-portrait.jpg"]
CLIPS = 6
CORES = os.cpu_count() or 1
PIN = os.environ.get("PIN", "1") != "0" and shutil.which("taskset") is not None


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def with_db(url, name):
    base, _, query = url.partition("?")
    head, _, _ = base.rpartition("/")
    return f"{head}/{name}" + (f"?{query}" if query else "")


def psql(url, sql):
    return subprocess.run(["psql", url, "-qAtc", sql], check=True, capture_output=True,
                          text=True).stdout.strip()


def http(method, url, body=None, key=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    req.add_header("content-type", "application/json")
    if key:
        req.add_header("authorization", key)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read() or b"null")


def wait_up(url, what, proc, log):
    for _ in range(600):
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except Exception:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
    sys.exit(f"{what} did not start:\n{open(log).read()}")


class Deployment:
    def __init__(self, workers):
        self.dir = tempfile.mkdtemp(prefix="stillreel-scale-")
        self.procs = []
        self.db = "stillreel_bench_" + uuid.uuid4().hex
        psql(PG_ADMIN, f"CREATE DATABASE {self.db}")
        self.db_url = with_db(PG_ADMIN, self.db)
        mport = free_port()
        self.spawn([MOTO, "-H", "127.0.0.1", "-p", str(mport)], {}, "moto.log")
        for _ in range(300):
            try:
                urllib.request.urlopen(urllib.request.Request(
                    f"http://127.0.0.1:{mport}/reels", method="PUT"), timeout=2).read()
                break
            except Exception:
                time.sleep(0.2)
        else:
            sys.exit("moto did not start")
        self.port = free_port()
        self.public = f"http://127.0.0.1:{self.port}"
        env = {
            "PATH": os.environ["PATH"], "RUST_LOG": "info,sqlx=warn",
            "STILLREEL_DATABASE_URL": self.db_url, "STILLREEL_PUBLIC_URL": self.public,
            "STILLREEL_SAMPLES_DIR": SAMPLES, "STILLREEL_STORAGE_URL": "s3://reels/media",
            "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
            "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": f"http://127.0.0.1:{mport}",
            "AWS_ALLOW_HTTP": "true",
            # The per-account cap is fleet-wide; its default (half of one process's slots)
            # would hold one account to one running job (docs/SCALING.md).
            "STILLREEL_ACCOUNT_MAX_RUNNING": "16",
        }
        api = dict(env, STILLREEL_DATA_DIR=f"{self.dir}/api", STILLREEL_WORKERS="0",
                   STILLREEL_LISTEN=f"127.0.0.1:{self.port}",
                   STILLREEL_WEB_DIR=f"{self.dir}/no-web")
        p = self.spawn([BIN, "serve"], api, "api.log")
        wait_up(f"{self.public}/healthz", "the API", p, f"{self.dir}/api.log")
        out = subprocess.run([BIN, "accounts", "create", "bench"], env=api, check=True,
                             capture_output=True, text=True).stdout
        self.key = json.loads(out)["api_key"]
        for n in range(workers):
            wport = free_port()
            w = dict(env, STILLREEL_DATA_DIR=f"{self.dir}/worker-{n}", STILLREEL_WORKERS="1",
                     STILLREEL_WORKER_LISTEN=f"127.0.0.1:{wport}")
            pin = ["taskset", "-c", str(n % CORES)] if PIN else []
            p = self.spawn(pin + [BIN, "worker"], w, f"worker-{n}.log")
            wait_up(f"http://127.0.0.1:{wport}/healthz", f"worker {n}", p,
                    f"{self.dir}/worker-{n}.log")

    def spawn(self, argv, env, log):
        f = open(f"{self.dir}/{log}", "a")
        p = subprocess.Popen(argv, env=env or None, stdout=subprocess.DEVNULL, stderr=f,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def create(self, n):
        images = [{"image_url": f"{self.public}/samples/{IMAGES[(n + i) % len(IMAGES)]}"}
                  for i in range(CLIPS)]
        body = {"image_inputs": images, "orientation": "landscape", "resolution": "720p"}
        return http("POST", f"{self.public}/api/v1/create_video", body, self.key)["uuid"]

    def wait(self, uuids, limit=1800):
        started = time.monotonic()
        left = set(uuids)
        while left:
            for u in list(left):
                v = http("GET", f"{self.public}/api/v1/get_video?uuid={u}", key=self.key)
                if v["status"] == "error":
                    sys.exit(f"video {u} failed: {v}")
                if v["status"] == "complete":
                    left.discard(u)
            if time.monotonic() - started > limit:
                sys.exit(f"videos {left} not complete after {limit} s ({self.dir})")
            time.sleep(0.1)

    def tails(self, uuids):
        """Seconds from the last clip record of each video to its completion."""
        out = []
        for u in uuids:
            row = psql(self.db_url,
                       f"SELECT v.updated_at - MAX(c.updated_at) FROM videos v "
                       f"JOIN clips c ON c.video_id = v.id WHERE v.id = '{u}' "
                       f"GROUP BY v.updated_at")
            out.append(int(row) / 1000.0)
        return out

    def store_requests(self):
        """S3 requests on videos' objects so far, by method (moto's request log)."""
        counts = {}
        with open(f"{self.dir}/moto.log") as f:
            for line in f:
                m = re.search(r'"(GET|PUT|POST|HEAD|DELETE) (/\S*) HTTP', line)
                if m and "/videos/" in m.group(2):
                    counts[m.group(1)] = counts.get(m.group(1), 0) + 1
        return counts

    def pg_connections(self):
        return int(psql(PG_ADMIN, f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{self.db}'"))

    def close(self):
        for p in self.procs:
            try:
                os.killpg(p.pid, 15)
            except ProcessLookupError:
                pass
        for p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                p.wait()
        psql(PG_ADMIN, f"DROP DATABASE IF EXISTS {self.db} WITH (FORCE)")
        subprocess.run(["rm", "-rf", self.dir], check=False)


def run(workers, videos):
    d = Deployment(workers)
    try:
        started = time.monotonic()
        uuids = [d.create(n) for n in range(videos)]
        d.wait(uuids)
        wall = time.monotonic() - started
        requests = d.store_requests()
        conns = d.pg_connections()
        claimed = [open(f"{d.dir}/worker-{n}.log").read().count("job claimed")
                   for n in range(workers)]
        print(f"  store requests on videos/ ({videos} videos): "
              f"{dict(sorted(requests.items()))}; PostgreSQL connections open at the end "
              f"(API + {workers} workers): {conns}; jobs claimed per worker: {claimed}",
              flush=True)
        return wall, d.tails(uuids)
    finally:
        d.close()


def main():
    tails = []
    summary = []
    print(f"workers pinned: {'one core each (taskset), ' + str(CORES) + ' cores' if PIN else 'no'}")
    if "one" in PARTS:
        times = {1: [], 2: []}
        for r in range(ROUNDS):
            for workers in (1, 2):
                wall, t = run(workers, 1)
                tails += t
                times[workers].append(wall)
                print(f"one-video workers={workers} round={r + 1} wall={wall:.2f}s "
                      f"tail={t[0]:.2f}s", flush=True)
        m1, m2 = statistics.median(times[1]), statistics.median(times[2])
        summary.append(f"one 6-clip 720p video: 1 worker {m1:.2f} s "
                       f"({' / '.join(f'{x:.2f}' for x in times[1])}), 2 workers {m2:.2f} s "
                       f"({' / '.join(f'{x:.2f}' for x in times[2])}): ratio {m2 / m1:.2f} x "
                       f"(target <= 0.65 x)")
    if "batch" in PARTS:
        walls = {1: [], 2: [], 3: []}
        for r in range(BATCH_ROUNDS):
            for workers in (1, 2, 3):
                wall, t = run(workers, 8)
                tails += t
                walls[workers].append(wall)
                print(f"batch workers={workers} round={r + 1} wall={wall:.2f}s "
                      f"videos_per_min={8 * 60 / wall:.2f} clips_per_s={48 / wall:.3f}",
                      flush=True)
        base = statistics.median(walls[1])
        for workers in (1, 2, 3):
            m = statistics.median(walls[workers])
            summary.append(f"8 videos x 6 clips, {workers} worker(s): {m:.1f} s, "
                           f"{8 * 60 / m:.2f} videos/min, {48 / m:.3f} clips/s, "
                           f"{m / base:.2f} x the 1-worker time")
    if tails:
        tails.sort()
        summary.append(f"stitch tail (last clip recorded -> video complete), {len(tails)} "
                       f"videos: median {statistics.median(tails):.2f} s, max {tails[-1]:.2f} s "
                       f"(target <= 1 s)")
    print("\nsummary")
    for line in summary:
        print("  " + line)


if __name__ == "__main__":
    main()
