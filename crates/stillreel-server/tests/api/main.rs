//! The HTTP API over a real socket, each test on SQLite and on PostgreSQL; one module per
//! resource, one test binary. Request bodies come from the core's builders (`common`), valid by
//! default; raw JSON is left where a test is about a malformed or incomplete body.

#[path = "../common/mod.rs"]
mod common;

mod accounts;
mod brand_kits;
mod catalog;
mod combine;
mod errors;
mod hangups;
mod library;
mod operations;
mod projects;
mod stored_uploads;
mod titles;
mod uploads;
mod videos;

use common::{Resp, TestApp};
use stillreel_core::JobError;
use stillreel_server::Db;
use stillreel_server::repo::graph::{self, ClipRecorded};
use stillreel_server::repo::render;
use uuid::Uuid;

/// The worker's record steps, each in a transaction of its own, as tests drive records without
/// a renderer. Each answers whether it changed the record.
mod records {
    use super::*;

    /// A rendered clip recorded (the first key sticks).
    pub async fn clip(db: &Db, video: Uuid, clip: Uuid, key: &str) -> bool {
        let mut tx = db.begin().await.expect("begin");
        let recorded = graph::record_clip_in(&mut tx, video, clip, key, None, (&[], &[]))
            .await
            .expect("record clip");
        tx.commit().await.expect("commit");
        matches!(recorded, ClipRecorded::Recorded { .. })
    }

    /// `in_progress → complete` with the stored video.
    pub async fn complete_video(db: &Db, video: Uuid, key: &str) -> bool {
        let mut tx = db.begin().await.expect("begin");
        let changed = render::complete_video_in(&mut tx, video, key)
            .await
            .expect("complete");
        tx.commit().await.expect("commit");
        changed
    }

    /// Branding `in_progress → complete` with the stored branded video.
    pub async fn complete_branding(db: &Db, video: Uuid, key: &str, speed_ramp: bool) -> bool {
        let mut tx = db.begin().await.expect("begin");
        let changed = render::complete_branding_in(&mut tx, video, key, speed_ramp)
            .await
            .expect("complete branding");
        tx.commit().await.expect("commit");
        changed
    }

    /// `queued | in_progress → error`.
    pub async fn fail_video(db: &Db, video: Uuid, error: &JobError) -> bool {
        let mut tx = db.begin().await.expect("begin");
        let changed = render::fail_video_in(&mut tx, video, error)
            .await
            .expect("fail");
        tx.commit().await.expect("commit");
        changed
    }
}

fn uuid_of(resp: &Resp) -> Uuid {
    resp.json["uuid"]
        .as_str()
        .and_then(|s| Uuid::parse_str(s).ok())
        .unwrap_or_else(|| panic!("no uuid in {}", resp.json))
}

/// Stores `bytes` under `key` through the server's storage, as the worker would: a local file
/// handed to `Storage::put`.
fn store(app: &TestApp, key: &str, bytes: &[u8]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let local = dir.path().join("file");
    std::fs::write(&local, bytes).expect("write");
    app.state.storage.put(&local, key).expect("store");
}

/// Simulates the render worker for a created video: starts it, renders every clip (a small
/// stored file per clip) and completes it.
async fn render_all(app: &TestApp, video: Uuid) -> Vec<Uuid> {
    let input = render::render_input(app.db(), video)
        .await
        .expect("input")
        .expect("video exists");
    assert!(render::start_video(app.db(), video).await.expect("start"));
    let render::RenderSource::Create { clips, .. } = input.source else {
        panic!("not a create video")
    };
    let mut ids = Vec::new();
    for clip in clips {
        let key = format!("clips/{}.mp4", clip.clip.id);
        store(app, &key, b"not really mp4");
        assert!(records::clip(app.db(), video, clip.clip.id, &key).await);
        ids.push(clip.clip.id);
    }
    let key = format!("videos/{video}/main.mp4");
    store(app, &key, b"main");
    assert!(records::complete_video(app.db(), video, &key).await);
    ids
}

/// The harness's PostgreSQL rule (`common::pg_url`): skip on a developer's machine without a
/// database, fail under CI without one.
#[test]
fn postgres_variants_fail_under_ci_without_a_database() {
    let url = || Some("postgres://u@127.0.0.1:5432/postgres".to_owned());
    assert_eq!(common::pg_url_from(url(), true), Ok(url()));
    assert_eq!(common::pg_url_from(url(), false), Ok(url()));
    assert_eq!(common::pg_url_from(None, false), Ok(None));
    assert_eq!(common::pg_url_from(Some(String::new()), false), Ok(None));
    assert!(common::pg_url_from(None, true).is_err());
    assert!(common::pg_url_from(Some(String::new()), true).is_err());
}
