#!/usr/bin/env python3
"""Makes every kind of video a user asks for against a running `stillreel serve` started as
`scripts/run.sh` starts it (scripts/suites/15-readme-setup.sh does that), and checks each
result with ffprobe: duration, streams, and real sound where music was asked for.

    python3 scripts/readme_setup.py BASE_URL KEY ROOT

ROOT is the server's working folder: the rendered files must be in its relative `./data`, and
`ROOT/samples/theme.mp3` is a sound the suite put beside the sample pictures. Exits 1 on the
first failed check, naming it.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BASE, KEY, ROOT = sys.argv[1], sys.argv[2], sys.argv[3]
RENDER_LIMIT = 300  # seconds for every render together
CLIP = 5.0
BLEND = 0.5  # a crossfade or fade-black join overlaps two clips by this much
OUTRO = 3.0


class Failed(Exception):
    pass


def check(ok, what):
    if not ok:
        raise Failed(what)


def call(method, path, body=None, content_type="application/json"):
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {KEY}")
    if data is not None:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def post(path, body, content_type="application/json"):
    status, answer = call("POST", path, body, content_type)
    check(status == 200, f"POST {path}: {status} {answer}")
    return answer


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", *args], check=True)


def probe(path):
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", path],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def mean_volume(path, start, seconds):
    """Mean volume in dB of the audio from `start` (a silent track is about -91 dB)."""
    err = subprocess.run(
        ["ffmpeg", "-nostdin", "-hide_banner", "-ss", str(start), "-t", str(seconds), "-i", path,
         "-map", "0:a", "-af", "volumedetect", "-f", "null", "-"],
        capture_output=True, text=True).stderr
    for line in err.splitlines():
        if "mean_volume:" in line:
            return float(line.split("mean_volume:")[1].strip().removesuffix("dB"))
    return -120.0


def local_file(url):
    """The file behind a /files/ URL, which must be in the server's relative ./data, and the
    same bytes as the server sends."""
    key = url.split("/files/", 1)[1]
    path = os.path.join(ROOT, "data", "media", key)
    check(os.path.isfile(path), f"{url} is not in ./data/media of the server's folder")
    req = urllib.request.Request(url, method="HEAD")
    with urllib.request.urlopen(req, timeout=30) as r:
        check(r.status == 200, f"HEAD {url}: {r.status}")
        check(r.headers.get("Content-Type") == "video/mp4", f"{url}: {r.headers.get('Content-Type')}")
        check(int(r.headers.get("Content-Length")) == os.path.getsize(path), f"{url}: size")
    return path


def check_file(name, url, seconds, music, size=(1280, 720), tolerance=0.15):
    """ffprobe of a rendered video: H.264 at `size`, AAC stereo 48 kHz, `seconds` long (or
    within (low, high) when a pair), and music (not a silent track) when `music`."""
    path = local_file(url)
    p = probe(path)
    streams = {s["codec_type"]: s for s in p["streams"]}
    check("video" in streams and "audio" in streams, f"{name}: streams {sorted(streams)}")
    v, a = streams["video"], streams["audio"]
    check((v["codec_name"], v["width"], v["height"]) == ("h264", *size),
          f"{name}: video {v['codec_name']} {v['width']}x{v['height']}")
    check((a["codec_name"], a["sample_rate"], a["channels"]) == ("aac", "48000", 2),
          f"{name}: audio {a['codec_name']} {a['sample_rate']} Hz {a['channels']} ch")
    duration = float(p["format"]["duration"])
    if isinstance(seconds, tuple):
        check(seconds[0] < duration < seconds[1], f"{name}: {duration:.2f} s, expected {seconds}")
    else:
        check(abs(duration - seconds) <= tolerance, f"{name}: {duration:.2f} s, expected {seconds}")
    volume = mean_volume(path, 1.0, 2.0)
    if music:
        check(volume > -40, f"{name}: no music in the audio track (mean {volume} dB)")
    else:
        check(volume < -60, f"{name}: sound where silence was expected (mean {volume} dB)")
    print(f"  {name}: {duration:.2f} s, {v['width']}x{v['height']} h264, aac, "
          f"{'music' if music else 'silent'} ({volume:.1f} dB)")
    return duration


def wait(videos):
    """Polls every video until it and its branded copy are final; answers the records."""
    started = time.time()
    final = {}
    while len(final) < len(videos):
        for name, uuid in videos.items():
            if name in final:
                continue
            status, v = call("GET", f"/api/v1/get_video?uuid={uuid}")
            check(status == 200, f"get_video {name}: {status} {v}")
            branding = v.get("branding")
            done = v["status"] in ("complete", "error") and (
                not branding or branding["status"] in ("complete", "error"))
            if done:
                final[name] = v
                print(f"  {name}: {v['status']}"
                      f"{', branded ' + branding['status'] if branding else ''} after {time.time() - started:.0f} s")
        check(time.time() - started < RENDER_LIMIT, f"not final after {RENDER_LIMIT} s: "
              f"{sorted(set(videos) - set(final))}")
        time.sleep(0.5)
    for name, v in final.items():
        check(v["status"] == "complete", f"{name}: {v['status']} {v.get('error')}")
        if v.get("branding"):
            check(v["branding"]["status"] == "complete", f"{name} branded: {v['branding']}")
    return final


def main():
    sample = lambda name: f"{BASE}/samples/{name}"
    engines = call("GET", "/api/v1/get_engines")[1]["engines"]
    default = next(e for e in engines if e["default"])
    effects = default["vfx_types"]
    check(len(effects) >= 10, f"the default engine offers {effects}")

    # Uploaded music: the user's own file, sent to upload_media.
    tmp = tempfile.mkdtemp()
    ffmpeg("-f", "lavfi", "-i", "sine=frequency=330:sample_rate=44100:duration=7",
           os.path.join(tmp, "theme.ogg"))
    with open(os.path.join(tmp, "theme.ogg"), "rb") as f:
        upload = post("/api/v1/upload_media", f.read(), "audio/ogg")
    check(upload["media_type"] == "audio/ogg", f"upload: {upload}")
    uploaded = upload["url"]
    # Music by URL from the server's own samples folder (read by the renderer, no upload).
    by_url = sample("theme.mp3")

    photos = ["house-colonial.jpg", "living-room.png", "house-modern.webp", "house-bungalow.jpg"]
    vfx = [{"type": t} if t != "word-drop" else {"type": t, "config": {"text": "Just Listed"}}
           for t in effects]
    intro = {"template": "intro-lower-third", "config": {
        "address": {"value": "12 Oak Lane, Springfield"}, "agent_name": {"value": "Ana Díaz"},
        "brokerage": {"value": "Acme Realty"}, "logo": {"url": sample("logo.png")}}}
    outro = {"template": "outro-contact-card", "config": {
        "agent_name": {"value": "Ana Díaz"}, "phone": {"value": "+1 555 0100"},
        "email": {"value": "ana@acme.example"}, "headshot": {"url": sample("headshot.jpg")}}}

    kit = post("/api/v1/create_brand_kit", {
        "name": "Acme Realty", "outro": outro, "speed_ramp": True, "audio_url": by_url})

    # Every effect the engine offers, spread over the videos' clips.
    def clips(n, first):
        return [dict({"image_url": sample(photos[i % len(photos)])},
                     **({"vfx": vfx[first + i]} if first + i < len(vfx) else {}))
                for i in range(n)]

    plan = {
        # Uploaded music, intro + outro + speed ramp, crossfade.
        "branded": ({"image_inputs": clips(3, 0), "audio_url": uploaded, "transition": "crossfade",
                     "branding": {"intro": intro, "outro": outro, "speed_ramp": True}},
                    3 * CLIP - 2 * BLEND),
        # Music by URL, fade-black.
        "fade-black": ({"image_inputs": clips(4, 3), "audio_url": by_url,
                        "transition": "fade-black"}, 4 * CLIP - 3 * BLEND),
        # The brand kit's own music (the request names none), cut.
        "brand kit": ({"image_inputs": clips(3, 7), "transition": "cut",
                       "branding": {"brand_kit": kit["uuid"]}}, 3 * CLIP),
    }
    # Captions (one under the intro's lower third, so drawn at the top) and every framing.
    plan["branded"][0]["image_inputs"][0]["caption"] = {"text": "Primary suite\nOcean view"}
    plan["fade-black"][0]["image_inputs"][1]["caption"] = {"text": "3 bd · 2 ba", "style": "facts"}
    for image, fit in zip(plan["fade-black"][0]["image_inputs"], ["cover", "smart", "contain-blur"]):
        image["fit"] = fit
    check(sum(len(b["image_inputs"]) for b, _ in plan.values()) >= len(vfx),
          "every effect has a clip")
    started = time.time()
    print("rendering: " + ", ".join(plan))
    videos = {name: post("/api/v1/create_video", body)["uuid"] for name, (body, _) in plan.items()}
    final = wait(videos)
    check(final["brand kit"]["audio_url"] == by_url, f"the kit's music: {final['brand kit']['audio_url']}")
    for name, (body, seconds) in plan.items():
        v = final[name]
        main = check_file(name, v["video_url"], seconds, music=True)
        if v.get("branding"):
            check(v["branding"]["speed_ramp"] is True, f"{name}: ramp {v['branding']}")
            # The outro adds 3 s; the ramp takes some back.
            check_file(f"{name}, branded", v["branding"]["video_url"], (main, main + OUTRO), music=True)

    # A combine of clips of two videos, with music, and one without (a silent track).
    picked = [final["branded"]["video_clips"][0]["uuid"], final["fade-black"]["video_clips"][1]["uuid"]]
    combines = {
        "combine with music": {"video_clip_uuids": picked, "orientation": "landscape",
                               "resolution": "720p", "audio_url": uploaded},
        "combine, silent": {"video_clip_uuids": picked[::-1], "orientation": "landscape",
                            "resolution": "720p", "transition": "crossfade"},
    }
    final = wait({name: post("/api/v1/combine_video_clips", body)["uuid"]
                  for name, body in combines.items()})
    check_file("combine with music", final["combine with music"]["video_url"], 2 * CLIP, music=True)
    check_file("combine, silent", final["combine, silent"]["video_url"], 2 * CLIP - BLEND, music=False)
    print(f"readme-setup: {len(plan) + len(combines)} videos, 2 branded copies, "
          f"{len(vfx)} effects, 3 transitions, in {time.time() - started:.0f} s")


if __name__ == "__main__":
    try:
        main()
    except Failed as e:
        print(f"readme-setup: FAILED: {e}")
        sys.exit(1)
