"""A staging model that raises in every prediction."""
from cog import BasePredictor, Input, Path

from model_support import start_call


class Predictor(BasePredictor):
    def predict(
        self,
        prompt: str = Input(description="what to change"),
        input_image: Path = Input(description="the photo"),
        output_format: str = Input(default="png"),
    ) -> Path:
        start_call()
        raise ValueError("boom")
