//! Clients that hang up: an upload or a delete whose client resets the connection right after
//! its body leaves the records and the stored files agreeing (no file without its row, no
//! deleted record whose files are still served, the quota never exceeded), and parallel
//! deletes of one video answer 200 once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use uuid::Uuid;

use crate::common::{TestApp, create_body};
use crate::uploads::set_quota;
use crate::{render_all, uuid_of};

crate::both_backends!(
    uploads_cut_off_after_the_body_leave_no_stray_file,
    parallel_deletes_answer_once_and_leave_no_folder,
    deletes_cut_off_after_the_body_leave_no_served_file,
    a_deleted_videos_files_put_back_go_at_the_next_start,
);

crate::both_backends!(
    mod few_connections, configured by few_connections:
    one_accounts_slow_uploads_do_not_hold_another_account,
);

/// A modest connection cap, as a small deployment sets it.
fn few_connections(config: &mut stillreel_server::Config) {
    config.http.max_connections = 8;
    config.http.account_uploads = 4;
}

fn sample(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Sends a whole request, waits `pause`, then resets the connection (linger 0) without
/// reading the answer.
async fn send_and_reset(app: &TestApp, head: String, body: &[u8], pause: Duration) {
    let mut stream = TcpStream::connect(app.addr).await.expect("connect");
    stream.write_all(head.as_bytes()).await.expect("head");
    stream.write_all(body).await.expect("body");
    tokio::time::sleep(pause).await;
    stream.set_zero_linger().expect("linger");
    drop(stream);
}

/// The files under `dir` (recursively) with their sizes, by path relative to the media root.
fn files_under(root: &Path, dir: &Path, out: &mut BTreeMap<String, u64>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(root, &path, out);
        } else if let Ok(meta) = entry.metadata() {
            let key = path.strip_prefix(root).expect("under root");
            out.insert(key.to_string_lossy().replace('\\', "/"), meta.len());
        }
    }
}

async fn recorded_uploads(app: &TestApp, account: Uuid) -> BTreeMap<String, u64> {
    let (rows, _) = stillreel_server::repo::uploads::list(app.db(), account, 1000, None)
        .await
        .expect("list uploads");
    rows.into_iter()
        .map(|u| (u.key, u64::try_from(u.bytes).expect("bytes")))
        .collect()
}

async fn uploads_cut_off_after_the_body_leave_no_stray_file(app: TestApp) {
    let acct = app.account().await;
    let logo = sample("logo.png");
    let size = logo.len() as u64;
    // Room for two and a half logos: most of the uploads below must be refused.
    let quota = size * 5 / 2;
    set_quota(&app, acct.account, i64::try_from(quota).expect("quota")).await;

    let mut sends = Vec::new();
    for i in 0..24u64 {
        let (head, body) = if i % 2 == 0 {
            (
                format!(
                    "POST /api/v1/upload_media HTTP/1.1\r\nHost: x\r\nAuthorization: {}\r\n\
                     Content-Type: image/png\r\nContent-Length: {size}\r\n\r\n",
                    acct.api_key
                ),
                logo.clone(),
            )
        } else {
            // No Content-Length: the early quota check has nothing to go on.
            let mut body = format!("{size:x}\r\n").into_bytes();
            body.extend_from_slice(&logo);
            body.extend_from_slice(b"\r\n0\r\n\r\n");
            (
                format!(
                    "POST /api/v1/upload_media HTTP/1.1\r\nHost: x\r\nAuthorization: {}\r\n\
                     Content-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n",
                    acct.api_key
                ),
                body,
            )
        };
        let app_addr = app.addr;
        let pause = Duration::from_millis(i % 5);
        sends.push(tokio::spawn(async move {
            let mut stream = TcpStream::connect(app_addr).await.expect("connect");
            stream.write_all(head.as_bytes()).await.expect("head");
            stream.write_all(&body).await.expect("body");
            tokio::time::sleep(pause).await;
            stream.set_zero_linger().expect("linger");
            drop(stream);
        }));
    }
    for send in sends {
        send.await.expect("send");
    }

    // Whatever was still being stored settles: no temporary file left, and the same picture
    // for a whole second (the recordings queue on the account's row, and a refused file is
    // on disk until its recording has answered).
    let media = app.state.config.data_dir.join("media");
    let folder = media
        .join("uploads")
        .join(acct.account.simple().to_string());
    let temp = app.state.config.data_dir.join("uploads-tmp");
    let mut last = None;
    let mut stable = 0;
    for _ in 0..300 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let busy = std::fs::read_dir(&temp).map(|d| d.count()).unwrap_or(0) > 0;
        let mut files = BTreeMap::new();
        files_under(&media, &folder, &mut files);
        let now = (files, recorded_uploads(&app, acct.account).await);
        stable = if !busy && last.as_ref() == Some(&now) {
            stable + 1
        } else {
            0
        };
        if stable == 10 {
            break;
        }
        last = Some(now);
    }
    let (files, rows) = last.expect("observed");
    assert_eq!(files, rows, "every stored file has its row and the reverse");
    let counted: u64 = rows.values().sum();
    assert!(
        counted <= quota,
        "{counted} bytes kept over a quota of {quota}"
    );
    let (_, used) = stillreel_server::repo::uploads::usage(app.db(), acct.account)
        .await
        .expect("usage");
    assert_eq!(
        used,
        files.values().sum::<u64>(),
        "bytes on disk = bytes counted"
    );
}

async fn parallel_deletes_answer_once_and_leave_no_folder(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let video = uuid_of(&app.post("/api/v1/create_video", key, &create_body(2)).await);
    render_all(&app, video).await;
    let folder = app
        .state
        .config
        .data_dir
        .join("media/videos")
        .join(video.to_string());
    assert!(folder.is_dir(), "{} holds the video", folder.display());

    let body = json!({"uuid": video.to_string()});
    let answers = futures_util::future::join_all(
        (0..8).map(|_| app.post("/api/v1/delete_video", key, &body)),
    )
    .await;
    let mut statuses: Vec<u16> = answers.iter().map(|r| r.status.as_u16()).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 404, 404, 404, 404, 404, 404, 404]);
    assert!(
        !folder.exists(),
        "the deleted video's folder is gone: {}",
        folder.display()
    );
}

async fn deletes_cut_off_after_the_body_leave_no_served_file(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    for i in 0..6u64 {
        let video = uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await);
        render_all(&app, video).await;
        let body = json!({"uuid": video.to_string()}).to_string();
        let head = format!(
            "POST /api/v1/delete_video HTTP/1.1\r\nHost: x\r\nAuthorization: {key}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        send_and_reset(&app, head, body.as_bytes(), Duration::from_millis(i % 3)).await;
        let media = app.state.config.data_dir.join("media");
        let folder = media.join("videos").join(video.to_string());
        // Either the delete never started (record and files kept) or it finished (both gone).
        let mut settled = false;
        let mut kept = 0;
        for _ in 0..50 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let listed = app
                .get(&format!("/api/v1/get_video?uuid={video}"), key)
                .await;
            let mut files = BTreeMap::new();
            files_under(&media, &folder, &mut files);
            let stored: BTreeSet<_> = files.into_keys().collect();
            match listed.status.as_u16() {
                200 if !stored.is_empty() => {
                    kept += 1;
                    if kept == 10 {
                        break;
                    }
                }
                404 if stored.is_empty() && !folder.exists() => {
                    settled = true;
                    break;
                }
                404 => continue,
                other => panic!("get_video answered {other} with files {stored:?}"),
            }
        }
        if !settled {
            // The delete never started: it must still be deletable, and then all goes.
            let r = app
                .post(
                    "/api/v1/delete_video",
                    key,
                    &json!({"uuid": video.to_string()}),
                )
                .await;
            assert_eq!(r.status, 200, "{}", r.json);
            assert!(!folder.exists(), "{}", folder.display());
        }
    }
}

/// One key trickling uploads holds at most `STILLREEL_HTTP_ACCOUNT_UPLOADS` connections: its
/// next upload is refused at once with 429, and another account's upload goes through at once.
async fn one_accounts_slow_uploads_do_not_hold_another_account(app: TestApp) {
    let slow = app.account().await;
    let other = app.account().await;
    let logo = sample("logo.png");
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut stream = TcpStream::connect(app.addr).await.expect("connect");
        let head = format!(
            "POST /api/v1/upload_media HTTP/1.1\r\nHost: x\r\nAuthorization: {}\r\n\
             Content-Type: image/png\r\nContent-Length: {}\r\n\r\n",
            slow.api_key,
            logo.len()
        );
        stream.write_all(head.as_bytes()).await.expect("head");
        // A few bytes, then nothing: a client on a very slow line.
        stream.write_all(&logo[..16]).await.expect("some body");
        held.push(stream);
    }
    // The four are being received (each has its place) before the next arrives.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = std::time::Instant::now();
    let r = app
        .request(
            axum::http::Method::POST,
            "/api/v1/upload_media",
            &[
                ("authorization", &slow.api_key),
                ("content-type", "image/png"),
            ],
            Some(logo.clone()),
        )
        .await;
    r.assert_error(429, "too_many_uploads");
    let r = app
        .request(
            axum::http::Method::POST,
            "/api/v1/upload_media",
            &[
                ("authorization", &other.api_key),
                ("content-type", "image/png"),
            ],
            Some(logo.clone()),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "the other account waited {:?}",
        started.elapsed()
    );
    drop(held);
}

/// A process stopped between marking a video deleted and removing its files leaves them: the
/// sweep the next start runs removes them (files and folders, served and private), and keeps
/// every file of a video that is not deleted.
async fn a_deleted_videos_files_put_back_go_at_the_next_start(app: TestApp) {
    let acct = app.account().await;
    let key = &acct.api_key;
    let gone = uuid_of(&app.post("/api/v1/create_video", key, &create_body(2)).await);
    render_all(&app, gone).await;
    let kept = uuid_of(&app.post("/api/v1/create_video", key, &create_body(1)).await);
    render_all(&app, kept).await;
    let media = app.state.config.data_dir.join("media");
    let folders = |id: Uuid| stillreel_server::repo::videos::folders_of(id).map(|f| media.join(f));
    let contents = |id: Uuid| {
        let mut files = BTreeMap::new();
        for folder in folders(id) {
            files_under(&media, &folder, &mut files);
        }
        files
    };
    let before: BTreeMap<String, Vec<u8>> = contents(gone)
        .into_keys()
        .map(|k| {
            let bytes = std::fs::read(media.join(&k)).expect("read a stored file");
            (k, bytes)
        })
        .collect();
    assert!(
        before.keys().any(|k| k.ends_with(".mp4")),
        "the video has files: {before:?}"
    );
    let kept_files = contents(kept);
    assert!(!kept_files.is_empty());

    let r = app
        .post(
            "/api/v1/delete_video",
            key,
            &json!({"uuid": gone.to_string()}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.json);
    assert!(contents(gone).is_empty(), "delete_video removed the files");
    // As if the process had stopped before removing them: every file back where it was.
    for (k, bytes) in &before {
        let path = media.join(k);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("make the folder");
        std::fs::write(&path, bytes).expect("put the file back");
    }
    assert_eq!(contents(gone).len(), before.len());

    let (_, removed) = stillreel_server::serve::sweep_leftovers(app.db(), &app.state.storage).await;
    assert_eq!(removed, before.len(), "every file put back was removed");
    assert!(contents(gone).is_empty());
    for folder in folders(gone) {
        assert!(!folder.exists(), "{} is gone", folder.display());
    }
    assert_eq!(
        contents(kept),
        kept_files,
        "the other video's files are kept"
    );
    let video = app
        .get(&format!("/api/v1/get_video?uuid={kept}"), key)
        .await;
    assert_eq!(video.status, 200, "{}", video.json);
    let url = video.json["video_url"].as_str().expect("a video url");
    let path = url.split("/files/").nth(1).expect("a files url");
    assert!(media.join(path).is_file(), "{url} is still stored");
    // A second start finds nothing more.
    let (_, again) = stillreel_server::serve::sweep_leftovers(app.db(), &app.state.storage).await;
    assert_eq!(again, 0);
}
