"""The MoviePy peer: the same stills as a Ken Burns slideshow (5 s each, cover-cropped,
push-in 1.0 -> 1.15), written with MoviePy's usual API. Usage: moviepy_kenburns.py W H out img..."""
import sys

from moviepy import CompositeVideoClip, ImageClip, concatenate_videoclips

W, H, out, images = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4:]
clips = []
for path in images:
    img = ImageClip(path)
    cover = max(W / img.w, H / img.h)
    moving = img.resized(lambda t, c=cover: c * (1 + 0.15 * t / 5)).with_position("center")
    clips.append(CompositeVideoClip([moving], size=(W, H)).with_duration(5))
concatenate_videoclips(clips).write_videofile(
    out, fps=30, codec="libx264", preset="veryfast", audio=False, logger=None,
    ffmpeg_params=["-crf", "20", "-pix_fmt", "yuv420p"],
)
