//! `GET /get_templates` and `GET /get_engines`.

use serde_json::json;
use stillreel_core::builder::CreateVideoBuilder;
use stillreel_core::{Vfx, VfxType, VirtualStagingConfig};

use crate::common::{TestApp, json_body};

crate::both_backends!(templates_and_engines,);

async fn templates_and_engines(app: TestApp) {
    let acct = app.account().await;
    let all = app.get("/api/v1/get_templates", &acct.api_key).await;
    assert_eq!(all.status, 200);
    let templates = all.json["templates"].as_array().expect("templates");
    assert!(templates.iter().filter(|t| t["slot"] == "intro").count() >= 2);
    assert!(templates.iter().filter(|t| t["slot"] == "outro").count() >= 2);
    assert!(
        templates
            .iter()
            .all(|t| t.get("style").is_none() && t["fields"].is_array())
    );
    let intro = app
        .get("/api/v1/get_templates?slot=intro", &acct.api_key)
        .await;
    assert!(
        intro.json["templates"]
            .as_array()
            .expect("t")
            .iter()
            .all(|t| t["slot"] == "intro")
    );
    let r = app
        .get("/api/v1/get_templates?slot=middle", &acct.api_key)
        .await;
    r.assert_error(422, "validation_failed");
    assert_eq!(
        r.details(),
        vec![("slot".to_owned(), "invalid_value".to_owned())]
    );

    let engines = app.get("/api/v1/get_engines", &acct.api_key).await;
    let list = engines.json["engines"].as_array().expect("engines");
    assert_eq!(list.len(), 2);
    assert_eq!(list[1]["id"], "v25");
    assert_eq!(list[1]["default"], true);
    assert!(
        !list[0]["camera_motions"]
            .as_array()
            .expect("m")
            .contains(&json!("orbit-left"))
    );
    assert!(
        !list[0]["vfx_types"]
            .as_array()
            .expect("v")
            .contains(&json!("virtual-staging"))
    );
    // The renderer can change what the deployment offers; the API follows at once.
    app.state.set_available_vfx(vec![VfxType::VirtualStaging]);
    let engines = app.get("/api/v1/get_engines", &acct.api_key).await;
    assert_eq!(
        engines.json["engines"][0]["vfx_types"],
        json!(["virtual-staging"])
    );
    let body = json_body(
        &CreateVideoBuilder::new()
            .vfx(Vfx::VirtualStaging {
                config: VirtualStagingConfig::default(),
            })
            .build(),
    );
    assert_eq!(
        app.post("/api/v1/create_video", &acct.api_key, &body)
            .await
            .status,
        200
    );
}
