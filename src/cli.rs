//! The `outpost` command line: `serve`, `check-config`, `create-user`, `dtrack create-team`,
//! `dtrack import-osv`, `dtrack import-nvd`, `dtrack import-epss`, `dtrack unknown-matches`,
//! `dtrack not-evaluated`, `backup`, `restore`, `push register` (in `cli::push`).
//!
//! Each subcommand loads the config (the file given with `--config`, else the embedded
//! defaults), does its one job and returns an exit code. Errors are printed once, here. The
//! commands that touch the data open a `domain::Core` alone (database, config, caches): no
//! listener, event queue, background task or browser file.

use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::app;
use crate::config::{self, Config, LogFormat};
use crate::domain::Core;
use crate::domain::users::{self, NewUser};
use crate::error::Error;
use crate::model::Role;

mod push;
mod signals;

#[derive(Parser, Debug)]
#[command(
    name = "outpost",
    version,
    about = "A small self-hosted Zulip-compatible chat server"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the server (embedded defaults without --config).
    Serve {
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Validate a config file and print the effective config with secrets redacted.
    CheckConfig {
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Create a chat user directly in the database and print its id and API key.
    CreateUser {
        #[arg(long)]
        config: Option<PathBuf>,
        #[arg(long)]
        email: String,
        #[arg(long)]
        full_name: String,
        /// owner, administrator, moderator, member or guest.
        #[arg(long, default_value = "member")]
        role: String,
        /// Read a password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
        #[arg(long)]
        can_create_users: bool,
        #[arg(long)]
        can_change_user_emails: bool,
        /// Create a generic bot (bot type 1) owned by the member with this email.
        #[arg(long, value_name = "EMAIL")]
        bot_owner: Option<String>,
        /// Print `{"user_id":..,"email":"..","api_key":".."}`.
        #[arg(long)]
        json: bool,
    },
    /// Mobile push notifications through Zulip's push notification service.
    Push {
        #[command(subcommand)]
        command: push::PushCommand,
    },
    /// Dependency-Track API administration.
    // `deptrack`: the old name, kept as a hidden alias for existing scripts.
    #[command(alias = "deptrack")]
    Dtrack {
        #[command(subcommand)]
        command: DtrackCommand,
    },
    /// Write a consistent copy of the database to a new file while the server runs, and the
    /// uploaded files its records name to the directory FILE.uploads next to it.
    Backup {
        #[arg(long)]
        config: Option<PathBuf>,
        #[arg(long)]
        to: PathBuf,
    },
    /// Put a backup (FILE and FILE.uploads) in place of the data directory's database and
    /// uploads; refused while a server runs on it. The replaced database is kept as
    /// outpost.sqlite3.pre-restore.
    Restore {
        #[arg(long)]
        config: Option<PathBuf>,
        #[arg(long = "from", value_name = "FILE")]
        from: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
enum DtrackCommand {
    /// Create a Dependency-Track team with permissions (and an API key) and print its UUID.
    CreateTeam {
        #[arg(long)]
        config: Option<PathBuf>,
        #[arg(long)]
        name: String,
        /// A permission such as BOM_UPLOAD (repeatable).
        #[arg(long = "permission", required = true)]
        permissions: Vec<String>,
        /// Also create an API key for the team (printed once).
        #[arg(long)]
        api_key: bool,
        /// Print `{"uuid":"..","api_key":".."}`.
        #[arg(long)]
        json: bool,
    },
    /// Import OSV vulnerability data (an ecosystem's all.zip, a JSON record, or a directory of
    /// them) and re-check the components of the packages it names.
    ImportOsv {
        #[arg(long)]
        config: Option<PathBuf>,
        /// A zip, a .json file, or a directory of .zip and .json files.
        #[arg(long = "from")]
        from: PathBuf,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Import NVD CVE JSON 2.0 files (`nvdcve-2.0-*.json.gz`, API pages) and re-check the
    /// components whose CPE they name; only a newer `lastModified` replaces a stored record.
    ImportNvd {
        #[arg(long)]
        config: Option<PathBuf>,
        /// A .json or .json.gz file, or a directory of them.
        #[arg(long = "from")]
        from: PathBuf,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Import EPSS scores from the CSV FIRST publishes (`epss_scores-YYYY-MM-DD.csv.gz`, gzip
    /// or plain); findings then show them. Importing the same file again changes nothing.
    ImportEpss {
        #[arg(long)]
        config: Option<PathBuf>,
        /// The CSV file, gzip-compressed or not.
        #[arg(long = "from")]
        from: PathBuf,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the matches the analyzer could not decide because a version does not parse
    /// (they are neither findings nor clean).
    UnknownMatches {
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// List the components the analyzer could not evaluate (neither findings nor clean), with
    /// the reason, as the API's not-evaluated listing gives them.
    NotEvaluated {
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

/// Entry point of the executable.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("outpost: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn load(path: Option<&PathBuf>) -> Result<Config, String> {
    let mut cfg = config::load(path.map(PathBuf::as_path))
        .map_err(|e| format!("invalid configuration:\n{e}"))?;
    // The one read of the process environment's proxy variables.
    cfg.proxy = config::ProxyEnv::from_lookup(|name| std::env::var(name).ok());
    Ok(cfg)
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

fn describe(e: &Error) -> String {
    match &e.detail {
        Some(d) => format!("{}: {d}", e.msg),
        None => e.msg.to_string(),
    }
}

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Serve { config } => {
            let cfg = load(config.as_ref())?;
            init_logging(&cfg);
            for w in &cfg.warnings {
                tracing::warn!("{w}");
            }
            runtime()?.block_on(serve(cfg))
        }
        Command::CheckConfig { config } => {
            let cfg = load(config.as_ref())?;
            for w in &cfg.warnings {
                eprintln!("warning: {w}");
            }
            print!("{}", cfg.to_redacted_toml());
            Ok(())
        }
        Command::CreateUser {
            config,
            email,
            full_name,
            role,
            password_stdin,
            can_create_users,
            can_change_user_emails,
            bot_owner,
            json,
        } => {
            let cfg = load(config.as_ref())?;
            let role = Role::from_name(&role).ok_or_else(|| {
                format!(
                    "unknown role {role:?}; use owner, administrator, moderator, member or guest"
                )
            })?;
            let password = if password_stdin {
                let mut line = String::new();
                std::io::stdin()
                    .lock()
                    .read_line(&mut line)
                    .map_err(|e| format!("cannot read the password: {e}"))?;
                Some(line.trim_end_matches(['\r', '\n']).to_string())
            } else {
                None
            };
            let new = NewUser {
                email: email.clone(),
                full_name,
                role,
                password,
                can_create_users,
                can_change_user_emails,
            };
            let (id, key) = runtime()?.block_on(async {
                let core = Core::open(cfg).map_err(|e| describe(&e))?;
                match bot_owner {
                    Some(owner) => users::create_bot(&core, new, owner).await,
                    None => users::create(&core, new).await,
                }
                .map_err(|e| describe(&e))
            })?;
            let mut out = std::io::stdout().lock();
            let written = if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::json!({"user_id": id.0, "email": email.trim(), "api_key": key})
                )
            } else {
                writeln!(out, "user_id: {id}\napi_key: {key}")
            };
            written.map_err(|e| format!("cannot write the result: {e}"))
        }
        Command::Dtrack {
            command:
                DtrackCommand::CreateTeam {
                    config,
                    name,
                    permissions,
                    api_key,
                    json,
                },
        } => {
            use crate::domain::dtrack::{identity, permissions::Permission};
            let cfg = load(config.as_ref())?;
            let mut perms = crate::model::dtrack::permissions::PermSet::default();
            for p in &permissions {
                let perm = Permission::from_name(p).ok_or_else(|| {
                    let known: Vec<&str> = Permission::ALL.iter().map(|p| p.name()).collect();
                    format!("unknown permission {p:?}; use one of {}", known.join(", "))
                })?;
                perms.insert(perm);
            }
            let name = name.trim().to_string();
            if name.is_empty() || name.chars().count() > 255 || name.chars().any(char::is_control) {
                return Err("the team name must have 1 to 255 printable characters".into());
            }
            let team = runtime()?.block_on(async {
                let core = Core::open(cfg).map_err(|e| describe(&e))?;
                identity::create_team(&core, &name, perms, api_key)
                    .await
                    .map_err(|e| describe(&e))
            })?;
            let key = team.api_keys.iter().find_map(|k| k.key.clone());
            let mut out = std::io::stdout().lock();
            let written = if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::json!({"uuid": team.uuid, "api_key": key})
                )
            } else {
                match &key {
                    Some(k) => writeln!(out, "uuid: {}\napi_key: {k}", team.uuid),
                    None => writeln!(out, "uuid: {}", team.uuid),
                }
            };
            written.map_err(|e| format!("cannot write the result: {e}"))
        }
        Command::Restore { config, from } => restore(config.as_ref(), &from),
        Command::Push { command } => push::run(command),
        Command::Dtrack {
            command: DtrackCommand::ImportOsv { config, from, json },
        } => import_data(config.as_ref(), &from, json, false),
        Command::Dtrack {
            command: DtrackCommand::ImportNvd { config, from, json },
        } => import_data(config.as_ref(), &from, json, true),
        Command::Dtrack {
            command: DtrackCommand::ImportEpss { config, from, json },
        } => {
            let cfg = load(config.as_ref())?;
            init_logging(&cfg);
            let r = runtime()?.block_on(async {
                let core = Core::open(cfg).map_err(|e| describe(&e))?;
                crate::domain::dtrack::epss::import_file(&core, &from)
                    .await
                    .map_err(|e| describe(&e))
            })?;
            let mut out = std::io::stdout().lock();
            let written = if json {
                writeln!(
                    out,
                    "{}",
                    serde_json::json!({
                        "model_version": r.model_version,
                        "score_date": r.score_date,
                        "unchanged": r.unchanged,
                        "rows": r.rows,
                        "changed": r.changed,
                        "dropped": r.dropped,
                        "problem_count": r.problem_count,
                        "problems": r.problems,
                    })
                )
            } else if r.unchanged {
                writeln!(
                    out,
                    "model {} scores of {} were already imported: nothing changed",
                    r.model_version, r.score_date
                )
            } else {
                let mut text = format!(
                    "model: {}\nscore date: {}\nrows: {}\nnew or changed: {}\ndropped: {}\n\
                     problems: {}\n",
                    r.model_version, r.score_date, r.rows, r.changed, r.dropped, r.problem_count
                );
                for p in &r.problems {
                    text.push_str(&format!("  {p}\n"));
                }
                write!(out, "{text}")
            };
            written.map_err(|e| format!("cannot write the result: {e}"))
        }
        Command::Dtrack {
            command: DtrackCommand::UnknownMatches { config },
        } => {
            let cfg = load(config.as_ref())?;
            let rows = runtime()?.block_on(async {
                let core = Core::open(cfg).map_err(|e| describe(&e))?;
                crate::domain::dtrack::osv::matching::unknown_matches(&core)
                    .await
                    .map_err(|e| describe(&e))
            })?;
            let mut text = String::new();
            for (project, pv, comp, cv, purl, vuln, reason) in rows {
                text.push_str(&format!(
                    "{project} {}\t{comp} {}\t{}\t{vuln}\t{reason}\n",
                    pv.unwrap_or_default(),
                    cv.unwrap_or_default(),
                    purl.unwrap_or_default()
                ));
            }
            std::io::stdout()
                .lock()
                .write_all(text.as_bytes())
                .map_err(|e| format!("cannot write the result: {e}"))
        }
        Command::Dtrack {
            command: DtrackCommand::NotEvaluated { config },
        } => {
            let cfg = load(config.as_ref())?;
            let rows = runtime()?.block_on(async {
                let core = Core::open(cfg).map_err(|e| describe(&e))?;
                crate::domain::dtrack::evaluation::portfolio_not_evaluated(&core)
                    .await
                    .map_err(|e| describe(&e))
            })?;
            let mut text = String::new();
            for (c, reason) in rows {
                text.push_str(&format!(
                    "{} {}\t{} {}\t{}\t{}\n",
                    c.project_name,
                    c.project_version.unwrap_or_default(),
                    c.name,
                    c.subject.version.unwrap_or_default(),
                    c.subject.purl.or(c.cpe).unwrap_or_default(),
                    reason.name()
                ));
            }
            std::io::stdout()
                .lock()
                .write_all(text.as_bytes())
                .map_err(|e| format!("cannot write the result: {e}"))
        }
        Command::Backup { config, to } => {
            let cfg = load(config.as_ref())?;
            let path = crate::domain::core::database_path(&cfg);
            if !path.exists() {
                return Err(format!("no database at {}", path.display()));
            }
            let data_dir = cfg.data_dir.clone();
            let uploads_dir = crate::domain::uploads::backup_dir_for(&to);
            let emoji_dir = crate::domain::realm_emoji::backup_dir_for(&to);
            for dir in [&uploads_dir, &emoji_dir] {
                if dir.exists() {
                    return Err(format!(
                        "{} already exists; choose a new file",
                        dir.display()
                    ));
                }
            }
            runtime()?.block_on(async {
                let core = Core::open(cfg).map_err(|e| describe(&e))?;
                core.db
                    .backup_to(to.clone())
                    .await
                    .map_err(|e| describe(&e))
            })?;
            let files =
                crate::domain::uploads::backup_files(&data_dir, &to).map_err(|e| describe(&e))?;
            let pictures = crate::domain::realm_emoji::backup_pictures(&data_dir, &to)
                .map_err(|e| describe(&e))?;
            println!(
                "backup written to {}, {} ({files} uploaded files) and {} ({pictures} emoji \
                 pictures)",
                to.display(),
                uploads_dir.display(),
                emoji_dir.display()
            );
            Ok(())
        }
    }
}

/// `dtrack import-osv` and (`nvd`) `dtrack import-nvd`: imports, then prints each count and
/// the problems, as text or (with `--json`) one JSON object.
fn import_data(config: Option<&PathBuf>, from: &Path, json: bool, nvd: bool) -> Result<(), String> {
    use crate::domain::dtrack::{nvd, osv};
    const CHANGED: &str = "projects with changed findings";
    let (fail, cfg) = (|e: Error| describe(&e), load(config)?);
    init_logging(&cfg);
    let (counts, problems, problem_count) = runtime()?.block_on(async {
        let core = Core::open(cfg).map_err(fail)?;
        Ok::<_, String>(if nvd {
            let r = nvd::import_path(&core, from).await.map_err(fail)?;
            let counts = vec![
                ("files", "files", r.files),
                ("records", "records", r.records),
                ("imported", "imported", r.imported),
                ("unchanged", "unchanged", r.unchanged),
                ("older", "skipped (a newer copy is stored)", r.older),
                ("refused", "refused", r.refused),
                ("projects_changed", CHANGED, r.projects_changed),
            ];
            (counts, r.problems, r.problem_count)
        } else {
            let r = osv::import::import_path(&core, from).await.map_err(fail)?;
            let counts = vec![
                ("files", "files", r.files),
                ("records", "records", r.records),
                ("stored", "stored", r.stored),
                ("unchanged", "unchanged", r.unchanged),
                ("withdrawn", "withdrawn", r.withdrawn),
                ("refused", "refused", r.refused),
                ("projects_changed", CHANGED, r.projects_changed),
            ];
            (counts, r.problems, r.problem_count)
        })
    })?;
    let mut out = std::io::stdout().lock();
    let written = if json {
        let mut m = serde_json::Map::new();
        for (key, _, n) in &counts {
            m.insert((*key).into(), (*n).into());
        }
        m.insert("problem_count".into(), problem_count.into());
        m.insert("problems".into(), problems.into());
        writeln!(out, "{}", serde_json::Value::Object(m))
    } else {
        let mut text = String::new();
        for (_, label, n) in &counts {
            text.push_str(&format!("{label}: {n}\n"));
        }
        text.push_str(&format!("problems: {problem_count}\n"));
        for p in &problems {
            text.push_str(&format!("  {p}\n"));
        }
        if let Some(more) = problem_count.checked_sub(problems.len()).filter(|m| *m > 0) {
            text.push_str(&format!("  … and {more} more\n"));
        }
        write!(out, "{text}")
    };
    written.map_err(|e| format!("cannot write the result: {e}"))
}

fn restore(config: Option<&PathBuf>, from: &std::path::Path) -> Result<(), String> {
    let cfg = load(config)?;
    let db_path = crate::domain::core::database_path(&cfg);
    let done = crate::restore::restore(&cfg.data_dir, &db_path, from).map_err(|e| describe(&e))?;
    println!(
        "restored {} into {} (schema version {}; the next start upgrades it if older)",
        from.display(),
        db_path.display(),
        done.schema_version
    );
    match done.files {
        Some(n) => println!("restored {n} uploaded files"),
        None => println!(
            "no {} next to the backup: uploaded files left as they were",
            crate::domain::uploads::backup_dir_for(from).display()
        ),
    }
    match done.pictures {
        Some(n) => println!("restored {n} custom emoji pictures"),
        None => println!(
            "no {} next to the backup: custom emoji pictures left as they were",
            crate::domain::realm_emoji::backup_dir_for(from).display()
        ),
    }
    if let Some(p) = done.previous {
        println!("the replaced database is kept as {}", p.display());
    }
    Ok(())
}

fn init_logging(cfg: &Config) {
    let filter = tracing_subscriber::EnvFilter::try_new(&cfg.log.level)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    let _ = match cfg.log.format {
        LogFormat::Json => builder.json().try_init(),
        LogFormat::Text => builder.try_init(),
    };
}

async fn serve(cfg: Config) -> Result<(), String> {
    let data_dir = cfg.data_dir.clone();
    crate::http::server::install_panic_hook();
    // Every parked long-poll holds a descriptor: take all the process may have.
    if let Some(n) = crate::http::limits::raise_open_files_limit() {
        tracing::debug!(open_files_limit = n, "open-files limit");
    }
    let server = app::start(cfg, signals::shutdown_signal())
        .await
        .map_err(|e| describe(&e))?;
    tracing::info!(
        chat = %server.chat_addr,
        dtrack = ?server.dtrack_addr,
        metrics = ?server.metrics_addr,
        data = %data_dir.display(),
        "outpost is listening"
    );
    signals::reload_tls_on_hangup(server.tls.clone(), server.state.stopping.subscribe());
    server.wait().await;
    tracing::info!("outpost stopped");
    Ok(())
}
