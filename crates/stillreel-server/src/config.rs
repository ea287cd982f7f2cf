//! Configuration: one typed struct, read once from the environment at start-up.
//!
//! Every variable is documented in `.env.example` at the repository root and in
//! `docs/SERVER.md`. Nothing else in the crate reads the environment.
//!
//! Groups of variables with parsing of their own are submodules (`database`, `http`, `limits`,
//! `metrics`, `paths`, `rate_limit`, `storage`, `templates`, `webhooks`, `workers`), their
//! types re-exported here; `tools` checks the ffmpeg a render runs and `urls` the addresses that
//! must agree.
//!
//! Every path read here is absolute once read: a relative one (the default `./data`) is joined
//! to the working folder the process started in (`paths.rs`), so no later step depends on the
//! folder it runs in (ffmpeg runs in each job's own folder).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use stillreel_core::{Engine, Template};
use stillreel_providers::ProviderRoles;
use stillreel_render::media::fetch::AllowList;

mod database;
mod disk;
mod error;
mod http;
mod limits;
mod metrics;
mod paths;
mod rate_limit;
mod storage;
mod templates;
mod tools;
mod urls;
mod webhooks;
mod workers;
pub use self::database::{DEFAULT_DATABASE_POOL_SIZE, DatabaseConfig};
use self::database::{database, pool_size};
pub use self::disk::DEFAULT_MIN_FREE_BYTES;
pub use self::error::ConfigError;
pub use self::http::HttpLimits;
pub use self::limits::JobLimits;
pub use self::metrics::MetricsToken;
pub use self::rate_limit::{Period, RateLimit};
pub use self::storage::StorageConfig;
use self::storage::storage_config;
pub use self::templates::load_templates;
pub use self::tools::check_tools;
use self::urls::{check_public_url, shares_port};
pub use self::webhooks::{DEFAULT_RETRY_SCHEDULE, parse_schedule};
pub use self::workers::{
    MIN_DEFAULT_WORKERS, Workers, WorkersFrom, available_cores, default_workers,
};

/// `STILLREEL_PROVIDER_CONCURRENCY` when unset.
pub const DEFAULT_PROVIDER_CONCURRENCY: usize = 4;

/// The whole configuration of `stillreel`.
#[derive(Debug, Clone)]
pub struct Config {
    /// `STILLREEL_LISTEN`: address to listen on.
    pub listen: SocketAddr,
    /// `STILLREEL_DATA_DIR`: database file, media, renders.
    pub data_dir: PathBuf,
    /// `STILLREEL_MIN_FREE_BYTES` (default [`DEFAULT_MIN_FREE_BYTES`], `0` off): below this much
    /// free space on the data folder's disk, new work gets 507 and `/readyz` is not ready.
    pub min_free_bytes: u64,
    /// `STILLREEL_DATABASE_URL`: SQLite file in the data dir unless a `postgres://` URL.
    pub database: DatabaseConfig,
    /// `STILLREEL_DATABASE_POOL_SIZE` (default [`DEFAULT_DATABASE_POOL_SIZE`], 1 to 1000):
    /// connections this process opens to PostgreSQL at most (SQLite has its own pools).
    pub database_pool_size: u32,
    /// `STILLREEL_PUBLIC_URL`: base of every URL in responses, without a trailing slash.
    pub public_url: String,
    /// `STILLREEL_FETCH_ALLOW`: hosts/IPs/CIDRs exempt from the public-address rule (used by the
    /// renderer's media fetcher; kept here as the raw comma-separated entries).
    pub fetch_allow: Vec<String>,
    /// `STILLREEL_WORKERS`: render jobs (one ffmpeg each) run at once by this process;
    /// 0 = API node only. Default: [`default_workers`] of the available cores.
    pub workers: usize,
    /// Where `workers` came from (the variable, or the cores), for the start-up log.
    pub workers_from: WorkersFrom,
    /// `STILLREEL_DEFAULT_ENGINE`: engine when a request names none.
    pub default_engine: Engine,
    /// `STILLREEL_FFMPEG`: ffmpeg binary.
    pub ffmpeg: PathBuf,
    /// `STILLREEL_WEB_DIR`: the built web form, served at `/`.
    pub web_dir: PathBuf,
    /// `STILLREEL_GET_VIDEO_CACHE` (`on`/`off`, default on): the in-process `get_video` cache
    /// on SQLite (see `cache.rs`; PostgreSQL never uses it).
    pub get_video_cache: bool,
    /// `STILLREEL_SAMPLES_DIR`: the bundled sample pictures, served at `/samples/` and read
    /// directly by the renderer (so the README's demo works offline).
    pub samples_dir: PathBuf,
    /// `STILLREEL_JOB_LEASE_SECS` (default 30): how long a render job's lease lasts without a
    /// heartbeat; a crashed worker's job is back in the queue after about this long.
    pub job_lease_secs: u64,
    /// `STILLREEL_RATE_LIMIT` (default off): requests per account and period, per process.
    pub rate_limit: Option<RateLimit>,
    /// `STILLREEL_WEBHOOK_RETRY_SCHEDULE` (seconds, comma-separated; default the Standard
    /// Webhooks schedule 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h): the delays before each
    /// retry of a webhook delivery; one attempt more than delays in all.
    pub webhook_retry_schedule: Vec<Duration>,
    /// `STILLREEL_STORAGE_URL` (`file:///abs/path` or `s3://bucket/prefix`, default the media
    /// folder of the data dir), with the `AWS_*` variables for S3 and
    /// `STILLREEL_STORAGE_PRESIGN_SECS` (default 3600) for its download links.
    pub storage: StorageConfig,
    /// `STILLREEL_WORKER_LISTEN`: where `stillreel worker` answers `/healthz` and `/metrics`
    /// (unset: it listens nowhere).
    pub worker_listen: Option<SocketAddr>,
    /// `STILLREEL_METRICS_LISTEN` (default none): when set, `serve` answers `/metrics` (and
    /// `/healthz`) on this address only, meant for a private network, and no longer on the
    /// API's port.
    pub metrics_listen: Option<SocketAddr>,
    /// Media caps, fetch deadlines, ffmpeg's memory and the per-account job cap.
    pub limits: JobLimits,
    /// `STILLREEL_HTTP_*`: how long and how many connections a client may hold.
    pub http: HttpLimits,
    /// `STILLREEL_TEMPLATES_DIR` (default none): the deployment's own templates, every
    /// `*.json` file there, read and checked at start-up; served after the built-in ones.
    pub extra_templates: Vec<Template>,
    /// `STILLREEL_<ROLE>_PROVIDER`, `_URL`, `_TOKEN`, `_MODEL`, `_INPUT`, `_PROMPT`,
    /// `_TIMEOUT_SECS` for the roles `STAGING`, `LIFESTYLE`, `FAN`, `DEPTH`, `CLIP`, and the older
    /// `STILLREEL_PROVIDER_URL` / `_TOKEN` / `_TIMEOUT_SECS` (the three generative roles on the
    /// `stillreel` contract) (default none): the model providers (docs/PROVIDERS.md). No role:
    /// the generative vfx types are not offered.
    pub providers: ProviderRoles,
    /// `STILLREEL_PROVIDER_CONCURRENCY` (default [`DEFAULT_PROVIDER_CONCURRENCY`], 1 to 64):
    /// model calls one worker process runs at once, beside its render slots.
    pub provider_concurrency: usize,
    /// `STILLREEL_DISCLOSURE_CAPTION` (`on`/`off`, default on): a "Virtually staged" caption on
    /// clips whose picture a staging or people model altered (docs/PROVIDERS.md, "Disclosure").
    pub disclosure_caption: bool,
    /// `STILLREEL_METRICS_TOKEN` (default none): when set, `/metrics` answers only
    /// `Authorization: Bearer <token>` (401 otherwise), on the API's port and the worker's.
    pub metrics_token: Option<MetricsToken>,
    /// `RUST_LOG` (default `info,sqlx=warn`): the log filter.
    pub log_filter: String,
    /// `STILLREEL_LOG_FORMAT` (`text`, the default, or `json`): one JSON object per log line.
    pub log_json: bool,
}

impl Config {
    /// Reads the configuration from the process environment; relative paths are taken from
    /// the process's working folder.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the configuration through `lookup` (the environment, or a map in tests), relative
    /// paths taken from the process's working folder. Empty values count as unset.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        match std::env::current_dir() {
            Ok(dir) => Self::read(lookup, Ok(&dir)),
            Err(err) => Self::read(lookup, Err(&err.to_string())),
        }
    }

    /// [`Config::from_lookup`] with relative paths taken from `working_dir`.
    pub fn from_lookup_in(
        lookup: impl Fn(&str) -> Option<String>,
        working_dir: &Path,
    ) -> Result<Self, ConfigError> {
        Self::read(lookup, Ok(working_dir))
    }

    /// `working_dir`: `Err` with the reason when the process cannot read its own.
    fn read(
        lookup: impl Fn(&str) -> Option<String>,
        working_dir: Result<&Path, &str>,
    ) -> Result<Self, ConfigError> {
        let get = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };

        let listen_text = get("STILLREEL_LISTEN").unwrap_or_else(|| "127.0.0.1:8080".to_owned());
        let listen: SocketAddr = listen_text.parse().map_err(|err| ConfigError {
            var: "STILLREEL_LISTEN",
            message: format!("{listen_text:?} is not an address like 127.0.0.1:8080 ({err})"),
        })?;
        let path_of = |var: &'static str, default: &str| {
            let given = get(var).unwrap_or_else(|| default.to_owned());
            paths::absolute(var, Path::new(&given), working_dir)
        };
        let data_dir = path_of("STILLREEL_DATA_DIR", "./data")?;
        let min_free_bytes = disk::min_free_bytes(get("STILLREEL_MIN_FREE_BYTES").as_deref())?;
        let database = database(&get, &data_dir, working_dir)?;
        let public_url = match get("STILLREEL_PUBLIC_URL") {
            Some(url) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(ConfigError {
                        var: "STILLREEL_PUBLIC_URL",
                        message: format!("{url:?} must start with http:// or https://"),
                    });
                }
                check_public_url(&url)?;
                url.trim_end_matches('/').to_owned()
            }
            None => format!("http://{listen}"),
        };
        let fetch_allow: Vec<String> = get("STILLREEL_FETCH_ALLOW")
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let database_pool_size = pool_size(&get)?;
        // Checked here, not when the renderer is built: a bad entry stops the start before
        // anything is created or printed.
        AllowList::parse(&fetch_allow.join(",")).map_err(|err| ConfigError {
            var: "STILLREEL_FETCH_ALLOW",
            message: err.to_string(),
        })?;
        let Workers {
            count: workers,
            from: workers_from,
        } = Workers::read(get("STILLREEL_WORKERS").as_deref(), available_cores())?;
        let default_engine = match get("STILLREEL_DEFAULT_ENGINE") {
            None => Engine::V25,
            // The default is one of the procedural cameras: a deployment whose default calls
            // a paid model on every request that names no engine would surprise its clients.
            Some(text) => Engine::parse(&text)
                .filter(|e| Engine::BUILT_IN.contains(e))
                .ok_or_else(|| ConfigError {
                    var: "STILLREEL_DEFAULT_ENGINE",
                    message: format!("{text:?} is not v24 or v25"),
                })?,
        };
        let ffmpeg = paths::program(
            "STILLREEL_FFMPEG",
            Path::new(&get("STILLREEL_FFMPEG").unwrap_or_else(|| "ffmpeg".to_owned())),
            working_dir,
        )?;
        let web_dir = path_of("STILLREEL_WEB_DIR", "./web/dist")?;
        let get_video_cache = match get("STILLREEL_GET_VIDEO_CACHE").as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            Some(other) => {
                return Err(ConfigError {
                    var: "STILLREEL_GET_VIDEO_CACHE",
                    message: format!("{other:?} is not on or off"),
                });
            }
        };
        let samples_dir = path_of("STILLREEL_SAMPLES_DIR", "./samples")?;
        let job_lease_secs = match get("STILLREEL_JOB_LEASE_SECS") {
            None => 30,
            Some(text) => text
                .parse::<u64>()
                .ok()
                .filter(|&s| (3..=3600).contains(&s))
                .ok_or_else(|| ConfigError {
                    var: "STILLREEL_JOB_LEASE_SECS",
                    message: format!("{text:?} is not a whole number of seconds from 3 to 3600"),
                })?,
        };
        let rate_limit = match get("STILLREEL_RATE_LIMIT") {
            None => None,
            Some(text) => RateLimit::parse(&text).map_err(|message| ConfigError {
                var: "STILLREEL_RATE_LIMIT",
                message,
            })?,
        };
        let webhook_retry_schedule = match get("STILLREEL_WEBHOOK_RETRY_SCHEDULE") {
            None => DEFAULT_RETRY_SCHEDULE.map(Duration::from_secs).to_vec(),
            Some(text) => parse_schedule(&text).map_err(|message| ConfigError {
                var: "STILLREEL_WEBHOOK_RETRY_SCHEDULE",
                message,
            })?,
        };
        let storage = storage_config(&get, &data_dir)?;
        let worker_listen = match get("STILLREEL_WORKER_LISTEN") {
            None => None,
            Some(text) => Some(text.parse().map_err(|err| ConfigError {
                var: "STILLREEL_WORKER_LISTEN",
                message: format!("{text:?} is not an address like 127.0.0.1:9090 ({err})"),
            })?),
        };
        let metrics_listen = match get("STILLREEL_METRICS_LISTEN") {
            None => None,
            Some(text) => {
                let addr: SocketAddr = text.parse().map_err(|err| ConfigError {
                    var: "STILLREEL_METRICS_LISTEN",
                    message: format!("{text:?} is not an address like 127.0.0.1:9464 ({err})"),
                })?;
                if shares_port(addr, listen) {
                    return Err(ConfigError {
                        var: "STILLREEL_METRICS_LISTEN",
                        message: format!(
                            "{addr} is STILLREEL_LISTEN's address; /metrics needs an address of \
                             its own (another port, on a private interface)"
                        ),
                    });
                }
                Some(addr)
            }
        };
        let http = HttpLimits::read(&get)?;
        let extra_templates = match get("STILLREEL_TEMPLATES_DIR") {
            None => Vec::new(),
            Some(dir) => {
                let dir = paths::absolute("STILLREEL_TEMPLATES_DIR", Path::new(&dir), working_dir)?;
                load_templates(&dir).map_err(|message| ConfigError {
                    var: "STILLREEL_TEMPLATES_DIR",
                    message,
                })?
            }
        };
        let providers = ProviderRoles::from_lookup(get).map_err(|err| ConfigError {
            var: err.var,
            message: err.message,
        })?;
        let provider_concurrency = match get("STILLREEL_PROVIDER_CONCURRENCY") {
            None => DEFAULT_PROVIDER_CONCURRENCY,
            Some(text) => text
                .parse()
                .ok()
                .filter(|n| (1..=64).contains(n))
                .ok_or_else(|| ConfigError {
                    var: "STILLREEL_PROVIDER_CONCURRENCY",
                    message: format!("{text:?} is not a whole number from 1 to 64"),
                })?,
        };
        let disclosure_caption = match get("STILLREEL_DISCLOSURE_CAPTION").as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            Some(other) => {
                return Err(ConfigError {
                    var: "STILLREEL_DISCLOSURE_CAPTION",
                    message: format!("{other:?} is not on or off"),
                });
            }
        };
        let metrics_token = get("STILLREEL_METRICS_TOKEN")
            .map(|text| MetricsToken::parse(&text))
            .transpose()?;
        let log_filter = get("RUST_LOG").unwrap_or_else(|| "info,sqlx=warn".to_owned());
        let log_json = match get("STILLREEL_LOG_FORMAT") {
            None => false,
            Some(text) if text.eq_ignore_ascii_case("text") => false,
            Some(text) if text.eq_ignore_ascii_case("json") => true,
            Some(text) => {
                return Err(ConfigError {
                    var: "STILLREEL_LOG_FORMAT",
                    message: format!("{text:?} is not text or json"),
                });
            }
        };
        let limits = JobLimits::read(get, workers)?;
        Ok(Self {
            listen,
            data_dir,
            min_free_bytes,
            database,
            public_url,
            fetch_allow,
            database_pool_size,
            workers,
            workers_from,
            default_engine,
            ffmpeg,
            web_dir,
            get_video_cache,
            samples_dir,
            job_lease_secs,
            rate_limit,
            webhook_retry_schedule,
            storage,
            worker_listen,
            metrics_listen,
            limits,
            http,
            extra_templates,
            providers,
            provider_concurrency,
            disclosure_caption,
            metrics_token,
            log_filter,
            log_json,
        })
    }

    /// `workers` and where it came from; its `Display` is the start-up log's line.
    pub fn workers(&self) -> Workers {
        Workers {
            count: self.workers,
            from: self.workers_from,
        }
    }

    /// Where rendered and fetched media live.
    pub fn media_dir(&self) -> PathBuf {
        self.data_dir.join("media")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::num::NonZeroU32;

    use stillreel_providers::{Protocol, Role};

    use super::*;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        Config::from_lookup_in(|name| map.get(name).cloned(), Path::new(HERE))
    }

    /// The working folder the tests' configurations are read in.
    const HERE: &str = "/srv/reel";

    #[test]
    fn defaults_follow_the_contract() {
        let c = config(&[]).expect("defaults are valid");
        assert_eq!(c.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(c.data_dir, PathBuf::from("/srv/reel/data"));
        assert_eq!(c.min_free_bytes, DEFAULT_MIN_FREE_BYTES);
        assert_eq!(
            c.database,
            DatabaseConfig::Sqlite(PathBuf::from("/srv/reel/data/stillreel.db"))
        );
        assert_eq!(c.public_url, "http://127.0.0.1:8080");
        assert!(c.fetch_allow.is_empty());
        assert_eq!(c.workers, default_workers(available_cores()));
        assert_eq!(c.workers_from, WorkersFrom::Cores(available_cores()));
        assert_eq!(c.default_engine, Engine::V25);
        assert_eq!(c.ffmpeg, PathBuf::from("ffmpeg"));
        assert_eq!(c.web_dir, PathBuf::from("/srv/reel/web/dist"));
        assert!(c.get_video_cache);
        assert_eq!(c.samples_dir, PathBuf::from("/srv/reel/samples"));
        assert_eq!(c.job_lease_secs, 30);
        assert_eq!(c.rate_limit, None);
        assert_eq!(
            c.webhook_retry_schedule,
            [5, 300, 1800, 7200, 18000, 36000, 36000].map(Duration::from_secs)
        );
        assert_eq!(
            c.storage,
            StorageConfig::Local(PathBuf::from("/srv/reel/data/media"))
        );
        assert_eq!(c.worker_listen, None);
        assert_eq!(c.http, HttpLimits::default());
        assert_eq!(c.http.header_timeout, Duration::from_secs(10));
        assert_eq!(c.http.body_timeout, Duration::from_secs(30));
        assert!(c.providers.is_empty());
        assert!(c.disclosure_caption);
        assert_eq!(c.metrics_token, None);
        assert_eq!(c.log_filter, "info,sqlx=warn");
        assert!(!c.log_json);
    }

    /// ffmpeg runs in each job's own folder: every path the configuration gives out is
    /// absolute, whatever was configured, so it names the same file from any folder.
    #[test]
    fn relative_paths_are_made_absolute_against_the_working_folder() {
        let c = config(&[
            ("STILLREEL_DATA_DIR", "var/reel"),
            ("STILLREEL_WEB_DIR", "./web/./dist"),
            ("STILLREEL_SAMPLES_DIR", "../shared/samples"),
            ("STILLREEL_FFMPEG", "bin/ffmpeg"),
        ])
        .expect("valid");
        assert_eq!(c.data_dir, PathBuf::from("/srv/reel/var/reel"));
        assert_eq!(
            c.database,
            DatabaseConfig::Sqlite(PathBuf::from("/srv/reel/var/reel/stillreel.db"))
        );
        assert_eq!(
            c.storage,
            StorageConfig::Local(PathBuf::from("/srv/reel/var/reel/media"))
        );
        assert_eq!(c.web_dir, PathBuf::from("/srv/reel/web/dist"));
        assert_eq!(c.samples_dir, PathBuf::from("/srv/reel/../shared/samples"));
        assert_eq!(c.ffmpeg, PathBuf::from("/srv/reel/bin/ffmpeg"));
        let c = config(&[("STILLREEL_DATABASE_URL", "sqlite:db/reel.db")]).expect("valid");
        assert_eq!(
            c.database,
            DatabaseConfig::Sqlite(PathBuf::from("/srv/reel/db/reel.db"))
        );
        // Read in the process's own folder, the default data dir is that folder's `data`.
        let here = std::env::current_dir().expect("working folder");
        let c = Config::from_lookup(|_| None).expect("defaults");
        assert_eq!(c.data_dir, here.join("data"));
        for path in [&c.data_dir, &c.web_dir, &c.samples_dir, &c.media_dir()] {
            assert!(path.is_absolute(), "{}", path.display());
        }
    }

    #[test]
    fn webhook_retry_schedule_is_read_and_checked() {
        let c = config(&[("STILLREEL_WEBHOOK_RETRY_SCHEDULE", "1, 2")]).expect("valid");
        assert_eq!(c.webhook_retry_schedule, [1, 2].map(Duration::from_secs));
        let err = config(&[("STILLREEL_WEBHOOK_RETRY_SCHEDULE", "1,x")]).expect_err("invalid");
        assert_eq!(err.var, "STILLREEL_WEBHOOK_RETRY_SCHEDULE");
    }

    #[test]
    fn storage_urls() {
        let c = config(&[("STILLREEL_STORAGE_URL", "file:///srv/media")]).expect("file");
        assert_eq!(c.storage, StorageConfig::Local(PathBuf::from("/srv/media")));
        let c = config(&[
            ("STILLREEL_STORAGE_URL", "s3://reels/prod/media/"),
            ("AWS_ACCESS_KEY_ID", "AKID"),
            ("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMIK7MDENG"),
            ("AWS_DEFAULT_REGION", "eu-west-1"),
            ("AWS_ENDPOINT", "http://127.0.0.1:9000"),
            ("AWS_ALLOW_HTTP", "true"),
            ("STILLREEL_STORAGE_PRESIGN_SECS", "600"),
            ("STILLREEL_WORKER_LISTEN", "127.0.0.1:9090"),
        ])
        .expect("s3");
        let StorageConfig::S3(s3) = &c.storage else {
            panic!("not s3: {:?}", c.storage)
        };
        assert_eq!(s3.bucket, "reels");
        assert_eq!(s3.prefix, "prod/media");
        assert_eq!(s3.region.as_deref(), Some("eu-west-1"));
        assert_eq!(s3.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert!(s3.allow_http);
        assert_eq!(s3.presign_expiry, Duration::from_secs(600));
        assert_eq!(s3.url(), "s3://reels/prod/media");
        // The secret never reaches logs.
        assert!(!format!("{c:?}").contains("wJalrXUtnFEMIK7MDENG"), "{c:?}");
        assert_eq!(c.worker_listen.map(|a| a.port()), Some(9090));
        assert_eq!(c.metrics_listen, None);
        let c = config(&[("STILLREEL_METRICS_LISTEN", "10.0.0.5:9464")]).expect("metrics");
        assert_eq!(
            c.metrics_listen.map(|a| a.to_string()).as_deref(),
            Some("10.0.0.5:9464")
        );
        // AWS_REGION and AWS_ENDPOINT_URL win over their older spellings.
        let c = config(&[
            ("STILLREEL_STORAGE_URL", "s3://b"),
            ("AWS_REGION", "us-west-2"),
            ("AWS_DEFAULT_REGION", "eu-west-1"),
            ("AWS_ENDPOINT_URL", "https://s3.example"),
            ("AWS_ENDPOINT", "http://old"),
        ])
        .expect("s3");
        let StorageConfig::S3(s3) = &c.storage else {
            panic!("not s3")
        };
        assert_eq!(
            (s3.region.as_deref(), s3.prefix.as_str()),
            (Some("us-west-2"), "")
        );
        assert_eq!(s3.endpoint.as_deref(), Some("https://s3.example"));
        assert!(!s3.allow_http);
        assert_eq!(s3.presign_expiry, Duration::from_secs(3600));
        for (vars, var) in [
            (
                &[("STILLREEL_STORAGE_URL", "file://relative/x")][..],
                "STILLREEL_STORAGE_URL",
            ),
            (
                &[("STILLREEL_STORAGE_URL", "gs://b")][..],
                "STILLREEL_STORAGE_URL",
            ),
            (
                &[("STILLREEL_STORAGE_URL", "s3:///x")][..],
                "STILLREEL_STORAGE_URL",
            ),
            (
                &[("STILLREEL_STORAGE_URL", "s3://b/../x")][..],
                "STILLREEL_STORAGE_URL",
            ),
            (
                &[
                    ("STILLREEL_STORAGE_URL", "s3://b"),
                    ("AWS_ACCESS_KEY_ID", "k"),
                ][..],
                "AWS_SECRET_ACCESS_KEY",
            ),
            (
                &[
                    ("STILLREEL_STORAGE_URL", "s3://b"),
                    ("AWS_ALLOW_HTTP", "yes"),
                ][..],
                "AWS_ALLOW_HTTP",
            ),
            (
                &[
                    ("STILLREEL_STORAGE_URL", "s3://b"),
                    ("AWS_ENDPOINT_URL", "minio:9000"),
                ][..],
                "AWS_ENDPOINT_URL",
            ),
            (
                &[
                    ("STILLREEL_STORAGE_URL", "s3://b"),
                    ("STILLREEL_STORAGE_PRESIGN_SECS", "0"),
                ][..],
                "STILLREEL_STORAGE_PRESIGN_SECS",
            ),
            (
                &[("STILLREEL_WORKER_LISTEN", "9090")][..],
                "STILLREEL_WORKER_LISTEN",
            ),
            (
                &[("STILLREEL_METRICS_LISTEN", "9464")][..],
                "STILLREEL_METRICS_LISTEN",
            ),
            (
                // The API's own address: /metrics would not have moved anywhere.
                &[
                    ("STILLREEL_LISTEN", "127.0.0.1:8080"),
                    ("STILLREEL_METRICS_LISTEN", "127.0.0.1:8080"),
                ][..],
                "STILLREEL_METRICS_LISTEN",
            ),
            (
                // Every address's port 8080 includes the API's.
                &[
                    ("STILLREEL_LISTEN", "0.0.0.0:8080"),
                    ("STILLREEL_METRICS_LISTEN", "127.0.0.1:8080"),
                ][..],
                "STILLREEL_METRICS_LISTEN",
            ),
            (
                &[("STILLREEL_PUBLIC_URL", "http://")][..],
                "STILLREEL_PUBLIC_URL",
            ),
            (
                &[("STILLREEL_PUBLIC_URL", "https://:8080")][..],
                "STILLREEL_PUBLIC_URL",
            ),
            (
                &[("STILLREEL_PUBLIC_URL", "https://a.example?x=1")][..],
                "STILLREEL_PUBLIC_URL",
            ),
        ] {
            let err = config(vars).expect_err(var);
            assert_eq!(err.var, var, "{vars:?}");
        }
    }

    #[test]
    fn every_variable_is_read() {
        let c = config(&[
            ("STILLREEL_LISTEN", "0.0.0.0:9000"),
            ("STILLREEL_DATA_DIR", "/srv/sr"),
            ("STILLREEL_DATABASE_URL", "postgres://u:p@db/sr"),
            ("STILLREEL_PUBLIC_URL", "https://video.example.com/"),
            ("STILLREEL_FETCH_ALLOW", "localhost, 10.0.0.0/8,,"),
            ("STILLREEL_WORKERS", "0"),
            ("STILLREEL_DEFAULT_ENGINE", "v24"),
            ("STILLREEL_FFMPEG", "/opt/ffmpeg"),
            ("STILLREEL_WEB_DIR", "/srv/web"),
            ("STILLREEL_GET_VIDEO_CACHE", "off"),
            ("STILLREEL_RATE_LIMIT", "120/min"),
            ("STILLREEL_HTTP_HEADER_TIMEOUT_SECS", "5"),
            ("STILLREEL_HTTP_BODY_TIMEOUT_SECS", "20"),
            ("STILLREEL_HTTP_IDLE_TIMEOUT_SECS", "90"),
            ("STILLREEL_HTTP_MAX_CONNECTIONS", "64"),
            ("STILLREEL_HTTP_AUTH_FAILURES_PER_MIN", "5"),
            ("STILLREEL_HTTP_ACCOUNT_UPLOADS", "2"),
            ("STILLREEL_PROVIDER_URL", "https://provider.example/v1"),
            ("STILLREEL_PROVIDER_TOKEN", "secret"),
            ("STILLREEL_PROVIDER_TIMEOUT_SECS", "30"),
            ("RUST_LOG", "debug"),
            ("STILLREEL_LOG_FORMAT", "JSON"),
        ])
        .expect("valid");
        assert_eq!(c.listen.port(), 9000);
        assert_eq!(
            c.database,
            DatabaseConfig::Postgres("postgres://u:p@db/sr".to_owned())
        );
        assert_eq!(c.public_url, "https://video.example.com");
        assert_eq!(c.fetch_allow, vec!["localhost", "10.0.0.0/8"]);
        assert_eq!(c.workers, 0);
        assert_eq!(c.default_engine, Engine::V24);
        assert_eq!(c.ffmpeg, PathBuf::from("/opt/ffmpeg"));
        assert_eq!(c.web_dir, PathBuf::from("/srv/web"));
        assert_eq!(c.media_dir(), PathBuf::from("/srv/sr/media"));
        assert!(!c.get_video_cache);
        assert_eq!(c.rate_limit, RateLimit::parse("120/m").expect("valid"));
        assert_eq!(
            c.http,
            HttpLimits {
                header_timeout: Duration::from_secs(5),
                idle_timeout: Duration::from_secs(90),
                body_timeout: Duration::from_secs(20),
                max_connections: 64,
                auth_failures_per_minute: 5,
                account_uploads: 2,
            }
        );
        for role in [Role::Staging, Role::Lifestyle, Role::Fan] {
            let provider = c.providers.get(role).expect("a provider URL is set");
            assert_eq!(provider.protocol, Protocol::Stillreel);
            assert_eq!(provider.url, "https://provider.example/v1");
            assert_eq!(provider.token.as_deref(), Some("secret"));
            assert_eq!(provider.timeout, Duration::from_secs(30));
        }
        assert!(c.providers.get(Role::Depth).is_none());
        assert_eq!(c.log_filter, "debug");
        assert!(c.log_json);
    }

    #[test]
    fn bad_values_name_their_variable() {
        for (var, value) in [
            ("STILLREEL_LISTEN", "localhost"),
            ("STILLREEL_WORKERS", "-1"),
            ("STILLREEL_DEFAULT_ENGINE", "v26"),
            ("STILLREEL_DEFAULT_ENGINE", "generative"),
            ("STILLREEL_PUBLIC_URL", "ftp://x"),
            ("STILLREEL_DATABASE_URL", "mysql://x"),
            ("STILLREEL_GET_VIDEO_CACHE", "maybe"),
            ("STILLREEL_JOB_LEASE_SECS", "1"),
            ("STILLREEL_RATE_LIMIT", "120"),
            ("STILLREEL_HTTP_HEADER_TIMEOUT_SECS", "0"),
            ("STILLREEL_HTTP_BODY_TIMEOUT_SECS", "1.5"),
            ("STILLREEL_HTTP_MAX_CONNECTIONS", "0"),
            ("STILLREEL_HTTP_ACCOUNT_UPLOADS", "0"),
            ("STILLREEL_HTTP_ACCOUNT_UPLOADS", "many"),
            ("STILLREEL_PUBLIC_URL", "http://"),
            ("STILLREEL_PROVIDER_URL", "ftp://provider.example/"),
            ("STILLREEL_STAGING_PROVIDER", "dalle"),
            ("STILLREEL_DEPTH_PROVIDER", "openai"),
            ("STILLREEL_PROVIDER_CONCURRENCY", "0"),
            ("STILLREEL_DISCLOSURE_CAPTION", "maybe"),
            ("STILLREEL_LOG_FORMAT", "xml"),
            ("STILLREEL_FETCH_ALLOW", "localhost:8091"),
            ("STILLREEL_FETCH_ALLOW", "10.0.0.0/8, http://x"),
        ] {
            let err = config(&[(var, value)]).expect_err(var);
            assert_eq!(err.var, var);
        }
        let err = config(&[
            ("STILLREEL_PROVIDER_URL", "https://provider.example/"),
            ("STILLREEL_PROVIDER_TIMEOUT_SECS", "0"),
        ])
        .expect_err("timeout 0");
        assert_eq!(err.var, "STILLREEL_PROVIDER_TIMEOUT_SECS");
        let err = config(&[
            ("STILLREEL_FAN_PROVIDER", "cog"),
            ("STILLREEL_FAN_URL", "http://gpu:5000"),
            ("STILLREEL_FAN_INPUT", "[not an object]"),
        ])
        .expect_err("bad input template");
        // A role's setting without its provider names the provider variable.
        let lone = config(&[("STILLREEL_DEPTH_URL", "http://gpu:5000")]).expect_err("no provider");
        assert_eq!(lone.var, "STILLREEL_DEPTH_PROVIDER");
        assert_eq!(err.var, "STILLREEL_FAN_INPUT");
        assert!(!err.message.contains("gpu:5000"), "{err}");
    }

    #[test]
    fn roles_are_read_with_the_rest() {
        let c = config(&[
            ("STILLREEL_STAGING_PROVIDER", "replicate"),
            ("STILLREEL_STAGING_TOKEN", "r8_x"),
            ("STILLREEL_DEPTH_PROVIDER", "cog"),
            ("STILLREEL_DEPTH_URL", "http://gpu:5000"),
        ])
        .expect("valid");
        assert_eq!(
            c.providers.get(Role::Staging).map(|r| r.protocol),
            Some(Protocol::Replicate)
        );
        assert_eq!(
            c.providers.get(Role::Depth).map(|r| r.protocol),
            Some(Protocol::Cog)
        );
        assert!(
            !format!("{c:?}").contains("r8_x"),
            "the key is never printed"
        );
    }

    /// `.env.example` is what a newcomer copies: every value it states (an uncommented
    /// `VAR=value` line, presented as the default) must give exactly the configuration of an
    /// empty environment, and every variable the code reads must be in it.
    #[test]
    fn env_example_states_the_code_defaults_and_names_every_variable() {
        let text = include_str!("../../../.env.example");
        let defaults = format!("{:?}", config(&[]).expect("defaults"));
        let mut stated = 0;
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (var, value) = line
                .split_once('=')
                .unwrap_or_else(|| panic!(".env.example: {line:?} is not VAR=value"));
            let c = config(&[(var, value)])
                .unwrap_or_else(|e| panic!(".env.example: {line}: refused: {e}"));
            assert_eq!(
                format!("{c:?}"),
                defaults,
                ".env.example states {line}, which is not the code's default"
            );
            stated += 1;
        }
        assert!(stated >= 20, "only {stated} defaults stated");
        let asked = std::sync::Mutex::new(Vec::new());
        Config::from_lookup(|name| {
            asked.lock().expect("lock").push(name.to_owned());
            None
        })
        .expect("defaults");
        for name in asked.into_inner().expect("lock") {
            assert!(
                text.contains(&format!("{name}=")),
                ".env.example does not mention {name}"
            );
        }
    }

    fn limit(n: u32, period: Period) -> Option<RateLimit> {
        Some(RateLimit {
            requests: NonZeroU32::new(n).expect("n > 0"),
            period,
        })
    }

    #[test]
    fn rate_limit_forms() {
        for (text, expected) in [
            ("off", None),
            ("OFF", None),
            ("5/s", limit(5, Period::Second)),
            ("5/sec", limit(5, Period::Second)),
            ("5/second", limit(5, Period::Second)),
            ("120/m", limit(120, Period::Minute)),
            ("120/min", limit(120, Period::Minute)),
            ("120/minute", limit(120, Period::Minute)),
            (" 120 / Min ", limit(120, Period::Minute)),
            ("1/h", limit(1, Period::Hour)),
            ("1000/hour", limit(1000, Period::Hour)),
            ("1000000000/s", limit(1_000_000_000, Period::Second)),
            ("4294967295/h", limit(u32::MAX, Period::Hour)),
        ] {
            assert_eq!(RateLimit::parse(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn rate_limit_rejects_everything_else() {
        for text in [
            "on",
            "120",
            "/min",
            "120/",
            "0/min",
            "-1/min",
            "+5/s",
            "1.5/s",
            "1e3/s",
            "5/ms",
            "5/day",
            "5/hours",
            "5/min/s",
            "five/s",
            "5 per min",
            "4294967296/h",
            "2000000000/s",
        ] {
            let err = RateLimit::parse(text).expect_err(text);
            assert!(err.contains(text.trim()), "{text}: {err}");
        }
        // Through the environment, empty is unset (no limit) like every other variable.
        assert_eq!(
            config(&[("STILLREEL_RATE_LIMIT", "  ")])
                .expect("valid")
                .rate_limit,
            None
        );
        let err = config(&[("STILLREEL_RATE_LIMIT", "10/fortnight")]).expect_err("unit");
        assert_eq!(err.var, "STILLREEL_RATE_LIMIT");
        assert!(err.to_string().contains("e.g. 120/min"), "{err}");
    }

    const CUSTOM: &str = r##"{"id": "outro-plain", "slot": "outro", "name": "Plain", "description": "d",
        "style": {"background": "#000000", "background_opacity": 1.0, "accent": "#ffffff"},
        "fields": [{"key": "brokerage", "type": "text", "required": true, "max_length": 40,
            "layout": {"landscape": [0.1, 0.4, 0.8, 0.2], "portrait": [0.1, 0.4, 0.8, 0.1],
                       "font_size": 0.06, "color": "#ffffff", "align": "center"}}]}"##;

    #[test]
    fn templates_dir_adds_checked_templates_and_a_bad_file_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().to_str().expect("utf-8 path");
        assert!(config(&[]).expect("defaults").extra_templates.is_empty());

        std::fs::write(dir.path().join("plain.json"), CUSTOM).expect("write");
        std::fs::write(dir.path().join("notes.txt"), "not a template").expect("write");
        let c = config(&[("STILLREEL_TEMPLATES_DIR", path)]).expect("valid dir");
        let ids: Vec<&str> = c.extra_templates.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["outro-plain"]);

        // The same id twice (across files) and a bad field: errors name file and field.
        std::fs::write(dir.path().join("plain2.json"), CUSTOM).expect("write");
        let err = config(&[("STILLREEL_TEMPLATES_DIR", path)]).expect_err("duplicate id");
        assert_eq!(err.var, "STILLREEL_TEMPLATES_DIR");
        assert!(
            err.message.contains("plain2.json: id: ") && err.message.contains("already"),
            "{err}"
        );
        std::fs::write(
            dir.path().join("plain2.json"),
            CUSTOM
                .replace("outro-plain", "outro-other")
                .replace("\"center\"", "\"middle\""),
        )
        .expect("write");
        let err = config(&[("STILLREEL_TEMPLATES_DIR", path)]).expect_err("bad align");
        assert!(
            err.message
                .contains("plain2.json: fields[0].layout.align: "),
            "{err}"
        );

        let missing = dir.path().join("missing");
        let err = config(&[(
            "STILLREEL_TEMPLATES_DIR",
            missing.to_str().expect("utf-8 path"),
        )])
        .expect_err("missing dir");
        assert!(err.message.contains("missing"), "{err}");
    }
}
