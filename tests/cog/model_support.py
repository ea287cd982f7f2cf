"""What the test predictors beside this file share: the record of calls the tests read, the
size of an input photo (ffprobe), and PNG files written with the standard library only.

Each predictor's folder runs as Cog's working directory; the harness puts this folder on
PYTHONPATH.
"""
import json
import os
import struct
import subprocess
import tempfile
import time
import zlib


def record(event):
    """Appends `<event> <unix time>` to the file named by STILLREEL_COG_CALLS: the tests count
    the `start` lines (model calls) and compare the times."""
    path = os.environ.get("STILLREEL_COG_CALLS")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{event} {time.time():.3f}\n")


def load_weights():
    """Takes STILLREEL_COG_SETUP_SECS (default 0) in setup(), as loading a model's weights
    does: Cog says STARTING meanwhile."""
    time.sleep(float(os.environ.get("STILLREEL_COG_SETUP_SECS", "0")))


def start_call():
    """Records a call's start, then takes STILLREEL_COG_DELAY_SECS (default 0) as a real model
    takes its time, so that tests can make calls overlap."""
    record("start")
    time.sleep(float(os.environ.get("STILLREEL_COG_DELAY_SECS", "0")))


def end_call():
    """Records a call's successful end."""
    record("end")


def photo_size(path):
    """(width, height) of a picture, as ffprobe reads it."""
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "stream=width,height", "-of", "json", str(path)],
        check=True, capture_output=True,
    ).stdout
    stream = json.loads(out)["streams"][0]
    return int(stream["width"]), int(stream["height"])


def write_png(width, height, channels, pixel):
    """A new temporary PNG of `channels` (1: grey, 3: RGB) 8-bit samples; `pixel(x, y)` gives
    one sample or an RGB tuple. Answers its path."""
    colour_type = {1: 0, 3: 2}[channels]
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter: none
        for x in range(width):
            value = pixel(x, y)
            rows.extend((value,) if channels == 1 else value)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
           + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b""))
    fd, path = tempfile.mkstemp(suffix=".png")
    with os.fdopen(fd, "wb") as f:
        f.write(png)
    return path
