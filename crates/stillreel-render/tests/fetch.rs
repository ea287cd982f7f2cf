//! Media fetching against real local servers: the public-address rule (no connection is ever
//! made to a refused address, by literal, by name or through a redirect), limits, sniffing,
//! EXIF orientation and the server's own files.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use common::{Route, TestServer};
use stillreel_camera::input::ExifOrientation;
use stillreel_core::media::{MediaClass, MediaFormat};
use stillreel_render::{
    AllowList, FetchConfig, FetchError, FetchRequest, Fetcher, MediaErrorKind, MinRate, OwnFiles,
};

fn fetcher(allow: &str) -> Fetcher {
    let config = FetchConfig {
        allow: AllowList::parse(allow).expect("allow list"),
        connect_timeout: Duration::from_secs(2),
        total_timeout: Duration::from_secs(10),
        ..FetchConfig::default()
    };
    Fetcher::new(config, None)
}

fn png_bytes(dir: &Path) -> Arc<Vec<u8>> {
    let path = common::picture(dir, "p.png", 64, 48);
    Arc::new(std::fs::read(path).expect("read png"))
}

async fn fetch_image(
    f: &Fetcher,
    url: &str,
    dir: &Path,
) -> Result<stillreel_render::media::fetch::FetchedMedia, FetchError> {
    f.fetch(url, MediaClass::Image, dir, "img").await
}

fn assert_refused(
    result: Result<stillreel_render::media::fetch::FetchedMedia, FetchError>,
    url: &str,
) {
    let err = result.expect_err(url);
    assert_eq!(err.kind, MediaErrorKind::Unreachable, "{url}: {err}");
    assert!(!err.transient, "{url}: refusals are permanent");
    assert!(
        err.message
            .contains("could not be reached as a public address"),
        "{url}: {err}"
    );
    // The refusal says the two ways around it: an upload, or the operator's allow-list.
    for hint in ["POST /api/v1/upload_media", "STILLREEL_FETCH_ALLOW"] {
        assert!(
            err.message.contains(hint),
            "{url}: {hint} missing from {err}"
        );
    }
}

#[tokio::test]
async fn loopback_in_every_notation_is_refused_without_connecting() {
    let dir = tempfile::tempdir().expect("temp dir");
    let png = png_bytes(dir.path());
    let server = TestServer::start(
        "127.0.0.1",
        vec![(
            "/a.png",
            Route::Body {
                content_type: "image/png",
                body: png,
            },
        )],
    )
    .await;
    let port = server.addr.port();
    let f = fetcher("");
    for host in [
        "127.0.0.1".to_owned(),
        "2130706433".to_owned(),
        "0177.0.0.1".to_owned(),
        "0x7f.1".to_owned(),
        "0x7f000001".to_owned(),
        "127.1".to_owned(),
        "[::ffff:127.0.0.1]".to_owned(),
        "[::ffff:7f00:1]".to_owned(),
        "localhost".to_owned(),
    ] {
        let url = format!("http://{host}:{port}/a.png");
        assert_refused(fetch_image(&f, &url, dir.path()).await, &url);
    }
    assert_eq!(
        server.connections(),
        0,
        "no connection may reach a refused address"
    );
}

#[tokio::test]
async fn private_link_local_and_mapped_literals_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let f = fetcher("");
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/",
        "http://10.0.0.1/a.jpg",
        "http://192.168.1.10/a.jpg",
        "http://172.16.5.4/a.jpg",
        "http://100.64.0.1/a.jpg",
        "http://0.0.0.0/a.jpg",
        "http://[::1]/a.jpg",
        "http://[fe80::1]/a.jpg",
        "http://[fd00::1]/a.jpg",
        "http://[64:ff9b::a00:1]/a.jpg",
        "https://192.0.2.1/a.jpg",
        "http://224.0.0.1/a.jpg",
        "http://255.255.255.255/a.jpg",
    ] {
        assert_refused(fetch_image(&f, url, dir.path()).await, url);
    }
}

#[tokio::test]
async fn redirect_from_an_allowed_server_to_a_refused_one_never_connects() {
    let dir = tempfile::tempdir().expect("temp dir");
    let png = png_bytes(dir.path());
    // The target listens on 127.0.0.2: loopback, not in the allow-list.
    let target = TestServer::start(
        "127.0.0.2",
        vec![(
            "/a.png",
            Route::Body {
                content_type: "image/png",
                body: png,
            },
        )],
    )
    .await;
    let port = target.addr.port();
    let hops = vec![
        (
            "/plain",
            Route::Redirect(format!("http://127.0.0.2:{port}/a.png")),
        ),
        (
            "/decimal",
            Route::Redirect(format!("http://2130706434:{port}/a.png")),
        ),
        (
            "/mapped",
            Route::Redirect(format!("http://[::ffff:127.0.0.2]:{port}/a.png")),
        ),
        (
            "/metadata",
            Route::Redirect("http://169.254.169.254/latest/meta-data/".to_owned()),
        ),
        ("/twice", Route::Redirect("/plain".to_owned())),
    ];
    let allowed = TestServer::start("127.0.0.1", hops).await;
    let f = fetcher("127.0.0.1");
    for path in ["/plain", "/decimal", "/mapped", "/metadata", "/twice"] {
        let url = allowed.url(path);
        assert_refused(fetch_image(&f, &url, dir.path()).await, &url);
    }
    assert!(allowed.connections() >= 5, "the allowed server was asked");
    assert_eq!(
        target.connections(),
        0,
        "the redirect target must never be connected to"
    );
}

#[tokio::test]
async fn allowed_server_serves_and_redirects_are_capped_at_five() {
    let dir = tempfile::tempdir().expect("temp dir");
    let png = png_bytes(dir.path());
    let mut routes = vec![(
        "/a.png",
        Route::Body {
            content_type: "text/plain",
            body: Arc::clone(&png),
        },
    )];
    // /r1 → /r2 → ... → /r6 → /a.png
    let names: Vec<String> = (1..=6).map(|i| format!("/r{i}")).collect();
    for i in 0..6 {
        let next = if i == 5 {
            "/a.png".to_owned()
        } else {
            names[i + 1].clone()
        };
        routes.push((names[i].as_str(), Route::Redirect(next)));
    }
    let server = TestServer::start("127.0.0.1", routes).await;
    let f = fetcher("127.0.0.1");
    // Five redirects (r2 .. r6 then the file): fine, and the server's content type is ignored.
    let media = fetch_image(&f, &server.url("/r2"), dir.path())
        .await
        .expect("five redirects are followed");
    assert_eq!(media.format, MediaFormat::Png);
    assert_eq!(media.dimensions, Some((64, 48)));
    assert_eq!(std::fs::read(&media.path).expect("stored"), *png);
    assert!(media.path.ends_with("img.png"));
    // Six: refused.
    let err = fetch_image(&f, &server.url("/r1"), dir.path())
        .await
        .expect_err("six redirects");
    assert_eq!(err.kind, MediaErrorKind::Unreachable);
    assert!(err.message.contains("more than 5 redirects"), "{err}");
}

#[tokio::test]
async fn allow_list_by_host_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    let png = png_bytes(dir.path());
    let server = TestServer::start(
        "127.0.0.1",
        vec![(
            "/a.png",
            Route::Body {
                content_type: "image/png",
                body: png,
            },
        )],
    )
    .await;
    let url = format!("http://localhost:{}/a.png", server.addr.port());
    let media = fetch_image(&fetcher("localhost"), &url, dir.path())
        .await
        .expect("allowed by name");
    assert_eq!(media.format, MediaFormat::Png);
    assert_refused(
        fetch_image(&fetcher("example.com"), &url, dir.path()).await,
        &url,
    );
}

#[tokio::test]
async fn limits_and_sniffing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let playlist =
        Arc::new(b"#EXTM3U\n#EXT-X-VERSION:3\n#EXTINF:10,\nhttp://169.254.169.254/x.ts\n".to_vec());
    let html = Arc::new(b"<!doctype html><title>photo</title>".to_vec());
    let big = Arc::new({
        let mut v = vec![0u8; 11 * 1024 * 1024];
        v[..3].copy_from_slice(&[0xff, 0xd8, 0xff]);
        v
    });
    let mp3 = Arc::new(std::fs::read(common::tone(dir.path(), "t.mp3", 0.5)).expect("mp3"));
    let server = TestServer::start(
        "127.0.0.1",
        vec![
            (
                "/stream.jpg",
                Route::Stream {
                    total: 11 * 1024 * 1024,
                },
            ),
            (
                "/sized.jpg",
                Route::Body {
                    content_type: "image/jpeg",
                    body: big,
                },
            ),
            (
                "/playlist.png",
                Route::Body {
                    content_type: "image/png",
                    body: playlist,
                },
            ),
            (
                "/page.jpg",
                Route::Body {
                    content_type: "image/jpeg",
                    body: html,
                },
            ),
            (
                "/song.png",
                Route::Body {
                    content_type: "image/png",
                    body: Arc::clone(&mp3),
                },
            ),
            (
                "/song.mp3",
                Route::Body {
                    content_type: "audio/mpeg",
                    body: mp3,
                },
            ),
            ("/gone.jpg", Route::Status(404)),
            ("/busy.jpg", Route::Status(503)),
        ],
    )
    .await;
    // A small limit keeps the over-limit bodies small; the defaults are tested below.
    let f = Fetcher::new(
        FetchConfig {
            allow: AllowList::parse("127.0.0.1").expect("allow list"),
            max_image_bytes: 10 * 1024 * 1024,
            ..FetchConfig::default()
        },
        None,
    );
    let kind = |r: Result<_, FetchError>| {
        r.map(|_: stillreel_render::media::fetch::FetchedMedia| ())
            .expect_err("must fail")
    };

    let e = kind(fetch_image(&f, &server.url("/stream.jpg"), dir.path()).await);
    assert_eq!(
        (e.kind, e.transient),
        (MediaErrorKind::TooLarge, false),
        "{e}"
    );
    assert_eq!(e.code(), "media_too_large");
    let e = kind(fetch_image(&f, &server.url("/sized.jpg"), dir.path()).await);
    assert_eq!(e.kind, MediaErrorKind::TooLarge);
    for path in ["/playlist.png", "/page.jpg", "/song.png"] {
        let e = kind(fetch_image(&f, &server.url(path), dir.path()).await);
        assert_eq!(
            (e.kind, e.code()),
            (MediaErrorKind::Unsupported, "media_unsupported"),
            "{path}"
        );
    }
    let e = kind(
        f.fetch(&server.url("/page.jpg"), MediaClass::Audio, dir.path(), "a")
            .await,
    );
    assert_eq!(e.kind, MediaErrorKind::Unsupported);
    let song = f
        .fetch(&server.url("/song.mp3"), MediaClass::Audio, dir.path(), "a")
        .await
        .expect("mp3");
    assert_eq!(song.format, MediaFormat::Mp3);

    let e = kind(fetch_image(&f, &server.url("/gone.jpg"), dir.path()).await);
    assert_eq!((e.code(), e.transient), ("media_unreachable", false));
    let e = kind(fetch_image(&f, &server.url("/busy.jpg"), dir.path()).await);
    assert_eq!((e.code(), e.transient), ("media_unreachable", true));
    // Nothing listens on port 9 of 127.0.0.1: allowed, but unreachable (worth a retry).
    let e = kind(fetch_image(&f, "http://127.0.0.1:9/a.jpg", dir.path()).await);
    assert_eq!((e.code(), e.transient), ("media_unreachable", true), "{e}");
    // Not http(s).
    let e = kind(fetch_image(&f, "file:///etc/passwd", dir.path()).await);
    assert_eq!((e.code(), e.transient), ("media_unreachable", false));
}

#[tokio::test]
async fn slow_server_hits_the_total_timeout() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket); // never answers
        }
    });
    let config = FetchConfig {
        allow: AllowList::parse("127.0.0.1").expect("allow"),
        total_timeout: Duration::from_millis(500),
        ..FetchConfig::default()
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let e = Fetcher::new(config, None)
        .fetch(
            &format!("http://{addr}/a.jpg"),
            MediaClass::Image,
            dir.path(),
            "x",
        )
        .await
        .expect_err("times out");
    assert_eq!((e.code(), e.transient), ("media_unreachable", true), "{e}");
}

/// JPEG bytes with an EXIF APP1 segment carrying `Orientation = value`.
pub fn with_exif_orientation(jpeg: &[u8], value: u8) -> Vec<u8> {
    let tiff: Vec<u8> = [
        b"MM\x00\x2a\x00\x00\x00\x08".as_slice(),
        &[0, 1],                         // one entry
        &[0x01, 0x12, 0, 3, 0, 0, 0, 1], // Orientation, SHORT, count 1
        &[0, value, 0, 0],               // value, padding
        &[0, 0, 0, 0],                   // no next IFD
    ]
    .concat();
    let len = (2 + 6 + tiff.len()) as u16;
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xff, 0xe1]);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(b"Exif\x00\x00");
    out.extend_from_slice(&tiff);
    out.extend_from_slice(&jpeg[2..]);
    out
}

#[tokio::test]
async fn exif_orientation_is_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let jpeg = std::fs::read(common::picture(dir.path(), "p.jpg", 80, 40)).expect("jpeg");
    let rotated = Arc::new(with_exif_orientation(&jpeg, 6));
    let server = TestServer::start(
        "127.0.0.1",
        vec![(
            "/r.jpg",
            Route::Body {
                content_type: "image/jpeg",
                body: rotated,
            },
        )],
    )
    .await;
    let media = fetch_image(&fetcher("127.0.0.1"), &server.url("/r.jpg"), dir.path())
        .await
        .expect("fetch");
    assert_eq!(media.format, MediaFormat::Jpeg);
    assert_eq!(media.orientation, ExifOrientation(6));
    assert_eq!(media.dimensions, Some((80, 40)));
    assert_eq!(media.upright_dimensions(), Some((40, 80)));
}

#[derive(Debug)]
struct Uploads(PathBuf);

impl OwnFiles for Uploads {
    fn local_file(&self, url_path: &str) -> Option<PathBuf> {
        url_path
            .strip_prefix("/files/")
            .map(|rest| self.0.join(rest))
    }
}

#[tokio::test]
async fn own_public_url_is_read_from_storage_not_the_network() {
    let dir = tempfile::tempdir().expect("temp dir");
    common::picture(dir.path(), "own.png", 32, 32);
    let config = FetchConfig {
        // A loopback public URL with nothing listening: only the local read can succeed.
        public_url: Some("http://127.0.0.1:9/".parse().expect("url")),
        ..FetchConfig::default()
    };
    let f = Fetcher::new(config, Some(Arc::new(Uploads(dir.path().to_path_buf()))));
    let media = f
        .fetch(
            "http://127.0.0.1:9/files/own.png",
            MediaClass::Image,
            dir.path(),
            "copy",
        )
        .await
        .expect("own file");
    assert_eq!(media.format, MediaFormat::Png);
    // `..` is normalized away by the URL parser before the lookup.
    let e = f
        .fetch(
            "http://127.0.0.1:9/files/../../etc/passwd",
            MediaClass::Image,
            dir.path(),
            "x",
        )
        .await
        .expect_err("outside");
    assert_eq!(e.code(), "media_unreachable");
    // Another port on the same host is not "own": the public-address rule applies.
    let e = f
        .fetch(
            "http://127.0.0.1:10/files/own.png",
            MediaClass::Image,
            dir.path(),
            "x",
        )
        .await
        .expect_err("other port");
    assert!(
        e.message
            .contains("could not be reached as a public address"),
        "{e}"
    );
}

/// A name that does not exist fails at once and for good, saying so (it was 51 s of retries,
/// then "could not be reached as a public address"); a private address keeps the message that
/// names no reason.
#[tokio::test]
async fn a_name_that_does_not_exist_fails_at_once_as_permanent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let f = Fetcher::new(FetchConfig::default(), None);
    let private = fetch_image(&f, "http://localhost:9/a.png", dir.path())
        .await
        .expect_err("private");
    assert!(!private.transient, "{private}");
    assert!(
        private
            .message
            .contains("could not be reached as a public address"),
        "{private}"
    );
    assert!(!private.message.contains("loopback"), "{private}");
    let started = std::time::Instant::now();
    let unknown = fetch_image(&f, "http://no-such-host.invalid:9/a.png", dir.path())
        .await
        .expect_err("unresolvable");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(unknown.code(), "media_unreachable");
    assert!(
        !unknown.transient,
        "a missing name is not retried: {unknown}"
    );
    assert_eq!(
        unknown.message,
        "no-such-host.invalid does not resolve: no such host name (check the spelling of the URL)"
    );
}

/// Webhook deliveries: the same address rule, no redirects followed, the answer read only up
/// to its limit.
#[tokio::test]
async fn posts_keep_the_address_rule_follow_no_redirect_and_read_little() {
    let server = TestServer::start(
        "127.0.0.1",
        vec![
            ("/gone", Route::Status(410)),
            ("/moved", Route::Redirect("/gone".to_owned())),
            // Far more than a delivery may read, arriving slowly: 1 MiB in 16 KiB pieces every
            // 25 ms takes 1.6 s whole; the first 64 KiB arrive in about 0.1 s.
            (
                "/endless",
                Route::Trickle {
                    body: Arc::new(vec![b'x'; 1 << 20]),
                    step: 16 * 1024,
                    every: Duration::from_millis(25),
                },
            ),
            // A receiver that takes longer than the delivery timeout to answer.
            (
                "/slow",
                Route::Delayed {
                    body: Arc::new(b"ok".to_vec()),
                    delay: Duration::from_secs(3),
                },
            ),
        ],
    )
    .await;
    let headers = [("content-type", "application/json")];
    let post = |f: Fetcher, url: String, timeout: Duration| async move {
        f.post(&url, &headers, b"{}", timeout, 64 * 1024).await
    };

    let err = post(fetcher(""), server.url("/gone"), Duration::from_secs(5))
        .await
        .expect_err("loopback without an allow-list");
    assert!(!err.transient, "a refusal is final: {err}");
    assert!(
        err.message
            .contains("could not be reached as a public address"),
        "{err}"
    );
    assert_eq!(server.connections(), 0, "nothing was sent");

    let allowed = fetcher("127.0.0.1");
    let answer = post(allowed.clone(), server.url("/gone"), Duration::from_secs(5))
        .await
        .expect("answered");
    assert_eq!(answer.status, 410);
    let answer = post(
        allowed.clone(),
        server.url("/moved"),
        Duration::from_secs(5),
    )
    .await
    .expect("answered");
    assert_eq!(answer.status, 302, "the redirect is the answer");
    assert_eq!(server.connections(), 2, "the redirect was not followed");

    // Reading the whole 1 MiB would overrun a 1 s limit; stopping at 64 KiB does not.
    let started = std::time::Instant::now();
    let answer = post(
        allowed.clone(),
        server.url("/endless"),
        Duration::from_secs(1),
    )
    .await
    .expect("answered within the limit");
    assert_eq!(answer.status, 200);
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );

    // No answer within the timeout: a transient failure (the delivery is retried).
    let started = std::time::Instant::now();
    let err = post(allowed, server.url("/slow"), Duration::from_millis(300))
        .await
        .expect_err("timed out");
    assert!(err.transient, "{err}");
    assert!(err.message.contains("did not answer within"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

/// The service's own files kept in an object store: read through `Storage`, never over HTTP.
#[derive(Debug)]
struct Stored(Arc<dyn stillreel_render::Storage>);

impl OwnFiles for Stored {
    fn local_file(&self, _url_path: &str) -> Option<PathBuf> {
        None
    }

    fn stored_file(&self, url_path: &str) -> Option<(Arc<dyn stillreel_render::Storage>, String)> {
        url_path
            .strip_prefix("/files/")
            .map(|key| (Arc::clone(&self.0), key.to_owned()))
    }
}

#[tokio::test]
async fn own_public_url_in_an_object_store_is_read_through_storage() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("store");
    std::fs::create_dir_all(&root).expect("root");
    let store = object_store::local::LocalFileSystem::new_with_prefix(&root).expect("store");
    let storage = stillreel_render::ObjectStorage::new(
        Arc::new(store),
        "media",
        "/files",
        "test store".to_owned(),
    )
    .expect("storage");
    let storage = Arc::new(storage);
    common::picture(dir.path(), "own.png", 32, 32);
    // A synchronous put from an async test: the storage waits on its own runtime.
    stillreel_render::Storage::put(&*storage, &dir.path().join("own.png"), "uploads/own.png")
        .expect("put");
    let config = FetchConfig {
        // Nothing listens at the public URL: only a read through storage can succeed.
        public_url: Some("http://127.0.0.1:9/".parse().expect("url")),
        max_image_bytes: 64 * 1024,
        ..FetchConfig::default()
    };
    let f = Fetcher::new(config, Some(Arc::new(Stored(storage.clone()))));
    let media = f
        .fetch(
            "http://127.0.0.1:9/files/uploads/own.png",
            MediaClass::Image,
            dir.path(),
            "copy",
        )
        .await
        .expect("stored file");
    assert_eq!(media.format, MediaFormat::Png);
    assert_eq!(media.dimensions, Some((32, 32)));
    let e = f
        .fetch(
            "http://127.0.0.1:9/files/uploads/missing.png",
            MediaClass::Image,
            dir.path(),
            "x",
        )
        .await
        .expect_err("missing");
    assert_eq!((e.code(), e.transient), ("media_unreachable", false), "{e}");
    // Larger than max_bytes: refused by size, before reading.
    std::fs::write(dir.path().join("big.png"), vec![0u8; 100 * 1024]).expect("write");
    stillreel_render::Storage::put(&*storage, &dir.path().join("big.png"), "uploads/big.png")
        .expect("put big");
    let e = f
        .fetch(
            "http://127.0.0.1:9/files/uploads/big.png",
            MediaClass::Image,
            dir.path(),
            "x",
        )
        .await
        .expect_err("too large");
    assert_eq!(e.code(), "media_too_large", "{e}");
}

const FIELD: &str = "image_inputs[5].image_url";

fn body(path: &Path) -> Arc<Vec<u8>> {
    Arc::new(std::fs::read(path).expect("read fixture"))
}

#[test]
fn default_limits() {
    let c = FetchConfig::default();
    assert_eq!(c.max_image_bytes, 40 * 1024 * 1024);
    assert_eq!(c.max_audio_bytes, 50 * 1024 * 1024);
    assert_eq!(c.max_pixels, 50_000_000);
    assert_eq!(c.total_timeout, Duration::from_secs(60));
    assert_eq!(
        c.min_rate,
        MinRate {
            bytes_per_sec: 16 * 1024,
            window: Duration::from_secs(10)
        }
    );
    assert_eq!(c.concurrency, 4);
}

#[tokio::test]
async fn image_over_50_megapixels_is_refused_from_its_header() {
    let dir = tempfile::tempdir().expect("temp dir");
    let png = body(&common::huge_png(dir.path()));
    assert!(png.len() < 1024 * 1024, "tiny on the wire: {}", png.len());
    let server = TestServer::start(
        "127.0.0.1",
        vec![
            (
                "/huge.png",
                Route::Body {
                    content_type: "image/png",
                    body: Arc::clone(&png),
                },
            ),
            // The header, then nothing: the refusal must not wait for the rest.
            (
                "/hang.png",
                Route::HeadThenHang {
                    body: png,
                    sent: 4096,
                },
            ),
        ],
    )
    .await;
    let f = fetcher("127.0.0.1");
    for path in ["/huge.png", "/hang.png"] {
        let started = std::time::Instant::now();
        let e = f
            .fetch_as(&server.url(path), MediaClass::Image, dir.path(), "x", FIELD)
            .await
            .expect_err("too many pixels");
        assert_eq!((e.code(), e.transient), ("media_too_large", false), "{e}");
        assert_eq!(
            e.message,
            "image_inputs[5].image_url is 16000×16000 pixels (256 megapixels); the limit is 50 megapixels"
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{path}: refused from the header, not at the timeout"
        );
    }
    // The limit is a setting.
    let small = Fetcher::new(
        FetchConfig {
            allow: AllowList::parse("127.0.0.1").expect("allow"),
            max_pixels: 3000,
            ..FetchConfig::default()
        },
        None,
    );
    let png = png_bytes(dir.path()); // 64 × 48 = 3072 pixels
    let server = TestServer::start(
        "127.0.0.1",
        vec![(
            "/p.png",
            Route::Body {
                content_type: "image/png",
                body: png,
            },
        )],
    )
    .await;
    let e = small
        .fetch_as(
            &server.url("/p.png"),
            MediaClass::Image,
            dir.path(),
            "x",
            FIELD,
        )
        .await
        .expect_err("over the configured limit");
    assert!(e.message.ends_with("the limit is 0.003 megapixels"), "{e}");
}

#[tokio::test]
async fn camera_jpeg_of_16_mib_is_accepted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let jpeg = body(&common::camera_jpeg(dir.path()));
    assert!(jpeg.len() > 16 * 1024 * 1024, "{} bytes", jpeg.len());
    let server = TestServer::start(
        "127.0.0.1",
        vec![(
            "/photo.jpg",
            Route::Body {
                content_type: "image/jpeg",
                body: Arc::clone(&jpeg),
            },
        )],
    )
    .await;
    let media = fetcher("127.0.0.1")
        .fetch_as(
            &server.url("/photo.jpg"),
            MediaClass::Image,
            dir.path(),
            "x",
            FIELD,
        )
        .await
        .expect("a camera-size photo is accepted");
    assert_eq!(media.bytes, jpeg.len() as u64);
    assert_eq!(media.dimensions, Some((6000, 4000)));
}

#[tokio::test]
async fn size_messages_name_the_field_and_the_size_not_the_host() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut sized = vec![0u8; 1024 * 1024 + 512 * 1024];
    sized[..3].copy_from_slice(&[0xff, 0xd8, 0xff]);
    let server = TestServer::start(
        "127.0.0.1",
        vec![
            (
                "/sized.jpg",
                Route::Body {
                    content_type: "image/jpeg",
                    body: Arc::new(sized),
                },
            ),
            ("/stream.jpg", Route::Stream { total: 2 << 20 }),
        ],
    )
    .await;
    let f = Fetcher::new(
        FetchConfig {
            allow: AllowList::parse("127.0.0.1").expect("allow"),
            max_image_bytes: 1024 * 1024,
            ..FetchConfig::default()
        },
        None,
    );
    let e = f
        .fetch_as(
            &server.url("/sized.jpg"),
            MediaClass::Image,
            dir.path(),
            "x",
            FIELD,
        )
        .await
        .expect_err("over");
    assert_eq!(e.code(), "media_too_large");
    assert_eq!(
        e.message,
        "image_inputs[5].image_url is 1.5 MiB; the limit is 1 MiB"
    );
    // Without a Content-Length the size is unknown: the message says so.
    let e = f
        .fetch_as(
            &server.url("/stream.jpg"),
            MediaClass::Image,
            dir.path(),
            "x",
            FIELD,
        )
        .await
        .expect_err("over");
    assert_eq!(
        e.message,
        "image_inputs[5].image_url is over 1 MiB; the limit is 1 MiB"
    );
    assert!(!e.message.contains("127.0.0.1"));
}

/// A fetcher for the deadline tests: a window of 1 s instead of 10.
fn slow_fetcher(deadline: Duration, min_rate: u64) -> Fetcher {
    Fetcher::new(
        FetchConfig {
            allow: AllowList::parse("127.0.0.1").expect("allow"),
            total_timeout: deadline,
            min_rate: MinRate {
                bytes_per_sec: min_rate,
                window: Duration::from_secs(1),
            },
            ..FetchConfig::default()
        },
        None,
    )
}

#[tokio::test]
async fn trickling_source_is_abandoned_below_the_minimum_rate() {
    let dir = tempfile::tempdir().expect("temp dir");
    let jpeg = body(&common::picture(dir.path(), "a.jpg", 640, 480));
    let server = TestServer::start(
        "127.0.0.1",
        vec![(
            "/slow.jpg",
            Route::Trickle {
                body: jpeg,
                step: 100,
                every: Duration::from_millis(100),
            },
        )],
    )
    .await;
    let started = std::time::Instant::now();
    let e = slow_fetcher(Duration::from_secs(30), 16 * 1024)
        .fetch_as(
            &server.url("/slow.jpg"),
            MediaClass::Image,
            dir.path(),
            "x",
            FIELD,
        )
        .await
        .expect_err("1 KB/s is too slow");
    assert_eq!(e.code(), "media_unreachable", "{e}");
    assert!(
        e.message
            .starts_with("image_inputs[5].image_url arrived too slowly"),
        "{e}"
    );
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(3),
        "abandoned after one window, not at the deadline: {took:?}"
    );
}

#[tokio::test]
async fn inputs_are_fetched_four_at_a_time() {
    let dir = tempfile::tempdir().expect("temp dir");
    let png = png_bytes(dir.path());
    let server = TestServer::start(
        "127.0.0.1",
        vec![(
            "/late.png",
            Route::Delayed {
                body: png,
                delay: Duration::from_millis(700),
            },
        )],
    )
    .await;
    let requests: Vec<FetchRequest> = (0..8)
        .map(|i| FetchRequest {
            url: server.url("/late.png"),
            class: MediaClass::Image,
            stem: format!("image-{i}"),
            field: format!("image_inputs[{i}].image_url"),
        })
        .collect();
    let started = std::time::Instant::now();
    let mut progress = Vec::new();
    let media = fetcher("127.0.0.1")
        .fetch_all(&requests, dir.path(), &mut |n| progress.push(n))
        .await
        .expect("all fetched");
    let took = started.elapsed();
    assert_eq!(media.len(), 8);
    for (i, m) in media.iter().enumerate() {
        assert!(
            m.path.ends_with(format!("image-{i}.png")),
            "in request order"
        );
    }
    assert_eq!(progress, (1..=8).collect::<Vec<_>>());
    assert_eq!(server.peak_in_flight(), 4);
    // Two rounds of 0.7 s, not eight.
    assert!(took < Duration::from_millis(2500), "{took:?}");
}

#[tokio::test]
async fn twenty_slow_inputs_share_one_deadline() {
    let dir = tempfile::tempdir().expect("temp dir");
    let jpeg = body(&common::picture(dir.path(), "a.jpg", 640, 480));
    // Fast enough for the rate rule (about 2 KB/s against 1 KB/s), far too slow to finish.
    let server = TestServer::start(
        "127.0.0.1",
        vec![(
            "/slow.jpg",
            Route::Trickle {
                body: jpeg,
                step: 200,
                every: Duration::from_millis(100),
            },
        )],
    )
    .await;
    let requests: Vec<FetchRequest> = (0..20)
        .map(|i| FetchRequest {
            url: server.url("/slow.jpg"),
            class: MediaClass::Image,
            stem: format!("image-{i}"),
            field: format!("image_inputs[{i}].image_url"),
        })
        .collect();
    let started = std::time::Instant::now();
    let (index, e) = slow_fetcher(Duration::from_secs(2), 1024)
        .fetch_all(&requests, dir.path(), &mut |_| {})
        .await
        .expect_err("the deadline ends the whole set");
    let took = started.elapsed();
    assert_eq!(index, 0);
    assert_eq!(e.code(), "media_unreachable");
    assert_eq!(
        e.message,
        "image_inputs[0].image_url was not downloaded in time: a video's media get 2 s in all"
    );
    // One deadline for the set (before: 2 s for each of the 20, one after another).
    assert!(took < Duration::from_secs(4), "{took:?}");
}
