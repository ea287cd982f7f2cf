"""A depth model shaped like depth-anything-v2: input `image`, output `{color_depth,
grey_depth}`. The grey map is a vertical gradient at the photo's size (the bottom, nearest,
is brightest); the colour map is the same gradient in red and blue, which stillreel must not
take for the grey one."""
from cog import BaseModel, BasePredictor, Input, Path

from model_support import end_call, load_weights, photo_size, start_call, write_png


class Output(BaseModel):
    color_depth: Path
    grey_depth: Path


class Predictor(BasePredictor):
    def setup(self) -> None:
        load_weights()

    def predict(self, image: Path = Input(description="the photo")) -> Output:
        start_call()
        width, height = photo_size(image)
        # A map of at most 512 px on its long side, at the photo's aspect, as models answer.
        scale = min(1.0, 512 / max(width, height))
        w, h = max(1, round(width * scale)), max(1, round(height * scale))

        def near(y):
            return 255 * y // max(1, h - 1)

        grey = write_png(w, h, 1, lambda x, y: near(y))
        colour = write_png(w, h, 3, lambda x, y: (near(y), 0, 255 - near(y)))
        end_call()
        return Output(color_depth=Path(colour), grey_depth=Path(grey))
