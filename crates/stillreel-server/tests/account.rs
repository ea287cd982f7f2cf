//! `GET /get_account` on SQLite and on PostgreSQL: each key sees its own account only.

mod common;

use common::TestApp;
use serde_json::json;
use stillreel_server::repo::accounts;

both_backends!(get_account_answers_for_the_key_only);

async fn get_account_answers_for_the_key_only(app: TestApp) {
    let alice = accounts::create(app.db(), "Alice Studio", 7)
        .await
        .expect("alice");
    let bob = accounts::create(app.db(), "Bob", 30).await.expect("bob");

    let r = app.get("/api/v1/get_account", &alice.api_key).await;
    assert_eq!(r.status.as_u16(), 200, "{}", r.json);
    assert_eq!(
        r.json,
        json!({
            "account": alice.account.to_string(),
            "name": "Alice Studio",
            "clip_limit": 7,
            "default_project": alice.default_project.to_string(),
        })
    );

    let r = app.get("/api/v1/get_account", &bob.api_key).await;
    assert_eq!(
        r.json,
        json!({
            "account": bob.account.to_string(),
            "name": "Bob",
            "clip_limit": 30,
            "default_project": bob.default_project.to_string(),
        })
    );

    // A second key of the same account answers the same account.
    let second = accounts::add_key(app.db(), alice.account)
        .await
        .expect("add key")
        .expect("account exists");
    let r = app.get("/api/v1/get_account", &second.api_key).await;
    assert_eq!(r.json["account"], json!(alice.account.to_string()));

    app.get("/api/v1/get_account", "sr_unknown")
        .await
        .assert_error(401, "unauthorized");
}
