//! One element of `image_inputs`: a valid image URL, a camera motion the engine can render
//! (orbits need v25), at most one effect, how the photo fills the frame and an optional caption.

use crate::json::Json;

use crate::ErrorCode;
use crate::options::Options;
use crate::path::Path;
use crate::reader::{self, Errors, get};
use crate::types::{
    CameraMotion, Caption, CaptionStyle, Engine, Fit, ImageInput, Orientation, VfxType,
};

const IMAGE_FIELDS: &[&str] = &["image_url", "camera_motion", "vfx", "fit", "caption"];
const CAPTION_FIELDS: &[&str] = &["text", "style"];

/// The request's engine when this deployment renders it; else `engine_unavailable` at
/// `ai_engine` (the generative engine where no `clip` role is configured) and `None`.
pub(crate) fn check_engine(
    engine: Engine,
    root: &Path<'_>,
    options: &Options<'_>,
    errors: &mut Errors,
) -> Option<Engine> {
    if options.available_engines.contains(&engine) {
        return Some(engine);
    }
    let why = if engine.is_generative() {
        "needs a clip model provider (the clip role), and none is configured on this deployment"
    } else {
        "is not available on this deployment"
    };
    errors.push(
        &root.key("ai_engine"),
        ErrorCode::EngineUnavailable,
        format!("ai_engine {engine} {why}"),
    );
    None
}

/// Validates one image input. `engine` is `None` when `ai_engine` itself was invalid, in which
/// case the engine rule is not applied (that error is already reported). `available_vfx` is
/// what this engine can draw (`catalog::engine_vfx`). `orientation` is the video's (`None`
/// when invalid): a caption's lines are measured against its frame.
pub(crate) fn check(
    value: &Json<'_>,
    path: &Path<'_>,
    engine: Option<Engine>,
    available_vfx: &[VfxType],
    orientation: Option<Orientation>,
    errors: &mut Errors,
) -> Option<ImageInput> {
    let map = reader::object(value, path, errors)?;
    reader::reject_unknown(map, path, IMAGE_FIELDS, errors);
    let image_url = url_required(
        map.get("image_url").filter(|v| !v.is_null()),
        &path.key("image_url"),
        errors,
    );

    let motion_path = path.key("camera_motion");
    let camera_motion = reader::enum_or(map, path, "camera_motion", CameraMotion::Auto, errors);
    if let (Some(motion), Some(engine)) = (camera_motion, engine)
        && !motion.supported_by(engine)
    {
        errors.push(
            &motion_path,
            ErrorCode::EngineUnsupported,
            format!("{motion} needs ai_engine v25; this request uses {engine}"),
        );
    }
    let vfx = match get(map, "vfx") {
        None => Some(None),
        Some(v) => {
            crate::rules::vfx::check(v, &path.key("vfx"), available_vfx, engine, errors).map(Some)
        }
    };
    let fit = reader::enum_or(map, path, "fit", Fit::Auto, errors);
    let caption = match get(map, "caption") {
        None => Some(None),
        Some(v) => caption(v, &path.key("caption"), orientation, errors).map(Some),
    };
    Some(ImageInput {
        image_url: image_url?,
        camera_motion: camera_motion.filter(|m| engine.is_none_or(|e| m.supported_by(e)))?,
        vfx: vfx?,
        fit: fit?,
        caption: caption?,
    })
}

/// A caption object: `text` required, `style` optional (`label`).
fn caption(
    value: &Json<'_>,
    path: &Path<'_>,
    orientation: Option<Orientation>,
    errors: &mut Errors,
) -> Option<Caption> {
    let map = reader::object(value, path, errors)?;
    reader::reject_unknown(map, path, CAPTION_FIELDS, errors);
    let style = reader::enum_or(map, path, "style", CaptionStyle::Label, errors);
    let text_path = path.key("text");
    let text = match get(map, "text").filter(|v| !v.is_null()) {
        None => {
            reader::required(&text_path, errors);
            None
        }
        Some(v) => reader::string(v, &text_path, errors),
    };
    let text = text.and_then(|text| {
        // An invalid style is reported on its own; the text is then measured in the default's.
        let measured = style.unwrap_or(CaptionStyle::Label);
        match crate::rules::caption::check(text, measured, orientation) {
            Ok(cleaned) => Some(cleaned),
            Err((code, message)) => {
                errors.push(&text_path, code, message);
                None
            }
        }
    });
    Some(Caption {
        text: text?,
        style: style?,
    })
}

/// A required URL member.
pub(crate) fn url_required(
    value: Option<&Json<'_>>,
    path: &Path<'_>,
    errors: &mut Errors,
) -> Option<String> {
    let Some(value) = value else {
        reader::required(path, errors);
        return None;
    };
    url(value, path, errors)
}

/// A URL value: a string that passes the URL rule.
pub(crate) fn url(value: &Json<'_>, path: &Path<'_>, errors: &mut Errors) -> Option<String> {
    let text = reader::string(value, path, errors)?;
    match crate::rules::url::check(text) {
        Ok(()) => Some(text.to_owned()),
        Err(why) => {
            errors.push(
                path,
                ErrorCode::InvalidUrl,
                format!("{} {why}", reader::name(path)),
            );
            None
        }
    }
}
