"""A clip model that never answers within any time limit: it works for an hour in short
steps, as a diffusion model's loop does, unless Cog cancels the prediction. (Cog cancels by
raising in the prediction's Python thread, which takes effect between steps: a model stuck in
one long native call is not interrupted until that call returns.)"""
import time

from cog import BasePredictor, Input, Path

from model_support import start_call


class Predictor(BasePredictor):
    def predict(
        self,
        image: Path = Input(description="the photo"),
        prompt: str = Input(default="", description="the motion"),
    ) -> Path:
        start_call()
        for _ in range(36000):
            time.sleep(0.1)
        return image
