#!/usr/bin/env python3
"""Clients that hang up, against a running `stillreel serve` (scripts/suites/25-hangup.sh).

Every write endpoint is sent many requests, each cut at a point the seed picks: in the middle
of its headers, in the middle of its body, right after its body, while the answer is being
written, or not at all; cut by a reset (linger 0) or a half-close. Then the invariants are
checked against the data folder and the database:

  - every file under media/uploads/<account>/ has its row, every row its file, same bytes;
  - the bytes counted never pass the account's quota; no temporary upload file is left;
  - every video not deleted has a job (no video stuck without one), every deleted video's
    folder is gone;
  - the account keeps at most 100 brand kits.

Usage: hangup.py BASE_URL API_KEY ACCOUNT DATA_DIR SQL_COMMAND... (SQL_COMMAND runs one query
given as its last argument and prints rows as `a|b`, e.g. `sqlite3 db` or `psql -At URL -c`).
Environment: HANGUP_SEED (default 1), HANGUP_REQUESTS (default 600), HANGUP_QUOTA (bytes).
"""

import json
import os
import random
import socket
import struct
import subprocess
import sys
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

CUTS = ["mid-headers", "mid-body", "after-body", "mid-answer", "none"]


def request_bytes(op, key, host, samples, ids, rng):
    """The raw request of one operation: (head, body)."""
    logo = samples["logo.png"]

    def json_req(path, payload):
        body = json.dumps(payload).encode()
        head = (
            f"POST /api/v1/{path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        return head.encode(), body

    def some(kind):
        return rng.choice(ids[kind]) if ids[kind] else "00000000-0000-4000-8000-000000000000"

    if op == "upload":
        head = (
            f"POST /api/v1/upload_media HTTP/1.1\r\nHost: {host}\r\nAuthorization: {key}\r\n"
            f"Content-Type: image/png\r\nContent-Length: {len(logo)}\r\n\r\n"
        )
        return head.encode(), logo
    if op == "upload-chunked":
        head = (
            f"POST /api/v1/upload_media HTTP/1.1\r\nHost: {host}\r\nAuthorization: {key}\r\n"
            f"Content-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        body = b""
        for i in range(0, len(logo), 4096):
            part = logo[i : i + 4096]
            body += f"{len(part):x}\r\n".encode() + part + b"\r\n"
        return head.encode(), body + b"0\r\n\r\n"
    image = f"http://{host}/samples/house-colonial.jpg"
    if op == "create":
        return json_req("create_video", {"image_inputs": [{"image_url": image}]})
    if op == "combine":
        return json_req(
            "combine_video_clips",
            {"video_clip_uuids": [some("clip")], "orientation": "landscape", "resolution": "720p"},
        )
    if op == "delete-video":
        return json_req("delete_video", {"uuid": some("video")})
    if op == "delete-upload":
        return json_req("delete_upload", {"uuid": some("upload")})
    if op == "brand-kit":
        return json_req("create_brand_kit", {"name": f"kit {rng.randrange(10**6)}"})
    if op == "update-brand-kit":
        return json_req("update_brand_kit", {"uuid": some("kit"), "name": "renamed"})
    if op == "delete-brand-kit":
        return json_req("delete_brand_kit", {"uuid": some("kit")})
    raise ValueError(op)


OPS = [
    "upload",
    "upload-chunked",
    "create",
    "combine",
    "delete-video",
    "delete-upload",
    "brand-kit",
    "update-brand-kit",
    "delete-brand-kit",
]


def send(addr, head, body, cut, reset, rng):
    """Sends the request, cut as asked; answers the complete response when it was read."""
    s = socket.create_connection(addr, timeout=10)
    try:
        if cut == "mid-headers":
            s.sendall(head[: rng.randrange(1, len(head))])
        elif cut == "mid-body":
            s.sendall(head)
            if len(body) > 1:
                s.sendall(body[: rng.randrange(1, len(body))])
        else:
            s.sendall(head + body)
        if cut == "mid-answer":
            s.recv(1)
        elif cut == "none":
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            head_end = data.find(b"\r\n\r\n")
            length = 0
            for line in data[:head_end].split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            rest = data[head_end + 4 :]
            while len(rest) < length:
                chunk = s.recv(65536)
                if not chunk:
                    break
                rest += chunk
            return data[:head_end].split(b"\r\n")[0].decode(), rest
        if reset:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        else:
            s.shutdown(socket.SHUT_WR)
        return None
    except OSError:
        return None
    finally:
        s.close()


def query(sql_cmd, sql):
    out = subprocess.run(sql_cmd + [sql], check=True, capture_output=True, text=True).stdout
    return [line.split("|") for line in out.splitlines() if line.strip()]


def main():
    base, key, account, data_dir = sys.argv[1:5]
    sql_cmd = sys.argv[5:]
    seed = int(os.environ.get("HANGUP_SEED", "1"))
    total = int(os.environ.get("HANGUP_REQUESTS", "600"))
    quota = int(os.environ["HANGUP_QUOTA"])
    url = urllib.parse.urlparse(base)
    addr = (url.hostname, url.port)
    host = f"{url.hostname}:{url.port}"
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples")
    samples = {"logo.png": open(os.path.join(root, "logo.png"), "rb").read()}
    ids = {"video": [], "clip": [], "upload": [], "kit": []}
    counts = {}

    def one(i):
        rng = random.Random(seed * 1_000_003 + i)
        op = rng.choice(OPS)
        cut = rng.choice(CUTS)
        reset = rng.random() < 0.7
        head, body = request_bytes(op, key, host, samples, ids, rng)
        answer = send(addr, head, body, cut, reset, rng)
        counts[(op, cut)] = counts.get((op, cut), 0) + 1
        if answer and answer[0].split()[1] == "200":
            try:
                record = json.loads(answer[1])
            except ValueError:
                return
            kind = {"upload": "upload", "upload-chunked": "upload", "create": "video",
                    "brand-kit": "kit"}.get(op)
            if kind and "uuid" in record:
                ids[kind].append(record["uuid"])

    started = time.time()
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(one, range(total)))
    # What a hang-up left running finishes.
    time.sleep(2)

    failures = []
    media = os.path.join(data_dir, "media")
    folder = os.path.join(media, "uploads", account.replace("-", ""))
    on_disk = {}
    if os.path.isdir(folder):
        for name in os.listdir(folder):
            on_disk[f"uploads/{account.replace('-', '')}/{name}"] = os.path.getsize(
                os.path.join(folder, name)
            )
    # The account is the only one with uploads and kits (the first-start account has none);
    # uuids are BLOBs on SQLite, so no query filters on one.
    sqlite = os.path.basename(sql_cmd[0]) == "sqlite3"
    rows = {k: int(b) for k, b in query(sql_cmd, "SELECT key, bytes FROM uploads")}
    if on_disk != rows:
        extra = sorted(set(on_disk) - set(rows))
        missing = sorted(set(rows) - set(on_disk))
        failures.append(f"files without rows {extra[:5]}, rows without files {missing[:5]}")
    if sum(rows.values()) > quota:
        failures.append(f"{sum(rows.values())} bytes counted over a quota of {quota}")
    temp = os.path.join(data_dir, "uploads-tmp")
    if os.path.isdir(temp) and os.listdir(temp):
        failures.append(f"temporary uploads left: {os.listdir(temp)[:5]}")
    stuck = query(
        sql_cmd,
        "SELECT v.status FROM videos v WHERE v.deleted_at IS NULL AND v.status IN ('queued', 'in_progress') "
        "AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.video_id = v.id AND j.state IN ('queued', 'running'))",
    )
    if stuck:
        failures.append(f"videos without a job: {stuck[:5]}")
    id_text = "lower(hex(id))" if sqlite else "CAST(id AS TEXT)"
    for (video,) in query(sql_cmd, f"SELECT {id_text} FROM videos WHERE deleted_at IS NOT NULL"):
        if sqlite:
            video = f"{video[:8]}-{video[8:12]}-{video[12:16]}-{video[16:20]}-{video[20:]}"
        if os.path.exists(os.path.join(media, "videos", video)):
            failures.append(f"deleted video {video} still has its folder")
    kits = int(query(sql_cmd, "SELECT COUNT(*) FROM brand_kits")[0][0])
    if kits > 100:
        failures.append(f"{kits} brand kits over the limit of 100")

    print(
        f"hangup: seed {seed}, {total} requests over {len(counts)} endpoint × cut pairs in "
        f"{time.time() - started:.1f} s; {len(rows)} uploads ({sum(rows.values())} of {quota} "
        f"bytes), {kits} kits"
    )
    for failure in failures:
        print(f"hangup: FAILED (seed {seed}): {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
