//! Built-in data: the template catalog (data files compiled in) and the engine table.

use std::sync::OnceLock;

use crate::types::{CameraMotion, Engine, EngineInfo, Template, VfxType};

/// The template files shipped with stillreel, compiled in so the server and the wasm module
/// carry the same catalog. Add a template by adding a file here; no code changes.
const TEMPLATE_FILES: &[(&str, &str)] = &[
    ("intro-lower-third.json", include_str!("../templates/intro-lower-third.json")),
    ("intro-title-card.json", include_str!("../templates/intro-title-card.json")),
    ("outro-contact-card.json", include_str!("../templates/outro-contact-card.json")),
    ("outro-minimal.json", include_str!("../templates/outro-minimal.json")),
];

/// The built-in templates, parsed once.
pub fn builtin_templates() -> &'static [Template] {
    static CATALOG: OnceLock<Vec<Template>> = OnceLock::new();
    CATALOG.get_or_init(|| {
        TEMPLATE_FILES
            .iter()
            .map(|(name, text)| match serde_json::from_str(text) {
                Ok(template) => template,
                // The files are part of the build and a test parses each one, so this is a
                // build defect, never a runtime input.
                Err(err) => panic!("built-in template {name} is invalid: {err}"),
            })
            .collect()
    })
}

/// The camera motions an engine can render.
pub fn camera_motions(engine: Engine) -> Vec<CameraMotion> {
    CameraMotion::ALL
        .iter()
        .copied()
        .filter(|m| m.supported_by(engine))
        .collect()
}

/// The engine table as `GET /get_engines` answers it, for the vfx types a deployment can render.
pub fn engines(default_engine: Engine, available_vfx: &[VfxType]) -> Vec<EngineInfo> {
    Engine::ALL
        .iter()
        .map(|&id| EngineInfo {
            id,
            default: id == default_engine,
            camera_motions: camera_motions(id),
            eased: matches!(id, Engine::V25),
            vfx_types: available_vfx.to_vec(),
        })
        .collect()
}
