//! The process's open-file limit: read it, and raise the soft limit to the hard one at start,
//! since every parked long-poll holds a descriptor.
//!
//! Touches only the process's resource limits.

/// The current soft limit on open files, if it can be read.
pub fn open_files_limit() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we own and reads nothing else.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) };
    (rc == 0).then_some(lim.rlim_cur)
}

/// Raises the soft open-files limit to the hard limit; returns the new soft limit.
pub fn raise_open_files_limit() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: as above; setrlimit only reads the struct we pass.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return None;
        }
        if lim.rlim_cur < lim.rlim_max {
            let wanted = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &wanted) == 0 {
                lim = wanted;
            }
        }
    }
    Some(lim.rlim_cur)
}
