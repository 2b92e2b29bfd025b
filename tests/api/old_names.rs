//! The second API's old name `deptrack` (now `dtrack`) still works for existing installs: a
//! `[deptrack]` table is read as `[dtrack]` with a warning (`check-config` prints it, `serve`
//! logs it once), `outpost deptrack …` is a hidden alias, and `<data_dir>/acme/deptrack/` is
//! renamed to `acme/dtrack/` at start.

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_outpost");

fn write_config(dir: &std::path::Path, extra: &str) -> std::path::PathBuf {
    let path = dir.join("outpost.toml");
    let data = dir.join("data");
    std::fs::write(
        &path,
        format!(
            "data_dir = {:?}\n[database]\nsynchronous = \"normal\"\n{extra}",
            data.display().to_string()
        ),
    )
    .unwrap();
    path
}

#[test]
fn check_config_reads_the_old_table_with_a_warning_and_refuses_both() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(
        dir.path(),
        "[deptrack]\nacl_enabled = true\n[deptrack.osv]\ninterval = 3600\n",
    );
    let out = Command::new(BIN)
        .args(["check-config", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: ")
            && stderr.contains("line 4: [deptrack] is the old name of [dtrack]"),
        "{stderr}"
    );
    assert!(
        stdout.contains("[dtrack]\n") && !stdout.contains("deptrack"),
        "{stdout}"
    );
    let parsed = outpost::config::parse(&stdout).unwrap();
    assert!(parsed.dtrack.acl_enabled);
    assert_eq!(parsed.dtrack.osv_interval, Duration::from_secs(3600));
    assert!(parsed.warnings.is_empty());

    let both = write_config(dir.path(), "[deptrack]\nenabled = true\n[dtrack]\n");
    let out = Command::new(BIN)
        .args(["check-config", "--config"])
        .arg(&both)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 4: [deptrack] and [dtrack] are both given"),
        "{err}"
    );
}

#[test]
fn the_old_subcommand_is_a_hidden_alias() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), "");
    let out = Command::new(BIN)
        .args(["deptrack", "create-team", "--config"])
        .arg(&cfg)
        .args(["--name", "Old", "--permission", "BOM_UPLOAD", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(printed["uuid"].is_string(), "{printed}");
    let help = Command::new(BIN).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("dtrack") && !help.contains("deptrack"),
        "{help}"
    );
}

#[test]
fn serve_logs_the_old_name_once_and_renames_the_old_acme_directory() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(
        dir.path(),
        "[chat]\nlisten = \"127.0.0.1:0\"\n[deptrack]\nacl_enabled = true\n",
    );
    let old = dir.path().join("data/acme/deptrack");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(old.join("account.json"), "{}").unwrap();
    let mut child = Command::new(BIN)
        .args(["serve", "--config"])
        .arg(&cfg)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Every log line up to the one naming the address, read on a thread so that a server that
    // never logs its address fails the test instead of hanging it.
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let listening = line.contains("chat=");
            seen.push(line);
            if listening {
                let _ = tx.send(seen);
                return;
            }
        }
    });
    let lines = rx.recv_timeout(Duration::from_secs(20));
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let lines = lines.expect("the server did not log its address");
    let warnings = lines
        .iter()
        .filter(|l| l.contains("[deptrack] is the old name of [dtrack]"))
        .count();
    assert_eq!(warnings, 1, "{lines:#?}");
    assert!(!old.exists());
    assert!(dir.path().join("data/acme/dtrack/account.json").exists());
}
