//! The harness of the tests that run the real `stillreel` binary as processes (crash safety,
//! webhook outbox, CLI, scale-out): a free port, the binary on a test database, a process in
//! a group of its own (so `kill -9` of the group also takes its ffmpeg children, as a machine
//! crash would), a raw HTTP/1.1 client that needs no runtime, and the wait for `/healthz`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::TestDb;

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// The binary on `db` (its data directory, and its PostgreSQL database when it has one),
/// with an empty environment but `PATH` and `RUST_LOG=info,sqlx=warn`.
pub fn bin(db: &TestDb) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stillreel"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("RUST_LOG", "info,sqlx=warn");
    db.apply_to(&mut cmd);
    cmd
}

/// Starts `cmd` in a process group of its own, its stderr appended to `log`.
pub fn spawn_in_group(cmd: &mut Command, log: &Path) -> Child {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("log file");
    cmd.stdout(Stdio::null())
        .stderr(log)
        .process_group(0)
        .spawn()
        .expect("start stillreel")
}

/// Waits (at most 60 s) until `GET /healthz` on `port` answers 200.
pub fn wait_healthy(port: u16, what: &str, log: &Path) {
    let started = Instant::now();
    while request(port, "GET", "/healthz", "", None).is_none_or(|(status, _)| status != 200) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what} did not start; log:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `stillreel serve` on `db` and `port` with one job slot, a 3 s lease and `env`, started in a
/// group of its own and healthy.
pub fn serve(db: &TestDb, port: u16, log: &Path, env: &[(&str, &str)]) -> Child {
    let mut cmd = bin(db);
    cmd.arg("serve")
        .env("STILLREEL_LISTEN", format!("127.0.0.1:{port}"))
        .env("STILLREEL_WORKERS", "1")
        .env("STILLREEL_JOB_LEASE_SECS", "3")
        .env("STILLREEL_WEB_DIR", db.dir.path().join("no-web"))
        .envs(env.iter().copied());
    let child = spawn_in_group(&mut cmd, log);
    wait_healthy(port, "stillreel serve", log);
    child
}

/// One HTTP/1.1 request with a JSON body; `(status, JSON body)`, or `None` when the server
/// cannot be reached.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    key: &str,
    body: Option<&Value>,
) -> Option<(u16, Value)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .ok()?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: {key}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body.as_bytes()).ok()?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some((status, serde_json::from_str(body).unwrap_or(Value::Null)))
}

/// Status, headers (lower-case names) and body of a response.
pub type Reply = (u16, Vec<(String, String)>, Vec<u8>);

/// One plain HTTP/1.1 request to 127.0.0.1:`port` (`path` with its query) without a body:
/// status, headers and body (de-chunked), or `None` when nothing answers.
pub fn http(port: u16, method: &str, path: &str, headers: &[(&str, &str)]) -> Option<Reply> {
    http_body(port, method, path, headers, b"")
}

/// [`http`] with a request body.
pub fn http_body(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Option<Reply> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .ok()?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body).ok()?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).ok()?;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"))
    {
        body = dechunk(&body);
    }
    Some((status, headers, body))
}

/// The body of a chunked response.
fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&data[..end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("0").trim(), 16)
            .unwrap_or(0);
        if size == 0 || data.len() < end + 2 + size {
            break;
        }
        let start = end + 2;
        out.extend_from_slice(&data[start..start + size]);
        data = &data[(start + size + 2).min(data.len())..];
    }
    out
}

/// The value of header `name` (lower case) of a [`Reply`].
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// GET of an absolute `http://127.0.0.1:PORT/...` URL.
pub fn get_url(url: &str, headers: &[(&str, &str)]) -> Reply {
    let rest = url.strip_prefix("http://127.0.0.1:").expect("local URL");
    let (port, path) = rest.split_once('/').expect("URL path");
    http(
        port.parse().expect("port"),
        "GET",
        &format!("/{path}"),
        headers,
    )
    .unwrap_or_else(|| panic!("{url} does not answer"))
}

/// Sends `signal` (`-KILL`, `-TERM`) to the process group of `child` and waits for it.
pub fn kill_group(child: &mut Child, signal: &str) -> ExitStatus {
    let group = format!("-{}", child.id());
    let status = Command::new("kill")
        .args([signal, "--", &group])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill {signal} {group}");
    child.wait().expect("wait for the process")
}
