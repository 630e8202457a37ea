//! Turns a `Policy` into a Landlock ruleset. Landlock only grants, and a grant covers everything beneath
//! its path, so a readable path that holds a hidden one is granted entry by entry along the way to it,
//! leaving the hidden one out; a writable path inside a hidden one (the workspace) is granted on its own.

use std::path::{Path, PathBuf};

use landlock::{
    Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreated,
    RulesetCreatedAttr, Scope, ABI,
};

use crate::{Policy, SandboxError, WRITABLE_DEVICES};

/// Deepest directory level split around a hidden path; deeper policies are refused, not half-applied.
const MAX_SPLIT_DEPTH: usize = 64;

/// One path and what may be done beneath it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Grant {
    pub path: PathBuf,
    pub write: bool,
}

/// The created (not yet enforced) ruleset: every access this ABI knows is handled, so anything not
/// granted is denied.
pub(crate) fn ruleset(policy: &Policy, abi: ABI) -> Result<RulesetCreated, SandboxError> {
    let read = AccessFs::from_read(abi);
    let write = AccessFs::from_all(abi);
    let mut ruleset = Ruleset::default().set_compatibility(CompatLevel::HardRequirement).handle_access(write)?;
    if !policy.network && abi >= ABI::V4 {
        ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
    }
    if abi >= ABI::V6 {
        // Signals and abstract unix sockets only within the sandbox, whatever the network setting.
        ruleset = ruleset.scope(Scope::from_all(abi))?;
    }
    let mut created = ruleset.create()?;
    for grant in grants(policy)? {
        let fd = match PathFd::new(&grant.path) {
            Ok(fd) => fd,
            // Gone since the listing (another program's temp dir beside a hidden path, say): there is
            // nothing left to grant, and granting less is always safe.
            Err(_)
                if std::fs::symlink_metadata(&grant.path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) =>
            {
                continue
            }
            Err(e) => return Err(SandboxError::Path { path: grant.path.clone(), source: std::io::Error::other(e) }),
        };
        let mut access = if grant.write { write } else { read };
        if !grant.path.is_dir() {
            access &= AccessFs::from_file(abi);
        }
        created = created.add_rule(PathBeneath::new(fd, access))?;
    }
    for device in WRITABLE_DEVICES.iter().map(Path::new).filter(|d| d.exists()) {
        let fd = PathFd::new(device)
            .map_err(|e| SandboxError::Path { path: device.into(), source: std::io::Error::other(e) })?;
        created = created.add_rule(PathBeneath::new(fd, AccessFs::from_file(abi)))?;
    }
    Ok(created)
}

/// The paths to grant: each readable and writable path, split around hidden paths it holds.
pub(crate) fn grants(policy: &Policy) -> Result<Vec<Grant>, SandboxError> {
    // A hidden path that does not exist has nothing to hide (yet); the data dir exists before any call.
    let hidden: Vec<PathBuf> = policy.hidden.iter().filter_map(|h| h.canonicalize().ok()).collect();
    let mut grants = Vec::new();
    let asked = policy.readable.iter().map(|p| (p, false)).chain(policy.writable.iter().map(|p| (p, true)));
    for (path, write) in asked {
        let path = path.canonicalize().map_err(|source| SandboxError::Path { path: path.clone(), source })?;
        if hidden.iter().any(|h| path.starts_with(h)) {
            // Asked for by name inside a hidden path: granted as asked.
            grants.push(Grant { path, write });
        } else {
            split(&path, write, &hidden, 0, &mut grants)?;
        }
    }
    Ok(grants)
}

/// Grants `path`, or, if a hidden path lies strictly beneath it, each of its entries but the hidden ones.
fn split(path: &Path, write: bool, hidden: &[PathBuf], depth: usize, out: &mut Vec<Grant>) -> Result<(), SandboxError> {
    if !hidden.iter().any(|h| h != path && h.starts_with(path)) {
        out.push(Grant { path: path.to_path_buf(), write });
        return Ok(());
    }
    if depth > MAX_SPLIT_DEPTH {
        return Err(SandboxError::Path {
            path: path.to_path_buf(),
            source: std::io::Error::other("too deep to split around the hidden paths"),
        });
    }
    let entries = std::fs::read_dir(path).map_err(|source| SandboxError::Path { path: path.to_path_buf(), source })?;
    for entry in entries {
        let entry = entry.map_err(|source| SandboxError::Path { path: path.to_path_buf(), source })?;
        let entry_path = entry.path();
        let is_symlink = entry.file_type().is_ok_and(|t| t.is_symlink());
        if is_symlink {
            // A rule follows the link; grant it only if its target neither is, nor holds, nor lies in a
            // hidden path (a link into Warden's data dir must not reopen it).
            let Ok(target) = entry_path.canonicalize() else { continue };
            let touches_hidden = hidden.iter().any(|h| target.starts_with(h) || h.starts_with(&target));
            if !touches_hidden {
                out.push(Grant { path: entry_path, write });
            }
        } else if hidden.contains(&entry_path) {
            continue;
        } else {
            split(&entry_path, write, hidden, depth + 1, out)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hidden_dir_is_left_out_and_its_siblings_and_a_writable_path_inside_it_are_granted() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let data = root.join("data");
        std::fs::create_dir_all(data.join("workspace")).unwrap();
        std::fs::write(data.join("warden.db"), "secret").unwrap();
        std::fs::create_dir(root.join("other")).unwrap();
        std::fs::write(root.join("file"), "").unwrap();
        std::os::unix::fs::symlink(&data, root.join("link-to-data")).unwrap();
        let policy = Policy {
            readable: vec![root.clone()],
            writable: vec![data.join("workspace")],
            hidden: vec![data.clone()],
            network: false,
        };
        let mut got = grants(&policy).unwrap();
        got.sort_by(|a, b| a.path.cmp(&b.path));
        let want = vec![
            Grant { path: data.join("workspace"), write: true },
            Grant { path: root.join("file"), write: false },
            Grant { path: root.join("other"), write: false },
        ];
        assert_eq!(got, want);
    }
}
