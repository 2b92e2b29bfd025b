//! Compiles the browser client into the executable: walks `src/web/client/` and writes the
//! table `web::assets` serves (relative path, `include_bytes!` of the file), sorted by path, so
//! adding a file to the client needs no Rust change. Hidden files (a name starting with `.`)
//! and editor backups (ending in `~`) are left out.

use std::fs;
use std::path::{Path, PathBuf};

const CLIENT_DIR: &str = "src/web/client";

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.is_empty() || name.starts_with('.') || name.ends_with('~') {
            continue;
        }
        if path.is_dir() {
            walk(root, &path, out);
            continue;
        }
        let rel = path
            .strip_prefix(root)
            .expect("inside the client directory")
            .components()
            .map(|c| {
                c.as_os_str()
                    .to_str()
                    .expect("UTF-8 file names")
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("/");
        println!("cargo:rerun-if-changed={}", path.display());
        out.push((rel, path));
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.join(CLIENT_DIR);
    println!("cargo:rerun-if-changed={CLIENT_DIR}");
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    files.sort();
    let mut code = String::from(
        "/// Every client file: (path relative to `src/web/client/`, contents), sorted by path.\n\
         pub static FILES: &[(&str, &[u8])] = &[\n",
    );
    for (rel, path) in &files {
        let abs = path.canonicalize().expect("client file exists");
        code.push_str(&format!(
            "    ({rel:?}, include_bytes!({:?})),\n",
            abs.to_str().expect("UTF-8 path")
        ));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("web_client.rs");
    fs::write(&out, code).expect("write the client table");
}
