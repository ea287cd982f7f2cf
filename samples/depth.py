#!/usr/bin/env python3
"""Paints samples/living-room-depth.png: a synthetic depth map of living-room.png (half its size,
960x540, 8-bit grey, brighter is nearer), standing in for a depth provider's output. Standard
library only; deterministic. Regions follow the painted room: the view through the window is
farthest, the back wall (and the picture, fan, curtains on it) behind the furniture, the floor a
gradient from the wall to the camera, then the sofa, lamp, plant and coffee table in front.

    python3 samples/depth.py
"""
import os
import struct
import zlib

W, H = 960, 540
S = 1920 / W  # regions below are in living-room.png's pixels


def box(x0, y0, x1, y1):
    return lambda x, y: x0 <= x < x1 and y0 <= y < y1


def depth_at(x, y):
    """Nearness 0..255 at living-room.png pixel (x, y)."""
    # Front to back: the first region that holds the point decides.
    if box(960, 864, 1536, 1010)(x, y) or box(995, 1000, 1020, 1005)(x, y):
        return 235  # coffee table
    if box(0, 285, 215, 870)(x, y):
        return 205  # plant and pot
    if box(1680, 215, 1855, 855)(x, y):
        return 150  # floor lamp
    if box(845, 475, 1652, 852)(x, y):
        return 165  # sofa
    if y >= 758:  # floor: from the wall's foot (far) to the bottom edge (nearest)
        return int(70 + (y - 758) / (1080 - 758) * 185)
    if box(145, 171, 700, 686)(x, y):
        return 15  # the view through the window
    return 60  # back wall, picture, fan, curtains, ceiling


def png(path, width, height, rows):
    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


rows = [[depth_at((x + 0.5) * S, (y + 0.5) * S) for x in range(W)] for y in range(H)]
png(os.path.join(os.path.dirname(os.path.abspath(__file__)), "living-room-depth.png"), W, H, rows)
