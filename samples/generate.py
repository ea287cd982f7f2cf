#!/usr/bin/env python3
"""Generate the bundled sample photos: synthetic real-estate listing scenes.

We cannot download photos, so these are painted procedurally (numpy + Pillow):
sky with clouds, a house (roof, siding, warm windows, door), trees and bushes
with textured foliage, a lawn and a path; plus one living-room interior.
Output is deterministic (fixed seeds). Run:

    python3 -m venv target/pyvenv
    target/pyvenv/bin/pip install pillow numpy piexif
    target/pyvenv/bin/python samples/generate.py

Everything is drawn at 2x and downsampled for anti-aliasing.
"""
from __future__ import annotations

import io
import math
import os
import sys

import numpy as np
import piexif
from PIL import Image, ImageDraw, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
SS = 2  # supersampling factor


# ---------------------------------------------------------------- helpers
def fbm(h, w, rng, base=4, octaves=5, persistence=0.5):
    """Fractal value noise in [0, 1], shape (h, w)."""
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        nx = base * 2**o
        ny = max(2, int(round(nx * h / max(w, 1))))
        small = rng.random((ny + 1, nx + 1)).astype(np.float32)
        im = Image.fromarray(small, "F").resize((w, h), Image.BICUBIC)
        out += amp * np.asarray(im)
        total += amp
        amp *= persistence
    out /= total
    lo, hi = out.min(), out.max()
    return (out - lo) / max(hi - lo, 1e-6)


def smooth(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


def col(c):
    return np.array(c, np.float32)


def lerp(a, b, t):
    t = np.asarray(t, np.float32)
    if t.ndim == 2:
        t = t[..., None]
    return a + (b - a) * t


class Canvas:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.a = np.zeros((h, w, 3), np.float32)

    def mask(self):
        m = Image.new("L", (self.w, self.h), 0)
        return m, ImageDraw.Draw(m)

    def paint(self, mask_img, tex_fn, blur=0.0, opacity=1.0):
        """Composite tex_fn(h, w, y0, x0) -> (h, w, 3) through mask over the mask's bbox."""
        if blur:
            mask_img = mask_img.filter(ImageFilter.GaussianBlur(blur))
        bb = mask_img.getbbox()
        if not bb:
            return
        x0, y0, x1, y1 = bb
        m = np.asarray(mask_img.crop(bb), np.float32)[..., None] / 255.0 * opacity
        tex = tex_fn(y1 - y0, x1 - x0, y0, x0)
        if tex.ndim == 1:
            tex = np.broadcast_to(tex, (y1 - y0, x1 - x0, 3))
        region = self.a[y0:y1, x0:x1]
        self.a[y0:y1, x0:x1] = region * (1 - m) + tex * m

    def shade(self, mask_img, factor, blur=0.0):
        """Multiply by factor (shadow < 1, light > 1) through a (blurred) mask."""
        if blur:
            mask_img = mask_img.filter(ImageFilter.GaussianBlur(blur))
        bb = mask_img.getbbox()
        if not bb:
            return
        x0, y0, x1, y1 = bb
        m = np.asarray(mask_img.crop(bb), np.float32)[..., None] / 255.0
        f = np.asarray(factor, np.float32)
        self.a[y0:y1, x0:x1] *= 1 + (f - 1) * m

    def add_glow(self, cx, cy, radius, color, strength):
        """Additive radial glow (lamps, window light)."""
        r = int(radius * 2.5)
        x0, x1 = max(0, int(cx - r)), min(self.w, int(cx + r))
        y0, y1 = max(0, int(cy - r)), min(self.h, int(cy + r))
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        d2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (radius * radius)
        g = np.exp(-d2)[..., None] * strength
        self.a[y0:y1, x0:x1] += g * col(color)

    def image(self, out_w, out_h):
        arr = np.clip(self.a, 0, 255).astype(np.uint8)
        im = Image.fromarray(arr, "RGB")
        return im.resize((out_w, out_h), Image.LANCZOS)


def solid(c):
    c = col(c)
    return lambda h, w, y0, x0: np.broadcast_to(c, (h, w, 3)).copy()


def noisy(c, rng, amount=12.0, base=40, octaves=3):
    c = col(c)

    def f(h, w, y0, x0):
        n = fbm(h, w, rng, base=base, octaves=octaves) - 0.5
        return c + n[..., None] * amount

    return f


def vgrad(c_top, c_bot, rng=None, amount=0.0):
    a, b = col(c_top), col(c_bot)

    def f(h, w, y0, x0):
        t = np.linspace(0, 1, h, dtype=np.float32)[:, None].repeat(w, 1)
        out = lerp(a, b, t)
        if rng is not None and amount:
            out += (fbm(h, w, rng, base=60, octaves=2) - 0.5)[..., None] * amount
        return out

    return f


# ---------------------------------------------------------------- outdoor parts
def sky(cv, rng, horizon, top=(52, 110, 196), low=(176, 210, 238), cloudiness=0.55):
    h, w = horizon, cv.w
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None].repeat(w, 1)
    base = lerp(col(top), col(low), t**0.8)
    n = fbm(h, w, rng, base=3, octaves=6, persistence=0.55)
    # clouds: stretched horizontally, fewer near horizon and near the very top
    n2 = np.asarray(Image.fromarray(n, "F").resize((w, h)).transform(
        (w, h), Image.AFFINE, (0.6, 0, w * 0.2, 0, 1, 0), Image.BICUBIC))
    dens = smooth(1 - cloudiness, 1 - cloudiness + 0.22, n2) * (0.35 + 0.65 * smooth(0.0, 0.35, t))
    dens *= 1 - smooth(0.75, 1.0, t) * 0.7
    shadeu = fbm(h, w, rng, base=8, octaves=4)
    cloud = lerp(col((252, 252, 250)), col((186, 194, 210)), np.clip(shadeu * 0.9 + t * 0.2, 0, 1))
    cv.a[:h] = lerp(base, cloud, dens)


def treeline(cv, rng, horizon, height, colors=((46, 80, 40), (72, 110, 52))):
    w = cv.w
    xs = np.arange(w)
    prof = fbm(1, w, rng, base=24, octaves=4)[0]
    bumps = 0.5 + 0.5 * np.sin(xs / (w / 37.0)) * (fbm(1, w, rng, base=8, octaves=2)[0])
    top = horizon - height * (0.4 + 0.6 * prof * 0.7 + 0.3 * bumps)
    m, d = cv.mask()
    pts = [(0, horizon + 4)] + [(int(x), float(top[x])) for x in range(0, w, 3)] + [(w, horizon + 4)]
    d.polygon(pts, fill=255)
    cv.paint(m, foliage_tex(rng, colors[0], colors[1], scale=w / 900), blur=1.0)


def lawn(cv, rng, horizon, near=(70, 122, 44), far=(112, 150, 68), stripes=True):
    h, w = cv.h - horizon, cv.w
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None].repeat(w, 1)
    base = lerp(col(far), col(near), t)
    fine = fbm(h, w, rng, base=int(w / 6), octaves=2) - 0.5
    mid = fbm(h, w, rng, base=10, octaves=3) - 0.5
    base += (fine * 26 + mid * 30)[..., None]
    if stripes:
        xx = np.arange(w, dtype=np.float32)[None, :] - w / 2
        # mowing stripes converging toward a vanishing point above the horizon
        persp = xx / (0.25 + t * 1.4)
        s = (np.sin(persp / (w / 14.0)) > 0).astype(np.float32)
        base *= (1 + 0.06 * (s - 0.5))[..., None]
    cv.a[horizon:] = base


def foliage_tex(rng, dark, light, scale=1.0, sun=(-0.6, -0.8)):
    dark, light = col(dark), col(light)

    def f(h, w, y0, x0):
        big = max(4, int(w / (60 * scale) + 4))
        n = fbm(h, w, rng, base=big, octaves=4, persistence=0.6)
        leaf = fbm(h, w, rng, base=max(8, int(w / (9 * scale))), octaves=2)
        yy = np.linspace(0, 1, h, dtype=np.float32)[:, None]
        xx = np.linspace(0, 1, w, dtype=np.float32)[None, :]
        light_dir = 0.5 - (sun[0] * (xx - 0.5) + sun[1] * (yy - 0.5)) * 0.8
        v = np.clip(0.55 * n + 0.35 * leaf + 0.35 * light_dir - 0.1, 0, 1)
        v = v**1.3
        return lerp(dark, light, v)

    return f


def tree(cv, rng, x, base_y, height, width, kind="round", colors=((30, 62, 26), (118, 166, 62))):
    # soft shadow on the ground
    m, d = cv.mask()
    d.ellipse([x - width * 0.7, base_y - height * 0.03, x + width * 0.9, base_y + height * 0.06], fill=150)
    cv.shade(m, 0.6, blur=width * 0.06)
    # trunk
    tw = width * 0.09
    m, d = cv.mask()
    d.polygon([(x - tw, base_y), (x - tw * 0.5, base_y - height * 0.55), (x + tw * 0.5, base_y - height * 0.55),
               (x + tw, base_y)], fill=255)
    cv.paint(m, noisy((78, 58, 40), rng, 30, base=30))
    # crown: many overlapping blobs
    m, d = cv.mask()
    cy = base_y - height * (0.62 if kind == "round" else 0.55)
    n = 70 if kind == "round" else 160
    if kind == "conifer":
        # a solid cone under the blobs keeps the silhouette a clean spire
        d.polygon([(x - width * 0.42, base_y - height * 0.15), (x + width * 0.42, base_y - height * 0.15),
                   (x, base_y - height * 1.0)], fill=255)
    for _ in range(n):
        if kind == "conifer":
            fy = rng.random()
            yy = base_y - height * (0.15 + 0.85 * fy)
            half = width * 0.42 * (1 - fy)
            xx = x + (rng.random() - 0.5) * 2 * half
            r = width * (0.03 + 0.04 * rng.random()) * (1.2 - fy * 0.6)
        else:
            ang = rng.random() * 2 * math.pi
            rad = math.sqrt(rng.random())
            xx = x + math.cos(ang) * rad * width * 0.42
            yy = cy + math.sin(ang) * rad * height * 0.33
            r = width * (0.1 + 0.1 * rng.random())
        d.ellipse([xx - r, yy - r, xx + r, yy + r], fill=255)
    m = m.filter(ImageFilter.GaussianBlur(1.2))
    cv.paint(m, foliage_tex(rng, colors[0], colors[1], scale=width / 300))


def bush_row(cv, rng, x0, x1, base_y, height, colors=((34, 70, 28), (110, 160, 64))):
    m, d = cv.mask()
    x = x0
    while x < x1:
        r = height * (0.45 + 0.35 * rng.random())
        d.ellipse([x - r, base_y - 2 * r * 0.9, x + r, base_y + r * 0.2], fill=255)
        x += r * 0.9
    sh, sd = cv.mask()
    sd.rectangle([x0 - height * 0.3, base_y - height * 0.2, x1 + height * 0.3, base_y + height * 0.15], fill=170)
    cv.shade(sh, 0.65, blur=height * 0.2)
    cv.paint(m.filter(ImageFilter.GaussianBlur(1.0)), foliage_tex(rng, colors[0], colors[1], scale=height / 80))


def flowers(cv, rng, x0, x1, y, height, palette=((220, 60, 80), (245, 200, 60), (240, 240, 240), (200, 90, 200))):
    for _ in range(int((x1 - x0) / (height * 0.08))):
        fx = x0 + rng.random() * (x1 - x0)
        fy = y - rng.random() * height * 0.9
        r = height * (0.04 + 0.04 * rng.random())
        m, d = cv.mask()
        d.ellipse([fx - r, fy - r, fx + r, fy + r], fill=255)
        c = palette[int(rng.integers(len(palette)))]
        cv.paint(m, solid(c))


# ---------------------------------------------------------------- house parts
def siding_tex(base, rng, spacing, vertical=False):
    base = col(base)

    def f(h, w, y0, x0):
        yy = (np.arange(h, dtype=np.float32) + y0)[:, None]
        xx = (np.arange(w, dtype=np.float32) + x0)[None, :]
        coord = xx if vertical else yy
        ph = (coord % spacing) / spacing
        # each board lighter at its bottom lip, a dark groove at the joint
        board = 0.96 + 0.06 * ph - 0.22 * (ph > 0.9)
        n = fbm(h, w, rng, base=30, octaves=2) - 0.5
        v = board * np.ones((h, w), np.float32) + n * 0.05
        return base * v[..., None]

    return f


def brick_tex(rng, base=(150, 72, 52), mortar=(200, 190, 175), bh=14.0):
    base, mortar = col(base), col(mortar)

    def f(h, w, y0, x0):
        yy = (np.arange(h, dtype=np.float32) + y0)[:, None].repeat(w, 1)
        xx = (np.arange(w, dtype=np.float32) + x0)[None, :].repeat(h, 0)
        row = np.floor(yy / bh)
        bx = xx / (bh * 2.6) + (row % 2) * 0.5
        ph_y = (yy % bh) / bh
        ph_x = bx % 1.0
        is_m = (ph_y > 0.84) | (ph_x > 0.95)
        rid = (np.floor(bx) * 7.13 + row * 3.71) % 1.0
        v = 0.8 + 0.35 * ((np.sin(rid * 91.7) * 0.5 + 0.5))
        out = base * v[..., None]
        out[is_m] = mortar
        n = fbm(h, w, rng, base=20, octaves=2) - 0.5
        return out + n[..., None] * 20

    return f


def shingle_tex(rng, base, row_h):
    base = col(base)

    def f(h, w, y0, x0):
        yy = (np.arange(h, dtype=np.float32) + y0)[:, None].repeat(w, 1)
        xx = (np.arange(w, dtype=np.float32) + x0)[None, :].repeat(h, 0)
        row = np.floor(yy / row_h)
        ph = (yy % row_h) / row_h
        tab = np.floor(xx / (row_h * 1.6) + (row % 2) * 0.5)
        rid = np.sin(tab * 12.9898 + row * 78.233) * 43758.5453 % 1.0
        v = 0.82 + 0.28 * rid + 0.1 * ph - 0.35 * (ph < 0.1)
        n = fbm(h, w, rng, base=int(w / 8) + 4, octaves=2) - 0.5
        return base * (v + n * 0.25)[..., None]

    return f


def window(cv, rng, x, y, w, h, trim=(245, 245, 240), shutters=None, lit=1.0, mullions=(1, 1)):
    t = max(3, w * 0.07)
    # shadow below the sill and trim
    m, d = cv.mask()
    d.rectangle([x - t * 0.6, y + h, x + w + t * 0.6, y + h + t * 1.5], fill=200)
    cv.shade(m, 0.7, blur=t * 0.6)
    if shutters:
        for sx in (x - t - w * 0.38, x + w + t):
            m, d = cv.mask()
            d.rectangle([sx, y - t, sx + w * 0.38, y + h + t], fill=255)
            cv.paint(m, siding_tex(shutters, rng, max(4, h / 14), vertical=False))
    m, d = cv.mask()
    d.rectangle([x - t, y - t, x + w + t, y + h + t * 1.3], fill=255)
    cv.paint(m, noisy(trim, rng, 8, base=10))
    # glass: warm interior light, brighter at the centre, a hint of curtains
    m, d = cv.mask()
    d.rectangle([x, y, x + w, y + h], fill=255)
    warm_hi, warm_lo = col((255, 226, 150)), col((214, 132, 56))
    cool = col((96, 118, 138))

    def glass(hh, ww, y0, x0):
        yy = np.linspace(-1, 1, hh, dtype=np.float32)[:, None]
        xx = np.linspace(-1, 1, ww, dtype=np.float32)[None, :]
        r = np.sqrt(xx**2 * 0.8 + (yy + 0.2) ** 2)
        warm = lerp(warm_hi, warm_lo, np.clip(r, 0, 1))
        curtain = smooth(0.65, 0.85, np.abs(xx)) * (0.7 + 0.3 * np.sin(xx * 40) ** 2)
        warm = lerp(warm, warm * 0.7, curtain * np.ones_like(yy))
        out = lerp(cool, warm, lit)
        # reflection: a diagonal sheen
        sheen = smooth(0.0, 0.15, 0.15 - np.abs(xx * 0.5 + yy * 0.5 - 0.3)) * 0.25
        return out + sheen[..., None] * 255 * 0.3

    cv.paint(m, glass)
    # mullions
    mt = max(2, t * 0.45)
    cols, rows = mullions
    for i in range(1, cols + 1):
        mx = x + w * i / (cols + 1)
        m, d = cv.mask()
        d.rectangle([mx - mt / 2, y, mx + mt / 2, y + h], fill=255)
        cv.paint(m, solid(trim))
    for j in range(1, rows + 1):
        my = y + h * j / (rows + 1)
        m, d = cv.mask()
        d.rectangle([x, my - mt / 2, x + w, my + mt / 2], fill=255)
        cv.paint(m, solid(trim))
    # a little glow spilling onto the wall
    cv.add_glow(x + w / 2, y + h / 2, max(w, h) * 0.5, (255, 180, 90), 0.18 * lit)


def door(cv, rng, x, y, w, h, color=(140, 30, 34), trim=(245, 245, 240), light=True):
    t = w * 0.1
    m, d = cv.mask()
    d.rectangle([x - t, y - t, x + w + t, y + h], fill=255)
    cv.paint(m, noisy(trim, rng, 8, base=10))
    m, d = cv.mask()
    d.rectangle([x, y, x + w, y + h], fill=255)
    cv.paint(m, noisy(color, rng, 14, base=8))
    # raised panels
    pw, ph = w * 0.32, h * 0.3
    for px in (x + w * 0.12, x + w * 0.56):
        for py in (y + h * 0.08, y + h * 0.55):
            m, d = cv.mask()
            d.rectangle([px, py, px + pw, py + ph], outline=255, width=max(2, int(w * 0.025)))
            cv.shade(m, 0.7)
    # knob
    m, d = cv.mask()
    r = w * 0.04
    d.ellipse([x + w * 0.82 - r, y + h * 0.52 - r, x + w * 0.82 + r, y + h * 0.52 + r], fill=255)
    cv.paint(m, solid((220, 180, 80)))
    if light:
        lx, ly = x + w + t * 2.2, y + h * 0.25
        m, d = cv.mask()
        d.rectangle([lx - w * 0.06, ly - w * 0.1, lx + w * 0.06, ly + w * 0.1], fill=255)
        cv.paint(m, solid((255, 236, 170)))
        cv.add_glow(lx, ly, w * 0.35, (255, 190, 100), 0.55)


def house(cv, rng, cx, base_y, width, style):
    """Draw a house facade centred at cx with its foundation at base_y. Returns door bbox."""
    s = style
    wall_h = width * s["wall_h"]
    x0, x1 = cx - width / 2, cx + width / 2
    top = base_y - wall_h
    # overall soft shadow on the ground
    m, d = cv.mask()
    d.rectangle([x0 - width * 0.02, base_y - width * 0.01, x1 + width * 0.06, base_y + width * 0.03], fill=190)
    cv.shade(m, 0.55, blur=width * 0.012)
    # walls
    m, d = cv.mask()
    d.rectangle([x0, top, x1, base_y], fill=255)
    if s.get("brick"):
        cv.paint(m, brick_tex(rng, base=s["wall"], bh=width * 0.012))
    else:
        cv.paint(m, siding_tex(s["wall"], rng, width * 0.012))
    # foundation
    m, d = cv.mask()
    d.rectangle([x0, base_y - width * 0.025, x1, base_y], fill=255)
    cv.paint(m, noisy((150, 146, 140), rng, 18, base=40))
    # garage wing
    if s.get("garage"):
        gx0, gx1 = x1, x1 + width * 0.42
        gtop = base_y - wall_h * 0.55
        m, d = cv.mask()
        d.rectangle([gx0, gtop, gx1, base_y], fill=255)
        cv.paint(m, siding_tex(s["wall"], rng, width * 0.012))
        gdx0, gdx1 = gx0 + width * 0.05, gx1 - width * 0.05
        gdy0 = gtop + wall_h * 0.14
        m, d = cv.mask()
        d.rectangle([gdx0, gdy0, gdx1, base_y], fill=255)
        cv.paint(m, siding_tex((236, 236, 232), rng, (base_y - gdy0) / 4))
        m, d = cv.mask()
        d.rectangle([gdx0, gdy0, gdx1, gdy0 + width * 0.012], fill=255)
        cv.shade(m, 0.6, blur=width * 0.006)
        # garage roof
        ov = width * 0.03
        m, d = cv.mask()
        d.polygon([(gx0 - ov, gtop), (gx1 + ov, gtop), (gx1 - width * 0.08, gtop - wall_h * 0.25),
                   (gx0, gtop - wall_h * 0.25)], fill=255)
        cv.paint(m, shingle_tex(rng, s["roof"], width * 0.011))
    # roof
    ov = width * 0.05
    rh = width * s["roof_h"]
    m, d = cv.mask()
    if s["roof_kind"] == "gable":
        d.polygon([(x0 - ov, top + ov * 0.2), (x1 + ov, top + ov * 0.2), (cx, top - rh)], fill=255)
    else:  # hip
        d.polygon([(x0 - ov, top + ov * 0.2), (x1 + ov, top + ov * 0.2), (x1 - width * 0.18, top - rh),
                   (x0 + width * 0.18, top - rh)], fill=255)
    cv.paint(m, shingle_tex(rng, s["roof"], width * 0.011))
    # roof lit side / shaded side for gable
    if s["roof_kind"] == "gable":
        m, d = cv.mask()
        d.polygon([(cx, top - rh), (x1 + ov, top + ov * 0.2), (cx, top + ov * 0.2)], fill=255)
        cv.shade(m, 0.82)
    # fascia board
    m, d = cv.mask()
    d.rectangle([x0 - ov, top + ov * 0.2 - width * 0.004, x1 + ov, top + ov * 0.2 + width * 0.01], fill=255)
    cv.paint(m, solid((240, 240, 236)))
    # eave shadow on wall
    m, d = cv.mask()
    d.rectangle([x0, top + ov * 0.2, x1, top + ov * 0.2 + width * 0.035], fill=255)
    cv.shade(m, 0.62, blur=width * 0.01)
    # chimney
    if s.get("chimney"):
        chx = x0 + width * 0.2
        m, d = cv.mask()
        d.rectangle([chx, top - rh * 1.05, chx + width * 0.06, top - rh * 0.3], fill=255)
        cv.paint(m, brick_tex(rng, bh=width * 0.009))
        m, d = cv.mask()
        d.rectangle([chx - width * 0.006, top - rh * 1.08, chx + width * 0.066, top - rh * 1.03], fill=255)
        cv.paint(m, solid((90, 86, 84)))
    # windows
    ww, wh = width * s["win_w"], width * s["win_h"]
    floors = s["floors"]
    door_w, door_h = width * 0.085, width * 0.19
    for f in range(floors):
        fy = top + wall_h * (0.12 + f / floors) if floors > 1 else top + wall_h * 0.28
        n = s["win_cols"]
        for i in range(n):
            wx = x0 + width * (i + 0.5) / n - ww / 2
            if f == floors - 1 and abs(wx + ww / 2 - cx) < door_w * 1.5:
                continue  # door goes here
            window(cv, rng, wx, fy, ww, wh, shutters=s.get("shutters"), lit=s.get("lit", 1.0),
                   mullions=s.get("mullions", (1, 1)))
    # porch roof over door
    dx, dy = cx - door_w / 2, base_y - width * 0.025 - door_h
    if s.get("porch"):
        pw = door_w * 2.4
        m, d = cv.mask()
        d.polygon([(cx - pw / 2, dy - door_w * 0.2), (cx + pw / 2, dy - door_w * 0.2), (cx, dy - door_w * 0.95)],
                  fill=255)
        cv.paint(m, shingle_tex(rng, s["roof"], width * 0.008))
        m, d = cv.mask()
        d.rectangle([cx - pw / 2, dy - door_w * 0.22, cx + pw / 2, dy - door_w * 0.12], fill=255)
        cv.paint(m, solid((240, 240, 236)))
        for px in (cx - pw / 2 + door_w * 0.05, cx + pw / 2 - door_w * 0.17):
            m, d = cv.mask()
            d.rectangle([px, dy - door_w * 0.12, px + door_w * 0.12, base_y], fill=255)
            cv.paint(m, solid((246, 246, 242)))
    door(cv, rng, dx, dy, door_w, door_h, color=s["door"])
    # steps
    for k in range(2):
        m, d = cv.mask()
        sw = door_w * (1.7 + 0.4 * k)
        d.rectangle([cx - sw / 2, base_y - width * 0.025 + k * width * 0.012, cx + sw / 2,
                     base_y - width * 0.013 + k * width * 0.012], fill=255)
        cv.paint(m, noisy((176, 172, 166), rng, 14, base=20))
    return cx, base_y + width * 0.012, door_w


def path(cv, rng, cx, y_top, top_w, bot_w, color=(196, 186, 170)):
    m, d = cv.mask()
    d.polygon([(cx - top_w / 2, y_top), (cx + top_w / 2, y_top), (cx + bot_w / 2, cv.h),
               (cx - bot_w / 2, cv.h)], fill=255)
    base = col(color)
    H = cv.h

    def pavers(h, w, y0, x0):
        yy = (np.arange(h, dtype=np.float32) + y0)[:, None].repeat(w, 1)
        xx = (np.arange(w, dtype=np.float32) + x0)[None, :].repeat(h, 0)
        t = (yy - y_top) / max(H - y_top, 1)
        scale = top_w + (bot_w - top_w) * t  # perspective width at this row
        u = (xx - cx) / scale  # -0.5..0.5 across
        # row index grows non-linearly (perspective)
        v = np.sqrt(np.clip(t, 0, 1)) * 9
        joint = ((v % 1) < 0.06) | ((u * 3 + (np.floor(v) % 2) * 0.5) % 1 < 0.04)
        n = fbm(h, w, rng, base=30, octaves=3) - 0.5
        out = base * (1 + n * 0.18)[..., None]
        out[joint] *= 0.72
        return out

    cv.paint(m, pavers)


# ---------------------------------------------------------------- scenes
def exterior(w, h, seed, style, layout):
    rng = np.random.default_rng(seed)
    W, H = w * SS, h * SS
    cv = Canvas(W, H)
    horizon = int(H * layout["horizon"])
    sky(cv, rng, horizon, cloudiness=layout.get("clouds", 0.55))
    treeline(cv, rng, horizon, H * 0.09)
    lawn(cv, rng, horizon)
    hw = W * layout["house_w"]
    cx = W * layout.get("house_x", 0.5)
    base_y = H * layout["base_y"]
    # trees behind the house
    for tx, th, tw, kind in layout.get("back_trees", []):
        tree(cv, rng, W * tx, base_y - H * 0.02, H * th, W * tw, kind=kind)
    dcx, dy, dw = house(cv, rng, cx, base_y, hw, style)
    path(cv, rng, dcx, dy, dw * 1.4, W * 0.28)
    bush_row(cv, rng, cx - hw / 2 + hw * 0.02, dcx - dw * 1.2, base_y + hw * 0.01, hw * 0.06)
    bush_row(cv, rng, dcx + dw * 1.2, cx + hw / 2 - hw * 0.02, base_y + hw * 0.01, hw * 0.06)
    flowers(cv, rng, cx - hw / 2, dcx - dw * 1.3, base_y + hw * 0.02, hw * 0.06)
    flowers(cv, rng, dcx + dw * 1.3, cx + hw / 2, base_y + hw * 0.02, hw * 0.06)
    for tx, th, tw, kind in layout.get("front_trees", []):
        tree(cv, rng, W * tx, H * 0.93, H * th, W * tw, kind=kind)
    # gentle vignette, as a lens would make
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    r = ((xx / W - 0.5) ** 2 + (yy / H - 0.5) ** 2) * 2
    cv.a *= (1 - 0.22 * r)[..., None]
    return cv.image(w, h)


def interior(w, h, seed):
    rng = np.random.default_rng(seed)
    W, H = w * SS, h * SS
    cv = Canvas(W, H)
    floor_y = int(H * 0.7)
    ceil_y = int(H * 0.08)
    # back wall with soft light falloff
    cv.a[:, :] = vgrad((214, 204, 188), (196, 184, 166), rng, 6)(H, W, 0, 0)
    # ceiling band
    m, d = cv.mask()
    d.polygon([(0, 0), (W, 0), (W, ceil_y), (0, ceil_y)], fill=255)
    cv.paint(m, vgrad((236, 232, 224), (226, 220, 210)))
    m, d = cv.mask()
    d.rectangle([0, ceil_y, W, ceil_y + H * 0.018], fill=255)
    cv.paint(m, solid((246, 244, 238)))
    m, d = cv.mask()
    d.rectangle([0, ceil_y + H * 0.018, W, ceil_y + H * 0.03], fill=255)
    cv.shade(m, 0.85, blur=H * 0.006)
    # wooden floor with planks in perspective
    vp = (W * 0.5, H * 0.3)
    m, d = cv.mask()
    d.rectangle([0, floor_y, W, H], fill=255)
    base = col((150, 104, 64))

    def planks(hh, ww, y0, x0):
        yy = (np.arange(hh, dtype=np.float32) + y0)[:, None].repeat(ww, 1)
        xx = (np.arange(ww, dtype=np.float32) + x0)[None, :].repeat(hh, 0)
        depth = (yy - vp[1]) / (H - vp[1])
        u = (xx - vp[0]) / depth  # lines converge to vp
        board = np.floor(u / (W * 0.06))
        ph = (u / (W * 0.06)) % 1
        rid = np.sin(board * 12.9898) * 43758.5453 % 1
        grain = fbm(hh, ww, rng, base=80, octaves=2)
        v = 0.82 + 0.25 * rid + 0.12 * grain - 0.3 * (ph < 0.025)
        z = 1 / depth
        cross = ((z * 3 + rid * 7) % 4) < 0.04
        v = np.where(cross, v * 0.75, v)
        # reflection of the window on the floor
        return base * v[..., None]

    cv.paint(m, planks)
    # baseboard
    m, d = cv.mask()
    d.rectangle([0, floor_y - H * 0.03, W, floor_y], fill=255)
    cv.paint(m, solid((244, 242, 236)))
    # window on the left with a view of sky and trees
    wx0, wy0, wx1, wy1 = W * 0.08, H * 0.18, W * 0.36, H * 0.6
    m, d = cv.mask()
    d.rectangle([wx0 - W * 0.012, wy0 - W * 0.012, wx1 + W * 0.012, wy1 + W * 0.02], fill=255)
    cv.paint(m, solid((246, 246, 242)))
    sub = Canvas(int(wx1 - wx0), int(wy1 - wy0))
    sky(sub, rng, int(sub.h * 0.6), top=(120, 170, 225), low=(210, 230, 245), cloudiness=0.5)
    lawn(sub, rng, int(sub.h * 0.6), stripes=False)
    tree(sub, rng, sub.w * 0.3, sub.h * 0.75, sub.h * 0.7, sub.w * 0.5)
    tree(sub, rng, sub.w * 0.85, sub.h * 0.7, sub.h * 0.55, sub.w * 0.4)
    sub.a = sub.a * 0.75 + 255 * 0.28  # overexposed, as outdoor views are indoors
    cv.a[int(wy0):int(wy0) + sub.h, int(wx0):int(wx0) + sub.w] = sub.a
    for fx in (0.5,):
        m, d = cv.mask()
        mx = wx0 + (wx1 - wx0) * fx
        d.rectangle([mx - W * 0.005, wy0, mx + W * 0.005, wy1], fill=255)
        d.rectangle([wx0, wy0 + (wy1 - wy0) * 0.45, wx1, wy0 + (wy1 - wy0) * 0.45 + W * 0.008], fill=255)
        cv.paint(m, solid((246, 246, 242)))
    # sunlight patch on floor from window
    m, d = cv.mask()
    d.polygon([(wx0 + W * 0.05, floor_y + H * 0.02), (wx1 + W * 0.02, floor_y + H * 0.02), (wx1 + W * 0.2, H),
               (wx0 + W * 0.1, H)], fill=140)
    cv.shade(m, 1.35, blur=W * 0.01)
    # curtains
    for cx0 in (wx0 - W * 0.06, wx1 + W * 0.005):
        m, d = cv.mask()
        d.rectangle([cx0, wy0 - H * 0.06, cx0 + W * 0.055, floor_y - H * 0.04], fill=255)

        def drape(hh, ww, y0, x0):
            xx = np.linspace(0, 1, ww, dtype=np.float32)[None, :]
            fold = 0.8 + 0.2 * np.sin(xx * math.pi * 7) ** 2
            return col((236, 226, 206)) * fold[..., None] * np.ones((hh, 1, 1), np.float32)

        cv.paint(m, drape)
    # curtain rod
    m, d = cv.mask()
    d.rectangle([wx0 - W * 0.07, wy0 - H * 0.07, wx1 + W * 0.07, wy0 - H * 0.06], fill=255)
    cv.paint(m, solid((60, 56, 52)))
    # framed art above sofa
    ax0, ay0, ax1, ay1 = W * 0.52, H * 0.2, W * 0.76, H * 0.4
    m, d = cv.mask()
    d.rectangle([ax0 + W * 0.006, ay0 + W * 0.01, ax1 + W * 0.012, ay1 + W * 0.014], fill=160)
    cv.shade(m, 0.7, blur=W * 0.006)
    m, d = cv.mask()
    d.rectangle([ax0, ay0, ax1, ay1], fill=255)
    cv.paint(m, solid((40, 36, 32)))
    m, d = cv.mask()
    d.rectangle([ax0 + W * 0.01, ay0 + W * 0.01, ax1 - W * 0.01, ay1 - W * 0.01], fill=255)
    sky_art = Canvas(int(ax1 - ax0 - W * 0.02), int(ay1 - ay0 - W * 0.02))
    sky(sky_art, rng, int(sky_art.h * 0.62), top=(200, 120, 90), low=(250, 200, 140), cloudiness=0.4)
    sky_art.a[int(sky_art.h * 0.62):] = lawn_sea = vgrad((40, 80, 110), (20, 40, 60))(
        sky_art.h - int(sky_art.h * 0.62), sky_art.w, 0, 0)
    del lawn_sea
    y0a, x0a = int(ay0 + W * 0.01), int(ax0 + W * 0.01)
    cv.a[y0a:y0a + sky_art.h, x0a:x0a + sky_art.w] = sky_art.a
    # sofa
    sx0, sx1 = W * 0.44, W * 0.86
    sy_back, sy_seat, sy_base = H * 0.44, H * 0.6, H * 0.76
    fabric = col((92, 108, 128))

    def fabric_tex(c):
        c = col(c)

        def f(hh, ww, y0, x0):
            n = fbm(hh, ww, rng, base=int(ww / 4) + 4, octaves=2) - 0.5
            yy = np.linspace(0, 1, hh, dtype=np.float32)[:, None]
            return c * (1.05 - 0.18 * yy + n * 0.08)[..., None] * np.ones((1, ww, 1), np.float32)

        return f

    m, d = cv.mask()
    d.ellipse([sx0 - W * 0.02, sy_base - H * 0.03, sx1 + W * 0.02, sy_base + H * 0.05], fill=200)
    cv.shade(m, 0.5, blur=W * 0.012)
    m, d = cv.mask()
    d.rounded_rectangle([sx0, sy_back, sx1, sy_base], radius=W * 0.02, fill=255)
    cv.paint(m, fabric_tex(fabric * 0.85))
    # back cushions
    n_c = 3
    cw = (sx1 - sx0 - W * 0.08) / n_c
    for i in range(n_c):
        m, d = cv.mask()
        x = sx0 + W * 0.04 + i * cw
        d.rounded_rectangle([x + W * 0.003, sy_back + H * 0.015, x + cw - W * 0.003, sy_seat + H * 0.01],
                            radius=W * 0.015, fill=255)
        cv.paint(m, fabric_tex(fabric))
        m, d = cv.mask()
        d.rounded_rectangle([x + W * 0.003, sy_seat - H * 0.01, x + cw - W * 0.003, sy_seat + H * 0.06],
                            radius=W * 0.012, fill=255)
        cv.paint(m, fabric_tex(fabric * 1.08))
    # arms
    for ax in (sx0, sx1 - W * 0.045):
        m, d = cv.mask()
        d.rounded_rectangle([ax, sy_seat - H * 0.06, ax + W * 0.045, sy_base], radius=W * 0.015, fill=255)
        cv.paint(m, fabric_tex(fabric * 0.95))
    # throw pillows
    for px, pc in ((sx0 + W * 0.07, (220, 170, 70)), (sx1 - W * 0.14, (226, 222, 210))):
        m, d = cv.mask()
        d.rounded_rectangle([px, sy_seat - H * 0.1, px + W * 0.07, sy_seat + H * 0.01], radius=W * 0.012, fill=255)
        cv.paint(m, fabric_tex(pc))
    # legs
    for lx in (sx0 + W * 0.02, sx1 - W * 0.03):
        m, d = cv.mask()
        d.rectangle([lx, sy_base, lx + W * 0.01, sy_base + H * 0.03], fill=255)
        cv.paint(m, solid((50, 36, 26)))
    # rug
    m, d = cv.mask()
    d.polygon([(W * 0.3, H * 0.8), (W * 0.98, H * 0.8), (W * 1.1, H * 1.0), (W * 0.22, H * 1.0)], fill=255)

    def rug(hh, ww, y0, x0):
        yy = (np.arange(hh, dtype=np.float32) + y0)[:, None].repeat(ww, 1)
        xx = (np.arange(ww, dtype=np.float32) + x0)[None, :].repeat(hh, 0)
        border = ((yy - H * 0.8) < H * 0.02) | ((H - yy) < H * 0.02)
        pat = (np.sin(xx / (W * 0.01)) * np.sin(yy / (H * 0.015))) > 0.3
        c = np.where(border[..., None], col((110, 50, 40)),
                     np.where(pat[..., None], col((210, 200, 180)), col((190, 176, 150))))
        n = fbm(hh, ww, rng, base=int(ww / 3), octaves=2) - 0.5
        return c * (1 + n * 0.12)[..., None]

    cv.paint(m, rug)
    # coffee table
    tx0, tx1, ty = W * 0.5, W * 0.8, H * 0.83
    m, d = cv.mask()
    d.ellipse([tx0, ty + H * 0.06, tx1, ty + H * 0.12], fill=170)
    cv.shade(m, 0.6, blur=W * 0.01)
    for lx in (tx0 + W * 0.02, tx1 - W * 0.03):
        m, d = cv.mask()
        d.rectangle([lx, ty, lx + W * 0.012, ty + H * 0.1], fill=255)
        cv.paint(m, solid((70, 48, 32)))
    m, d = cv.mask()
    d.polygon([(tx0 + W * 0.02, ty - H * 0.03), (tx1 - W * 0.02, ty - H * 0.03), (tx1, ty + H * 0.01),
               (tx0, ty + H * 0.01)], fill=255)
    cv.paint(m, noisy((120, 82, 52), rng, 20, base=60))
    m, d = cv.mask()
    d.rectangle([tx0, ty + H * 0.01, tx1, ty + H * 0.025], fill=255)
    cv.paint(m, solid((84, 56, 36)))
    # vase with flowers on the table
    m, d = cv.mask()
    d.rounded_rectangle([W * 0.62, ty - H * 0.09, W * 0.645, ty - H * 0.015], radius=W * 0.008, fill=255)
    cv.paint(m, solid((236, 236, 240)))
    flowers(cv, rng, W * 0.6, W * 0.665, ty - H * 0.08, H * 0.06)
    # floor lamp on the right with a warm glowing shade
    lx = W * 0.92
    m, d = cv.mask()
    d.rectangle([lx - W * 0.003, H * 0.3, lx + W * 0.003, H * 0.78], fill=255)
    d.ellipse([lx - W * 0.025, H * 0.77, lx + W * 0.025, H * 0.79], fill=255)
    cv.paint(m, solid((40, 38, 36)))
    cv.add_glow(lx, H * 0.27, W * 0.1, (255, 170, 80), 0.7)
    m, d = cv.mask()
    d.polygon([(lx - W * 0.03, H * 0.2), (lx + W * 0.03, H * 0.2), (lx + W * 0.045, H * 0.32),
               (lx - W * 0.045, H * 0.32)], fill=255)
    cv.paint(m, vgrad((255, 236, 190), (255, 206, 130)))
    # potted plant on the far left
    px = W * 0.04
    m, d = cv.mask()
    d.polygon([(px - W * 0.03, H * 0.68), (px + W * 0.03, H * 0.68), (px + W * 0.022, H * 0.8),
               (px - W * 0.022, H * 0.8)], fill=255)
    cv.paint(m, noisy((180, 90, 60), rng, 14, base=10))
    tree(cv, rng, px, H * 0.7, H * 0.45, W * 0.12)
    # ceiling fan
    fx, fy = W * 0.62, ceil_y + H * 0.02
    m, d = cv.mask()
    d.rectangle([fx - W * 0.003, ceil_y, fx + W * 0.003, fy + H * 0.03], fill=255)
    d.ellipse([fx - W * 0.02, fy + H * 0.02, fx + W * 0.02, fy + H * 0.05], fill=255)
    for ang in (10, 100, 190, 280):
        a = math.radians(ang)
        bx, by = fx + math.cos(a) * W * 0.13, fy + H * 0.035 + math.sin(a) * H * 0.025
        pts = []
        for k in range(16):
            tt = k / 15
            px_ = fx + (bx - fx) * tt
            py_ = fy + H * 0.035 + (by - fy - H * 0.035) * tt
            off = math.sin(tt * math.pi) * W * 0.012 + W * 0.004
            pts.append((px_ - math.sin(a) * off * 0.3, py_ - off * 0.35))
        for k in range(15, -1, -1):
            tt = k / 15
            px_ = fx + (bx - fx) * tt
            py_ = fy + H * 0.035 + (by - fy - H * 0.035) * tt
            off = math.sin(tt * math.pi) * W * 0.012 + W * 0.004
            pts.append((px_ + math.sin(a) * off * 0.3, py_ + off * 0.35))
        d.polygon(pts, fill=255)
    cv.paint(m, solid((92, 64, 44)))
    # room vignette: corners darker, light from the window side
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    r = ((xx / W - 0.45) ** 2 + (yy / H - 0.5) ** 2) * 2
    cv.a *= (1 - 0.28 * r)[..., None]
    return cv.image(w, h)


COLONIAL = dict(wall=(236, 234, 226), roof=(74, 76, 82), roof_kind="hip", roof_h=0.17, wall_h=0.46, floors=2,
                win_cols=5, win_w=0.085, win_h=0.12, door=(128, 26, 32), shutters=(40, 52, 46), chimney=True,
                porch=True, mullions=(1, 2))
BUNGALOW = dict(wall=(206, 176, 132), roof=(108, 72, 52), roof_kind="gable", roof_h=0.22, wall_h=0.28, floors=1,
                win_cols=4, win_w=0.11, win_h=0.12, door=(44, 70, 96), porch=True, garage=True, mullions=(1, 1))
TOWNHOUSE = dict(wall=(168, 86, 62), brick=True, roof=(60, 60, 66), roof_kind="gable", roof_h=0.32, wall_h=0.95,
                 floors=3, win_cols=2, win_w=0.2, win_h=0.2, door=(30, 40, 36), chimney=True, mullions=(1, 1))
MODERN = dict(wall=(120, 134, 146), roof=(58, 62, 70), roof_kind="hip", roof_h=0.1, wall_h=0.4, floors=2,
              win_cols=4, win_w=0.13, win_h=0.12, door=(176, 120, 60), garage=True, mullions=(1, 0))
FARM = dict(wall=(248, 246, 240), roof=(56, 60, 64), roof_kind="gable", roof_h=0.28, wall_h=0.42, floors=2,
            win_cols=3, win_w=0.1, win_h=0.13, door=(30, 34, 44), shutters=(30, 34, 40), porch=True,
            mullions=(1, 2))


def save_jpeg(im, name, quality=82, exif=None):
    p = os.path.join(HERE, name)
    kw = dict(quality=quality, optimize=True, progressive=True)
    if exif is not None:
        kw["exif"] = exif
    im.save(p, "JPEG", **kw)
    return p


def main():
    out = []
    im = exterior(2400, 1600, 1, COLONIAL, dict(horizon=0.5, house_w=0.55, base_y=0.7,
                                                 back_trees=[(0.2, 0.5, 0.16, "round"), (0.8, 0.55, 0.18, "round")],
                                                 front_trees=[(0.06, 0.8, 0.16, "round"), (0.95, 0.75, 0.14, "round")]))
    out.append(save_jpeg(im, "house-colonial.jpg", quality=70))

    im = exterior(1600, 1067, 2, BUNGALOW, dict(horizon=0.52, house_w=0.5, house_x=0.42, base_y=0.74, clouds=0.5,
                                                 back_trees=[(0.12, 0.45, 0.18, "round")],
                                                 front_trees=[(0.92, 0.85, 0.2, "round")]))
    out.append(save_jpeg(im, "house-bungalow.jpg", quality=78))

    im = exterior(1200, 1600, 3, TOWNHOUSE, dict(horizon=0.55, house_w=0.5, base_y=0.78, clouds=0.5,
                                                  back_trees=[(0.12, 0.35, 0.28, "conifer")],
                                                  front_trees=[(0.88, 0.55, 0.3, "round")]))
    out.append(save_jpeg(im, "house-townhouse-portrait.jpg", quality=78))

    im = interior(1920, 1080, 4)
    # A true-colour PNG of this scene is 1.2 MB; a 256-colour palette with Floyd-Steinberg dithering
    # keeps it under 600 KB without visible banding (Pillow only dithers when given a palette).
    p = os.path.join(HERE, "living-room.png")
    pal = im.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    im.quantize(palette=pal, dither=Image.Dither.FLOYDSTEINBERG).save(p, "PNG", optimize=True)
    out.append(p)

    im = exterior(1024, 768, 5, MODERN, dict(horizon=0.5, house_w=0.55, house_x=0.42, base_y=0.72, clouds=0.6,
                                              back_trees=[(0.85, 0.4, 0.2, "conifer")],
                                              front_trees=[(0.06, 0.7, 0.18, "round")]))
    p = os.path.join(HERE, "house-modern.webp")
    im.save(p, "WEBP", quality=82, method=6)
    out.append(p)

    # A phone-style photo: pixels stored sideways, EXIF Orientation=6 ("rotate 90 CW to display").
    # Displayed upright it is a 1600x1200 landscape farmhouse.
    im = exterior(1600, 1200, 6, FARM, dict(horizon=0.5, house_w=0.56, base_y=0.74, clouds=0.45,
                                             back_trees=[(0.15, 0.5, 0.18, "round"), (0.86, 0.45, 0.16, "conifer")],
                                             front_trees=[(0.05, 0.75, 0.14, "conifer")]))
    stored = im.transpose(Image.Transpose.ROTATE_90)  # counter-clockwise, undone by Orientation 6
    exif = piexif.dump({"0th": {piexif.ImageIFD.Orientation: 6, piexif.ImageIFD.Make: b"stillreel",
                                piexif.ImageIFD.Model: b"samples/generate.py"}})
    out.append(save_jpeg(stored, "house-farm-exif-rotated.jpg", quality=78, exif=exif))

    for p in out:
        with Image.open(p) as im:
            sys.stderr.write(f"{os.path.basename(p)}: {im.size[0]}x{im.size[1]} {im.format} "
                             f"{os.path.getsize(p) // 1024} KB\n")


if __name__ == "__main__":
    main()
