#![allow(clippy::print_stdout, clippy::unwrap_used)]
fn main() {
    let o = stillreel_core::Options::default();
    for body in [
        r#"{"image_inputs":[{"image_url":"https://e.com/a.jpg"}]}"#,
        r#"{"image_inputs":[{"image_url":"ftp://x","camera_motion":"orbit-left","vfx":{"type":"word-drop","config":{"text":"🏡","colour":"red"}}},{"image_url":"https://e.com/a.jpg","vfx":{"type":"shadows","config":{}}}],"ai_engine":"v24","foo":1,"branding":{"intro":{"template":"outro-minimal"},"outro":{"template":"outro-contact-card","config":{"agent_name":{"url":"x"},"zzz":{"value":"a"}}}}}"#,
        r#"[1]"#,
    ] {
        match stillreel_core::validate_create_video(body, &o) {
            Ok(r) => println!("OK {}", serde_json::to_string(&r).unwrap()),
            Err(stillreel_core::Rejection::Invalid(e)) => println!("{}", serde_json::to_string_pretty(&e).unwrap()),
            Err(e) => println!("{e:?}"),
        }
    }
}
