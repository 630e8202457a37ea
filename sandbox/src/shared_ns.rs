//! A user namespace and an empty network namespace made once per process and joined by every confined
//! command. Making a network namespace costs milliseconds (most of a command's start-up here); joining
//! one costs microseconds. Each command still gets PID and mount namespaces of its own.
//!
//! Sharing the network namespace shares nothing usable: it has no interface but a loopback that is down
//! (and a command has no capability to bring it up), and Landlock's scoping (ABI 6+) keeps each command
//! from reaching the abstract unix sockets and signals of another. Below ABI 6 there is no such scoping,
//! so every command makes its own namespaces as before ([`get`] answers `None`).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::OnceLock;

use crate::child::{wait_exit_code, IdMaps};

/// Open descriptors of the two namespaces; a namespace lives as long as a descriptor refers to it.
pub(crate) struct SharedNamespaces {
    pub user: OwnedFd,
    pub net: OwnedFd,
}

static SHARED: OnceLock<Option<SharedNamespaces>> = OnceLock::new();

/// The shared namespaces, made on first use; `None` when Landlock cannot scope (below ABI 6) or they
/// could not be made (each command then makes its own).
pub(crate) fn get(abi: u32) -> Option<&'static SharedNamespaces> {
    if abi < 6 {
        return None;
    }
    SHARED
        .get_or_init(|| match make() {
            Ok(shared) => Some(shared),
            Err(error) => {
                tracing::warn!(%error, "no shared sandbox namespaces; each command makes its own");
                None
            }
        })
        .as_ref()
}

/// A forked child opens the namespaces and maps its uid and gid into the user namespace; this process
/// opens them through the child's `/proc/<pid>/ns`, then lets the child go.
fn make() -> io::Result<SharedNamespaces> {
    let maps = IdMaps::current()?;
    let mut ready = [-1 as libc::c_int; 2];
    let mut release = [-1 as libc::c_int; 2];
    // SAFETY: pipe2 fills the arrays; the child makes only system calls on data prepared before the
    // fork, then `_exit`s.
    unsafe {
        check(libc::pipe2(ready.as_mut_ptr(), libc::O_CLOEXEC))?;
        let (ready_read, ready_write) = (OwnedFd::from_raw_fd(ready[0]), OwnedFd::from_raw_fd(ready[1]));
        check(libc::pipe2(release.as_mut_ptr(), libc::O_CLOEXEC))?;
        let (release_read, release_write) = (OwnedFd::from_raw_fd(release[0]), OwnedFd::from_raw_fd(release[1]));
        let pid = libc::fork();
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            let made = libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) == 0 && maps.write().is_ok();
            let byte = [u8::from(made)];
            libc::write(ready_write.as_raw_fd(), byte.as_ptr().cast(), 1);
            // Wait until the parent has opened the namespaces (or gave up) and closed its write end; this
            // process's copy of it goes first, or the read would never see the end.
            libc::close(release_write.as_raw_fd());
            let mut buf = [0u8; 1];
            libc::read(release_read.as_raw_fd(), buf.as_mut_ptr().cast(), 1);
            libc::_exit(0);
        }
        drop(ready_write);
        drop(release_read);
        let mut byte = [0u8; 1];
        let got = libc::read(ready_read.as_raw_fd(), byte.as_mut_ptr().cast(), 1);
        let opened = if got == 1 && byte[0] == 1 {
            open_ns(pid, c"user").and_then(|user| Ok(SharedNamespaces { user, net: open_ns(pid, c"net")? }))
        } else {
            Err(io::Error::other("the child could not open the namespaces"))
        };
        drop(release_write);
        wait_exit_code(pid);
        opened
    }
}

fn open_ns(pid: libc::pid_t, kind: &std::ffi::CStr) -> io::Result<OwnedFd> {
    let path = format!("/proc/{pid}/ns/{}", kind.to_string_lossy());
    let path = std::ffi::CString::new(path).map_err(io::Error::other)?;
    // SAFETY: open on a NUL-terminated path; the descriptor is owned from here on.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(OwnedFd::from_raw_fd(fd))
    }
}

fn check(result: libc::c_int) -> io::Result<()> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}
