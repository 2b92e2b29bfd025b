//! `outpost dtrack create-team`: a team with permissions and a key, usable at once.

use std::process::Command;

use hyper::Method;
use serde_json::{Value, json};

use crate::support::dtrack::{Dt, text};

const BIN: &str = env!("CARGO_BIN_EXE_outpost");

#[tokio::test]
async fn create_team_prints_a_working_key() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cfg = dir.path().join("outpost.toml");
    std::fs::write(
        &cfg,
        format!(
            "data_dir = {:?}\n[database]\nsynchronous = \"normal\"\n",
            data.display().to_string()
        ),
    )
    .unwrap();
    let bad = Command::new(BIN)
        .args(["dtrack", "create-team", "--config"])
        .arg(&cfg)
        .args([
            "--name",
            "CI",
            "--permission",
            "BOM_UPLOAD",
            "--permission",
            "NOPE",
        ])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown permission \"NOPE\""));
    let out = Command::new(BIN)
        .args(["dtrack", "create-team", "--config"])
        .arg(&cfg)
        .args([
            "--name",
            "CI",
            "--permission",
            "VIEW_BADGES",
            "--permission",
            "BOM_UPLOAD",
            "--api-key",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let uuid = printed["uuid"].as_str().unwrap().to_string();
    let key = printed["api_key"].as_str().unwrap().to_string();
    assert_eq!(uuid.len(), 36);
    assert!(key.starts_with("odt_") && key.len() == 45);
    let dt = Dt::start_with(move |c| c.data_dir = data).await;
    let r = dt
        .req(Method::GET, "/api/v1/team/self", &[("X-Api-Key", &key)], "")
        .await;
    assert_eq!(r.status, 200, "{}", text(&r));
    assert_eq!(r.body["uuid"], uuid.as_str());
    assert_eq!(
        r.body["permissions"],
        json!([
            {"name": "BOM_UPLOAD", "description": "Allows the ability to upload CycloneDX Software Bill of Materials (SBOM)"},
            {"name": "VIEW_BADGES", "description": "Provides the ability to view badges"}
        ])
    );
    // The refused command created nothing; the first start still made the default personas.
    let form = [("content-type", "application/x-www-form-urlencoded")];
    let r = dt
        .req(
            Method::POST,
            "/api/v1/user/login",
            &form,
            "username=admin&password=admin",
        )
        .await;
    assert_eq!(text(&r), "FORCE_PASSWORD_CHANGE");
    let teams = outpost::domain::dtrack::identity::teams(&dt.server.state)
        .await
        .unwrap();
    let names: Vec<&str> = teams.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Administrators",
            "Automation",
            "Badge Viewers",
            "CI",
            "Portfolio Managers"
        ]
    );
}

#[test]
fn import_osv_reports_what_it_stored_and_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let cfg = dir.path().join("outpost.toml");
    std::fs::write(
        &cfg,
        format!(
            "data_dir = {:?}\n[database]\nsynchronous = \"normal\"\n",
            data.display().to_string()
        ),
    )
    .unwrap();
    let records = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/osv");
    let run = |from: &std::path::Path| {
        Command::new(BIN)
            .args(["dtrack", "import-osv", "--json", "--config"])
            .arg(&cfg)
            .arg("--from")
            .arg(from)
            .output()
            .unwrap()
    };
    let out = run(&records.join("PyPI"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["files"], 4);
    assert_eq!(report["stored"], 2);
    assert_eq!(report["refused"], 2);
    // The two refused records (PYSEC-2099-12's unsorted events are valid and kept).
    assert_eq!(report["problem_count"], 2, "{report}");
    // Again: nothing changed.
    let out = run(&records.join("PyPI"));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (report["stored"].clone(), report["unchanged"].clone()),
        (json!(0), json!(2))
    );
    let missing = run(&dir.path().join("nowhere"));
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("does not exist"));
    let out = Command::new(BIN)
        .args(["dtrack", "unknown-matches", "--config"])
        .arg(&cfg)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
}
