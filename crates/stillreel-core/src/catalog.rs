//! Built-in data: the template catalog (data files compiled in) and the engine table.

use std::sync::OnceLock;

use crate::types::{CameraMotion, Engine, EngineInfo, Template, VfxType};

/// The template files shipped with stillreel, compiled in so the server and the wasm module
/// carry the same catalog. Add a template by adding a file here; no code changes.
const TEMPLATE_FILES: &[(&str, &str)] = &[
    (
        "intro-lower-third.json",
        include_str!("../templates/intro-lower-third.json"),
    ),
    (
        "intro-title-card.json",
        include_str!("../templates/intro-title-card.json"),
    ),
    (
        "outro-contact-card.json",
        include_str!("../templates/outro-contact-card.json"),
    ),
    (
        "outro-minimal.json",
        include_str!("../templates/outro-minimal.json"),
    ),
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

/// The vfx types an engine can draw of the ones a deployment renders: on `generative` the model
/// makes the clip, so only the procedural effects (drawn over its clip) remain; the generative
/// ones would need a second model's picture as the clip model's input.
pub fn engine_vfx(engine: Engine, available_vfx: &[VfxType]) -> Vec<VfxType> {
    available_vfx
        .iter()
        .copied()
        .filter(|v| !(engine.is_generative() && v.is_generative()))
        .collect()
}

/// The engine table as `GET /get_engines` answers it: the engines a deployment renders, each
/// with the vfx types it can draw of the ones the deployment renders.
pub fn engines(
    default_engine: Engine,
    available_engines: &[Engine],
    available_vfx: &[VfxType],
) -> Vec<EngineInfo> {
    Engine::ALL
        .iter()
        .filter(|id| available_engines.contains(id))
        .map(|&id| EngineInfo {
            id,
            default: id == default_engine,
            camera_motions: camera_motions(id),
            eased: matches!(id, Engine::V25),
            vfx_types: engine_vfx(id, available_vfx),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{TemplateFieldType, TemplateSlotKind};

    #[test]
    fn every_template_file_parses_with_unique_ids() {
        let templates = builtin_templates();
        assert_eq!(templates.len(), TEMPLATE_FILES.len());
        let mut ids: Vec<&str> = templates.iter().map(|t| t.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), templates.len(), "template ids are unique");
    }

    #[test]
    fn at_least_two_templates_per_slot() {
        for slot in TemplateSlotKind::ALL {
            assert!(
                builtin_templates()
                    .iter()
                    .filter(|t| t.slot == *slot)
                    .count()
                    >= 2,
                "{slot}"
            );
        }
    }

    #[test]
    fn every_field_has_layout_and_text_fields_have_limits() {
        for template in builtin_templates() {
            assert!(template.style.is_some(), "{} has a style", template.id);
            let mut keys: Vec<&str> = template.fields.iter().map(|f| f.key.as_str()).collect();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(
                keys.len(),
                template.fields.len(),
                "{} field keys are unique",
                template.id
            );
            assert!(
                template.fields.iter().any(|f| f.required),
                "{} has a required field",
                template.id
            );
            for field in &template.fields {
                let layout = field.layout.as_ref().expect("every field has a layout");
                for [x, y, w, h] in [layout.landscape, layout.portrait] {
                    assert!(
                        x >= 0.0 && y >= 0.0 && x + w <= 1.0 && y + h <= 1.0,
                        "{}.{} fits the frame",
                        template.id,
                        field.key
                    );
                }
                if field.kind == TemplateFieldType::Text {
                    assert!(
                        field.max_length.is_some(),
                        "{}.{} has max_length",
                        template.id,
                        field.key
                    );
                    assert!(layout.font_size > 0.0);
                }
            }
        }
    }

    #[test]
    fn listing_hides_renderer_data() {
        let value = serde_json::to_value(&builtin_templates()[0]).expect("serializes");
        assert!(value.get("style").is_none());
        assert!(value["fields"][0].get("layout").is_none());
        assert_eq!(
            value
                .as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>()),
            Some(vec![
                "description".into(),
                "fields".into(),
                "id".into(),
                "name".into(),
                "slot".into()
            ])
        );
    }

    #[test]
    fn engine_table() {
        assert_eq!(
            camera_motions(Engine::V24),
            vec![
                CameraMotion::PushIn,
                CameraMotion::PushOut,
                CameraMotion::Auto
            ]
        );
        assert_eq!(camera_motions(Engine::V25).len(), 5);
        assert_eq!(camera_motions(Engine::Generative).len(), 5);
        let table = engines(Engine::V25, Engine::BUILT_IN, &[VfxType::Shadows]);
        assert_eq!(
            table.len(),
            2,
            "generative only where its role is configured"
        );
        assert_eq!(table.iter().filter(|e| e.default).count(), 1);
        assert!(table.iter().all(|e| e.vfx_types == vec![VfxType::Shadows]));
        assert!(table.iter().any(|e| e.id == Engine::V25 && e.eased));
        let all = [Engine::V24, Engine::V25, Engine::Generative];
        let table = engines(
            Engine::V25,
            &all,
            &[VfxType::Shadows, VfxType::VirtualStaging],
        );
        let generative = table
            .iter()
            .find(|e| e.id == Engine::Generative)
            .expect("listed when available");
        assert_eq!(generative.vfx_types, vec![VfxType::Shadows]);
        assert!(!generative.default && !generative.eased);
        assert_eq!(
            table
                .iter()
                .find(|e| e.id == Engine::V24)
                .map(|e| e.vfx_types.len()),
            Some(2)
        );
    }
}
