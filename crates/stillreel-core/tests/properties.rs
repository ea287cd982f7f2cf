//! Property tests: no input panics, builders validate clean, normalization is idempotent, and
//! every type round-trips through JSON.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use stillreel_core::builder::{CombineBuilder, CreateVideoBuilder, full_branding, image};
use stillreel_core::{
    CameraMotion, Engine, Options, Orientation, Rejection, Resolution, Vfx, VfxType,
    validate_combine_video_clips, validate_create_video,
};

/// Arbitrary JSON, biased towards the API's own member names and values so the generator
/// reaches deep into the rules instead of failing at the top.
fn arb_json() -> impl Strategy<Value = Value> {
    let names = prop::sample::select(vec![
        "image_inputs",
        "image_url",
        "camera_motion",
        "vfx",
        "type",
        "config",
        "text",
        "color",
        "orientation",
        "resolution",
        "ai_engine",
        "audio_url",
        "project",
        "branding",
        "intro",
        "outro",
        "template",
        "speed_ramp",
        "value",
        "url",
        "video_clip_uuids",
        "room_type",
        "x",
    ]);
    let strings = prop_oneof![
        prop::sample::select(vec![
            "https://example.com/a.jpg",
            "push-in",
            "orbit-left",
            "v24",
            "v25",
            "word-drop",
            "virtual-staging",
            "shadows",
            "landscape",
            "1080p",
            "intro-lower-third",
            "outro-contact-card",
            "67e55044-10b1-426f-9247-bb680e5fe0c8",
            "gold",
            "",
        ])
        .prop_map(str::to_owned),
        any::<String>(),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        strings.prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((names.clone(), inner), 0..6).prop_map(|kv| Value::Object(
                kv.into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect::<Map<_, _>>()
            )),
        ]
    })
}

fn arb_vfx() -> impl Strategy<Value = Option<Vfx>> {
    prop_oneof![
        Just(None),
        prop::sample::select(stillreel_core::PROCEDURAL_VFX.to_vec())
            .prop_filter_map("plain", Vfx::plain)
            .prop_map(Some),
        "[A-Za-zÀ-ÿ€!][A-Za-zÀ-ÿ €!]{0,14}[A-Za-z]".prop_map(|text| Some(Vfx::WordDrop {
            config: stillreel_core::WordDropConfig {
                text,
                color: stillreel_core::WordDropColor::Silver
            }
        })),
    ]
}

fn arb_create() -> impl Strategy<Value = stillreel_core::CreateVideoRequest> {
    let motion = prop::sample::select(vec![
        CameraMotion::PushIn,
        CameraMotion::PushOut,
        CameraMotion::Auto,
        CameraMotion::OrbitLeft,
    ]);
    (
        prop::collection::vec((motion, arb_vfx()), 1..=20),
        prop::sample::select(Orientation::ALL.to_vec()),
        prop::sample::select(Resolution::ALL.to_vec()),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(images, orientation, resolution, branded, audio)| {
            let mut builder = CreateVideoBuilder::new()
                .images(0)
                .orientation(orientation)
                .resolution(resolution);
            for (i, (motion, vfx)) in images.into_iter().enumerate() {
                let mut input = image(&format!("https://example.com/{i}.jpg"));
                input.camera_motion = motion;
                input.vfx = vfx;
                builder = builder.image(input);
            }
            if branded {
                builder = builder.branding(full_branding());
            }
            if audio {
                builder = builder.audio("https://example.com/song.mp3");
            }
            builder.build()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_value_panics_either_validator(body in arb_json()) {
        let text = body.to_string();
        let options = Options::default();
        let _ = validate_create_video(&text, &options);
        let _ = validate_combine_video_clips(&text, &options);
        let _ = stillreel_core::validate_create_project(&text);
    }

    #[test]
    fn no_byte_string_panics(text in any::<String>()) {
        let options = Options::default();
        prop_assert!(matches!(validate_create_video(&text, &options), Err(_) | Ok(_)));
        let _ = validate_combine_video_clips(&text, &options);
    }

    #[test]
    fn every_rejection_names_fields_and_says_why(body in arb_json()) {
        if let Err(Rejection::Invalid { errors, .. }) = validate_create_video(&body.to_string(), &Options::default()) {
            prop_assert!(!errors.is_empty());
            for error in errors {
                prop_assert!(!error.message.is_empty());
            }
        }
    }

    #[test]
    fn built_bodies_validate_and_normalize_idempotently(request in arb_create()) {
        let text = serde_json::to_string(&request).expect("serializes");
        let once = validate_create_video(&text, &Options::default()).expect("a built body is valid");
        prop_assert_eq!(&once, &request);
        let twice = validate_create_video(&serde_json::to_string(&once).expect("serializes"), &Options::default()).expect("still valid");
        prop_assert_eq!(once, twice);
    }

    #[test]
    fn requests_round_trip_through_serde(request in arb_create()) {
        let text = serde_json::to_string(&request).expect("serializes");
        let back: stillreel_core::CreateVideoRequest = serde_json::from_str(&text).expect("parses");
        prop_assert_eq!(back, request);
    }

    #[test]
    fn word_drop_sanitizer_is_idempotent_and_bounded(text in any::<String>()) {
        let once = stillreel_core::rules::word_drop::sanitize(&text);
        let twice = stillreel_core::rules::word_drop::sanitize(&once.text);
        prop_assert_eq!(&once.text, &twice.text);
        prop_assert_eq!(once.length, once.text.chars().count());
        prop_assert!(once.text.chars().all(stillreel_core::rules::word_drop::is_kept));
    }
}

#[test]
fn combine_builder_validates_clean() {
    let request = CombineBuilder::new().build();
    let text = serde_json::to_string(&request).expect("serializes");
    assert_eq!(
        validate_combine_video_clips(&text, &Options::default()),
        Ok(request)
    );
}

#[test]
fn vfx_wire_names_match_vfx_types() {
    for &kind in VfxType::ALL {
        let vfx = match Vfx::plain(kind) {
            Some(v) => v,
            None => continue,
        };
        assert_eq!(
            serde_json::to_value(&vfx).expect("serializes"),
            json!({"type": kind.as_str()})
        );
        assert_eq!(vfx.kind(), kind);
    }
    let staged = Vfx::VirtualStaging {
        config: Default::default(),
    };
    assert_eq!(
        serde_json::to_value(&staged).expect("serializes"),
        json!({"type": "virtual-staging", "config": {"room_type": "auto", "staging_style": "auto"}})
    );
}

#[test]
fn responses_round_trip() {
    let video = stillreel_core::Video {
        uuid: uuid::Uuid::from_u128(1),
        project: uuid::Uuid::from_u128(2),
        status: stillreel_core::Status::Queued,
        video_url: String::new(),
        video_clips: vec![stillreel_core::VideoClip {
            uuid: uuid::Uuid::from_u128(3),
            image_url: "https://example.com/a.jpg".into(),
            clip_url: "http://127.0.0.1:8080/files/c.mp4".into(),
            camera_motion: CameraMotion::PushIn,
            orientation: Orientation::Portrait,
            resolution: Resolution::P1080,
            ai_engine: Engine::V24,
            vfx: None,
            thumbnail_url: None,
            generated: Some(vec![stillreel_core::GeneratedContent {
                role: "depth".into(),
                model: "chenxwh/depth-anything-v2".into(),
            }]),
            notes: Some(vec![
                "the depth map is flat (no usable depth range); the flat camera drew the clip"
                    .into(),
            ]),
        }],
        poster_url: None,
        audio_url: None,
        title: Some("12 Oak Lane".into()),
        orientation: Orientation::Portrait,
        resolution: Resolution::P1080,
        ai_engine: Engine::V24,
        branding: None,
        progress: 0,
        created_at: "2026-11-22T10:00:00Z".into(),
        updated_at: "2026-11-22T10:00:00Z".into(),
        error: None,
        webhook: Some(stillreel_core::Webhook {
            url: "https://hooks.example.com/x".into(),
            status: stillreel_core::WebhookStatus::Pending,
            attempts: 0,
            last_status: None,
        }),
    };
    let value = serde_json::to_value(&video).expect("serializes");
    assert_eq!(
        value["video_clips"][0]["vfx"],
        Value::Null,
        "a clip without effect says vfx: null"
    );
    assert!(
        value.get("branding").is_none(),
        "no branding member unless requested"
    );
    let back: stillreel_core::Video = serde_json::from_value(value).expect("parses");
    assert_eq!(back, video);
}
