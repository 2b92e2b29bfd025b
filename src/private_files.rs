//! Files only the server's own user may read: the data directory, the database with its WAL
//! and shared-memory files, backups. They hold every chat API key, so they are created owner-only
//! (directory 0700, files 0600) and tightened at start when an older version left them wider.
//!
//! Pure filesystem helpers; knows nothing of what the files hold.

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::Path;

/// Owner-only permissions of a directory.
pub const DIR_MODE: u32 = 0o700;
/// Owner-only permissions of a file.
pub const FILE_MODE: u32 = 0o600;

/// Creates `dir` (and missing parents) owner-only, or tightens it if it exists.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    if !dir.exists() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(DIR_MODE)
            .create(dir)?;
    }
    tighten(dir, DIR_MODE)
}

/// Creates `file` empty and owner-only if it is missing, or tightens it if it exists.
pub fn private_file(file: &Path) -> io::Result<()> {
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(file)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => tighten(file, FILE_MODE),
        Err(e) => Err(e),
    }
}

/// Tightens `file` to owner-only if it exists.
pub fn tighten_if_present(file: &Path) -> io::Result<()> {
    match fs::metadata(file) {
        Ok(_) => tighten(file, FILE_MODE),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates a new, empty, owner-only file; fails if `file` exists.
pub fn new_private_file(file: &Path) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(FILE_MODE)
        .open(file)
}

fn tighten(path: &Path, mode: u32) -> io::Result<()> {
    let meta = fs::metadata(path)?;
    if meta.permissions().mode() & 0o777 & !mode != 0 {
        fs::set_permissions(path, fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn creates_and_tightens_owner_only() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b");
        private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        let f = dir.join("db");
        private_file(&f).unwrap();
        assert_eq!(mode(&f), 0o600);
        fs::set_permissions(&f, fs::Permissions::from_mode(0o644)).unwrap();
        private_file(&f).unwrap();
        assert_eq!(mode(&f), 0o600);
        assert!(new_private_file(&f).is_err());
        tighten_if_present(&dir.join("missing")).unwrap();
    }
}
