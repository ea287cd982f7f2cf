"""A staging model shaped like flux-kontext-pro (inputs `prompt`, `input_image`,
`output_format`): answers a solid colour picture at the photo's size, which a test finds
again in the decoded frames of the staged clip."""
from cog import BasePredictor, Input, Path

from model_support import end_call, photo_size, start_call, write_png

# Teal: far from every sample photo's colours.
COLOUR = (0, 160, 160)


class Predictor(BasePredictor):
    def predict(
        self,
        prompt: str = Input(description="what to change"),
        input_image: Path = Input(description="the photo"),
        output_format: str = Input(default="png", description="answered as PNG whatever it says"),
    ) -> Path:
        start_call()
        width, height = photo_size(input_image)
        picture = write_png(width, height, 3, lambda x, y: COLOUR)
        end_call()
        return Path(picture)
