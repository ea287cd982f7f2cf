"""An image-to-video model shaped like wan-2.2-i2v-fast (inputs `image`, `prompt`): answers a
2 s, 24 fps MP4 of the photo with only its green channel kept, made by ffmpeg, so a test can
tell the model's clip from the photo both by ffprobe and by its colours."""
import subprocess
import tempfile

from cog import BasePredictor, Input, Path

from model_support import end_call, start_call


class Predictor(BasePredictor):
    def predict(
        self,
        image: Path = Input(description="the photo"),
        prompt: str = Input(default="", description="the motion"),
    ) -> Path:
        start_call()
        out = tempfile.mkdtemp() + "/clip.mp4"
        subprocess.run(
            ["ffmpeg", "-nostdin", "-v", "error", "-loop", "1", "-i", str(image),
             "-vf", "scale=640:-2,colorchannelmixer=0:0:0:0:0.3:0.59:0.11:0:0:0:0:0,format=yuv420p",
             "-t", "2", "-r", "24", "-c:v", "libx264", "-preset", "ultrafast", out],
            check=True,
        )
        end_call()
        return Path(out)
