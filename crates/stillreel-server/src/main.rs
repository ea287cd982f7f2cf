//! `stillreel`: the service binary (docs/API-DESIGN.md#command-line).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use stillreel_server::config::{DatabaseConfig, StorageConfig};
use stillreel_server::{AppState, Config, Db, Services, app, repo, serve, storage, worker};
use tracing_subscriber::EnvFilter;

const DEFAULT_CLIP_LIMIT: u16 = stillreel_core::limits::DEFAULT_CLIP_LIMIT as u16;

/// Turns still photos into short videos: HTTP API, web form and render workers.
#[derive(Debug, Parser)]
#[command(name = "stillreel", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs the HTTP API, the web form at `/` and the render workers, configured by the
    /// STILLREEL_* environment variables (see .env.example).
    Serve,
    /// Runs render workers only (STILLREEL_WORKERS job slots), no API: for more render
    /// machines beside `serve`. Needs the shared PostgreSQL database and, across machines,
    /// shared storage (STILLREEL_STORAGE_URL=s3://...). Answers /healthz and /metrics on
    /// STILLREEL_WORKER_LISTEN when set.
    Worker,
    /// Manages accounts.
    Accounts {
        #[command(subcommand)]
        command: AccountsCommand,
    },
}

#[derive(Debug, Subcommand)]
enum AccountsCommand {
    /// Creates an account with a default project and an API key; prints
    /// {"account", "api_key", "default_project", "webhook_secret"} as one JSON object. Works
    /// while the server runs.
    Create {
        /// A name for the account (for operators; `GET /get_account` shows it to its clients).
        name: String,
        /// Most clips per video (the plan).
        #[arg(long, default_value_t = DEFAULT_CLIP_LIMIT, value_parser = clap::value_parser!(u16).range(1..=1000))]
        clip_limit: u16,
    },
    /// Adds an API key to an account (to rotate keys: add, switch clients, revoke the old one);
    /// prints {"account", "api_key"}.
    AddKey {
        /// The account's id (the "account" that `accounts create` printed).
        account: uuid::Uuid,
    },
    /// Revokes an API key. A running server stops accepting it within 30 s (its cache of
    /// verified keys). Prints {"revoked": true}; an unknown key is an error.
    RevokeKey {
        /// The key, or `-` to read it from the first line of standard input (keeps it out of
        /// the process list and the shell history).
        api_key: String,
    },
    /// Gives an account a new webhook signing secret; for 24 h deliveries carry signatures
    /// made with both the new and the previous one. Prints {"account", "webhook_secret",
    /// "previous_valid_until"}.
    RotateWebhookSecret {
        /// The account's id.
        account: uuid::Uuid,
    },
}

fn init_logging(config: &Config) {
    let filter =
        EnvFilter::try_new(&config.log_filter).unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    let json = config.log_json;
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(std::io::stderr);
    if json {
        builder.json().init()
    } else {
        builder.init()
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match Config::from_env() {
        Ok(config) => config,
        Err(err) => {
            eprintln!("stillreel: configuration: {err}");
            return ExitCode::from(2);
        }
    };
    // The programs a render runs are checked before anything is created, as the variables are.
    if matches!(cli.command, Command::Serve | Command::Worker)
        && let Err(err) = stillreel_server::config::check_tools(&config.ffmpeg)
    {
        eprintln!("stillreel: configuration: {err}");
        return ExitCode::from(2);
    }
    init_logging(&config);
    let result = match cli.command {
        Command::Serve => run_serve(config).await,
        Command::Worker => run_worker(config).await,
        Command::Accounts {
            command: AccountsCommand::Create { name, clip_limit },
        } => create_account(config, &name, usize::from(clip_limit)).await,
        Command::Accounts {
            command: AccountsCommand::AddKey { account },
        } => add_key(config, account).await,
        Command::Accounts {
            command: AccountsCommand::RotateWebhookSecret { account },
        } => rotate_webhook_secret(config, account).await,
        Command::Accounts {
            command: AccountsCommand::RevokeKey { api_key },
        } => revoke_key(config, &api_key).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("stillreel: {err}");
            ExitCode::FAILURE
        }
    }
}

#[expect(clippy::print_stdout, reason = "the CLI's output is its interface")]
async fn create_account(
    config: Config,
    name: &str,
    clip_limit: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let db = Db::connect_with(&config.database, config.database_pool_size).await?;
    let account = repo::accounts::create(&db, name, clip_limit).await?;
    db.close().await;
    println!("{}", serde_json::to_string(&account)?);
    Ok(())
}

#[expect(clippy::print_stdout, reason = "the CLI's output is its interface")]
async fn add_key(config: Config, account: uuid::Uuid) -> Result<(), Box<dyn std::error::Error>> {
    let db = Db::connect_with(&config.database, config.database_pool_size).await?;
    let added = repo::accounts::add_key(&db, account).await?;
    db.close().await;
    let key = added.ok_or_else(|| format!("no account {account}"))?;
    println!("{}", serde_json::to_string(&key)?);
    Ok(())
}

#[expect(clippy::print_stdout, reason = "the CLI's output is its interface")]
async fn rotate_webhook_secret(
    config: Config,
    account: uuid::Uuid,
) -> Result<(), Box<dyn std::error::Error>> {
    let db = Db::connect_with(&config.database, config.database_pool_size).await?;
    let rotated = repo::accounts::rotate_webhook_secret(&db, account).await?;
    db.close().await;
    let rotated = rotated.ok_or_else(|| format!("no account {account}"))?;
    println!("{}", serde_json::to_string(&rotated)?);
    Ok(())
}

#[expect(clippy::print_stdout, reason = "the CLI's output is its interface")]
async fn revoke_key(config: Config, api_key: &str) -> Result<(), Box<dyn std::error::Error>> {
    let key = if api_key == "-" {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        line.trim().to_owned()
    } else {
        api_key.trim().to_owned()
    };
    if key.is_empty() {
        return Err("no API key given".into());
    }
    let db = Db::connect_with(&config.database, config.database_pool_size).await?;
    let revoked = repo::accounts::revoke_key(&db, &key).await?;
    db.close().await;
    if !revoked {
        return Err("no such API key".into());
    }
    println!("{}", serde_json::json!({ "revoked": true }));
    Ok(())
}

#[expect(
    clippy::print_stdout,
    reason = "the first key is shown once, to the operator"
)]
async fn run_serve(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    tracing::info!("{}", config.workers());
    let db = Db::connect_with(&config.database, config.database_pool_size).await?;
    let workers = config.workers;
    let storage = storage::open(&config).await?;
    let state = AppState::with_storage(db, config, storage);
    // Everything that can refuse the configuration runs before the first account is made and
    // printed and before the port is bound.
    let renderer = worker::build_renderer(&state)?;
    let listener = serve::bind(&state).await?;
    if let Some(account) = serve::ensure_first_account(&state.db).await? {
        println!("stillreel: created a local account (this key is shown once; keep it):");
        println!("{}", serde_json::to_string(&account)?);
    }
    tracing::info!(
        addr = %listener.local_addr()?,
        public_url = %state.config.public_url,
        database = ?state.db.backend(),
        storage = %state.storage.describe(),
        workers,
        "stillreel listening"
    );
    // Validation and /get_engines offer exactly what the linked renderer can draw.
    state.set_available_vfx(renderer.available_vfx());
    state.set_available_engines(renderer.available_engines());
    let workers = worker::start(
        state.services.clone(),
        renderer,
        worker::WorkerSettings::from_config(&state.config),
    );
    // On SIGTERM the workers stop claiming and finish (or hand back) their renders while the
    // API still answers; then the HTTP server drains and the database closes.
    let shutdown = async move {
        serve::shutdown_signal().await;
        workers.shutdown().await;
    };
    serve::serve(listener, state, shutdown).await?;
    Ok(())
}

/// `stillreel worker`: render job slots on the shared database, no API.
async fn run_worker(config: Config) -> Result<(), Box<dyn std::error::Error>> {
    if let DatabaseConfig::Sqlite(path) = &config.database {
        return Err(format!(
            "stillreel worker needs a database shared with the API: STILLREEL_DATABASE_URL is \
             the SQLite file {} (set it to the API's postgres:// URL; on one machine with \
             SQLite, `stillreel serve` runs its own workers)",
            path.display()
        )
        .into());
    }
    if config.workers == 0 {
        return Err("STILLREEL_WORKERS=0: a worker process needs at least one job slot".into());
    }
    if let StorageConfig::Local(root) = &config.storage {
        // Fine when the API shares this folder (one machine, or a shared mount); on another
        // machine its clients could not download what this process renders.
        tracing::warn!(
            dir = %root.display(),
            "worker storage is a local folder: the API must see the same folder, or set STILLREEL_STORAGE_URL=s3://..."
        );
    }
    tracing::info!("{}", config.workers());
    let db = Db::connect_with(&config.database, config.database_pool_size).await?;
    let storage = storage::open(&config).await?;
    // The shared services only: a worker has no API, so no auth cache, limiter or writer.
    let state = Services::new(db, config, storage);
    let renderer = worker::build_renderer(&state)?;
    let health = match state.config.worker_listen {
        None => None,
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("STILLREEL_WORKER_LISTEN: cannot listen on {addr}: {e}"))?;
            let app = app::worker_health_router(state.clone());
            Some(tokio::spawn(async move {
                if let Err(err) = axum::serve(listener, app).await {
                    tracing::warn!(error = %err, "worker health endpoint stopped");
                }
            }))
        }
    };
    tracing::info!(
        database = ?state.db.backend(),
        storage = %state.storage.describe(),
        workers = state.config.workers,
        listen = ?state.config.worker_listen,
        "stillreel worker started"
    );
    let workers = worker::start(
        state.clone(),
        renderer,
        worker::WorkerSettings::from_config(&state.config),
    );
    serve::shutdown_signal().await;
    // Running renders finish (or are handed back) before the database closes.
    workers.shutdown().await;
    if let Some(health) = health {
        health.abort();
    }
    state.db.close().await;
    Ok(())
}
