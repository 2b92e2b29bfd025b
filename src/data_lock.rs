//! The data directory's lock: a running server holds an exclusive `flock` on
//! `<data_dir>/outpost.lock` for its whole life, so a second server on the same directory, or
//! `outpost restore`, is refused while it runs. The kernel releases the lock when the process
//! ends, however it ends, so a crash never leaves a stale lock behind.
//!
//! Pure filesystem helper; knows nothing of what the directory holds.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd as _;
use std::path::{Path, PathBuf};

/// The lock file's name inside the data directory.
pub const FILE_NAME: &str = "outpost.lock";

/// A held lock; released when dropped.
#[derive(Debug)]
pub struct DataLock {
    _file: File,
}

/// Why the lock could not be taken.
#[derive(Debug)]
pub enum LockError {
    /// Another process (or another server in this one) holds it.
    Held(PathBuf),
    Io(PathBuf, io::Error),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Held(p) => write!(
                f,
                "an Outpost server is running on this data directory (it holds {}); stop it first",
                p.display()
            ),
            LockError::Io(p, e) => write!(f, "cannot lock {}: {e}", p.display()),
        }
    }
}

impl DataLock {
    /// Takes the lock of `data_dir` (which must exist) without waiting.
    pub fn try_acquire(data_dir: &Path) -> Result<DataLock, LockError> {
        let path = data_dir.join(FILE_NAME);
        crate::private_files::private_file(&path).map_err(|e| LockError::Io(path.clone(), e))?;
        let file = File::options()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(|e| LockError::Io(path.clone(), e))?;
        // SAFETY: flock on a descriptor this function owns; no memory is passed.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let e = io::Error::last_os_error();
            return Err(if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                LockError::Held(path)
            } else {
                LockError::Io(path, e)
            });
        }
        Ok(DataLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let first = DataLock::try_acquire(dir.path()).expect("free");
        assert!(matches!(
            DataLock::try_acquire(dir.path()),
            Err(LockError::Held(_))
        ));
        drop(first);
        DataLock::try_acquire(dir.path()).expect("free again");
    }
}
