"""A model whose setup fails (as one whose weights are missing does): Cog's health check
then says SETUP_FAILED and no prediction ever runs."""
from cog import BasePredictor, Input, Path

from model_support import start_call


class Predictor(BasePredictor):
    def setup(self) -> None:
        raise RuntimeError("weights missing")

    def predict(self, image: Path = Input(description="the photo")) -> Path:
        start_call()
        return image
