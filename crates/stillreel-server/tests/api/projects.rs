//! `POST /create_project` and `GET /get_projects`.

use serde_json::json;
use stillreel_core::builder::CreateVideoBuilder;
use uuid::Uuid;

use crate::common::{TestApp, json_body, project_body};
use crate::uuid_of;

crate::both_backends!(projects_create_list_and_use,);

async fn projects_create_list_and_use(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let r = app
        .post(
            "/api/v1/create_project",
            key,
            &project_body("  Spring listings "),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert_eq!(r.json["name"], "Spring listings");
    assert_eq!(r.json["is_default"], false);
    let project = uuid_of(&r);
    let second = app
        .post("/api/v1/create_project", key, &project_body("Second"))
        .await;
    assert_eq!(second.status, 200);

    let list = app.get("/api/v1/get_projects", key).await;
    assert_eq!(list.status, 200);
    let projects = list.json["projects"].as_array().expect("projects");
    assert_eq!(projects.len(), 3);
    assert_eq!(
        projects[0]["uuid"],
        acct.default_project.to_string(),
        "oldest (default) first"
    );
    assert_eq!(projects[0]["is_default"], true);
    assert_eq!(projects[1]["name"], "Spring listings");
    assert_eq!(projects[2]["name"], "Second");

    let into = |project| json_body(&CreateVideoBuilder::new().project(project).build());
    let r = app.post("/api/v1/create_video", key, &into(project)).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json["project"], project.to_string());

    let mut body = into(Uuid::new_v4());
    let r = app.post("/api/v1/create_video", key, &body).await;
    r.assert_error(404, "not_found");
    assert_eq!(
        r.details(),
        vec![("project".to_owned(), "not_found".to_owned())]
    );
    body["project"] = json!("not-a-uuid");
    let r = app.post("/api/v1/create_video", key, &body).await;
    assert_eq!(
        r.details(),
        vec![("project".to_owned(), "invalid_uuid".to_owned())]
    );
}
