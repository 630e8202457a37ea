//! What this kernel offers the sandbox: the Landlock ABI and whether an unprivileged process may open
//! user, PID and network namespaces. Probed once (a fact of the running kernel), by asking Landlock for
//! its version and by trying the namespaces in a throwaway child.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// Whether commands can be confined here, and what is missing if not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxStatus {
    /// Everything the policy promises is enforced: Landlock and the namespaces are both there.
    pub available: bool,
    /// The kernel's Landlock ABI version; `None` without Landlock.
    pub landlock_abi: Option<u32>,
    /// User, PID, mount and network namespaces can be opened by this process, and a PID namespace's
    /// own `/proc` mounted.
    pub namespaces: bool,
    /// A sentence for the UI: what is enforced, or plainly what is missing.
    pub detail: String,
}

static STATUS: OnceLock<SandboxStatus> = OnceLock::new();

/// The sandbox's status on this kernel (probed on the first call).
pub fn status() -> &'static SandboxStatus {
    STATUS.get_or_init(probe)
}

fn probe() -> SandboxStatus {
    let landlock_abi = landlock_abi();
    let namespaces = namespaces_work();
    let available = landlock_abi.is_some() && namespaces;
    let detail = match (landlock_abi, namespaces) {
        (Some(abi), true) => {
            let mut text = format!(
                "Commands run confined: Landlock ABI {abi} limits files (write only in the workspace, nothing of \
                 Warden's data readable), user, PID, mount and network namespaces cut the network, hide \
                 other processes and end every process with the call."
            );
            if abi < 4 {
                text.push_str(
                    " This kernel has no Landlock TCP rules (ABI 4); the network namespace alone closes the network.",
                );
            }
            if abi < 6 {
                text.push_str(
                    " No Landlock signal scoping (ABI 6); the PID namespace keeps other processes out of reach.",
                );
            }
            text
        }
        (None, true) => "No sandbox: this kernel does not offer Landlock (Linux 5.13+ with `landlock` in the \
                         boot's `lsm=` list), so commands cannot be kept from writing outside the workspace."
            .into(),
        (Some(_), false) => "No sandbox: this process cannot open user namespaces or mount a /proc in them \
                             (disabled by `kernel.unprivileged_userns_clone`, `user.max_user_namespaces`, or a \
                             container's seccomp policy or masked /proc), so commands cannot be cut from the \
                             network or ended with their call."
            .into(),
        (None, false) => "No sandbox: this kernel offers neither Landlock nor user namespaces to this process.".into(),
    };
    SandboxStatus { available, landlock_abi, namespaces, detail }
}

/// `landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)` answers the ABI version.
fn landlock_abi() -> Option<u32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a NULL attribute and the VERSION flag the call only returns a number.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    u32::try_from(abi).ok().filter(|&abi| abi > 0)
}

/// Tries, in a forked child, exactly what `child::Prepared::enter` does with the namespaces and /proc.
fn namespaces_work() -> bool {
    let Ok(maps) = crate::child::IdMaps::current() else { return false };
    // SAFETY: the child only makes system calls on data prepared before the fork, then `_exit`s.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return false;
        }
        if pid == 0 {
            let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS | libc::CLONE_NEWNET;
            if libc::unshare(flags) != 0 || maps.write().is_err() {
                libc::_exit(1);
            }
            let grandchild = libc::fork();
            if grandchild < 0 {
                libc::_exit(1);
            }
            if grandchild == 0 {
                // The first process of the new PID namespace is its PID 1, and may mount its own /proc.
                let ok = libc::getpid() == 1 && crate::child::mount_own_proc().is_ok();
                libc::_exit(if ok { 0 } else { 1 });
            }
            libc::_exit(crate::child::wait_exit_code(grandchild));
        }
        crate::child::wait_exit_code(pid) == 0
    }
}
