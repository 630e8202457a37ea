//! Turns a `Policy` into a Landlock ruleset. Landlock only grants, and a grant covers everything beneath
//! its path, so a readable path that holds a hidden one is granted entry by entry along the way to it,
//! leaving the hidden one out; a writable path inside a hidden one (the workspace) is granted on its own.

use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// Found by splitting around the hidden paths (not asked for by name inside one): what it opens
    /// must not be, hold or lie in a hidden path.
    pub split: bool,
}

/// The created (not yet enforced) ruleset: every access this ABI knows is handled, so anything not
/// granted is denied. Starts from `ahead` (built for an earlier command's policy) where it fits
/// `policy`; then only the scratch directory is added.
pub(crate) fn ruleset_with(policy: &Policy, abi: ABI, ahead: Option<Ahead>) -> Result<RulesetCreated, SandboxError> {
    let hidden = hidden_paths(policy);
    let base = match ahead.filter(|ahead| ahead.fits(policy, &hidden, abi)) {
        Some(ahead) => ahead.created,
        None => Ahead::build(policy, &hidden, abi)?.created,
    };
    let Some(scratch) = &policy.scratch else { return Ok(base) };
    let grants = writable_grants(std::slice::from_ref(scratch), &hidden)?;
    Ok(add_writable(base, grants, &hidden, abi)?.0)
}

/// Each path granted and the file it opened then (`None`: it could not be told).
type Granted = Vec<(PathBuf, Option<FileId>)>;

/// Grants read and write access to each of `grants` that is there to open; with each path granted and
/// the file it opened (`None`: it could not be told).
fn add_writable(
    mut created: RulesetCreated,
    grants: Vec<Grant>,
    hidden: &[PathBuf],
    abi: ABI,
) -> Result<(RulesetCreated, Granted), SandboxError> {
    let mut granted = Vec::new();
    for (grant, fd) in opened(grants, hidden)? {
        granted.push((grant.path.clone(), FileId::of_fd(&fd)));
        let rule = Opened { dir: grant.path.is_dir(), fd };
        created = created.add_rule(PathBeneath::new(rule.fd.as_fd(), rule.access(AccessFs::from_all(abi), abi)))?;
    }
    Ok((created, granted))
}

/// A ruleset for a policy but its scratch directory, built before a command asks for it: the spawner
/// builds one for the policy of the last confined command while it has nothing else to do, and the
/// next command with that policy (a call's scratch is its own) takes it, which takes building it (a rule
/// for each entry around the hidden paths: 0.27 ms a command in `warden-bench approvals`, 0.09 ms to
/// check and complete one built ahead) off the way to the command.
///
/// It is taken only if building it now would grant exactly the same: the same policy and hidden paths,
/// the readable rules still those kept (`readable_rules`: their directories unchanged), the writable
/// paths and devices still the files that were opened for them (same device and inode).
pub(crate) struct Ahead {
    /// The policy it was built for, without a scratch.
    policy: Policy,
    hidden: Vec<PathBuf>,
    readable: Arc<Vec<Opened>>,
    writable: Vec<Grant>,
    /// Each writable path and device granted, and the file it opened then.
    /// (`None`: it could not be told, and this is not used.)
    opened: Granted,
    /// Whether every writable grant and device was there to open (a missing one might be there by now,
    /// and would be granted by a new build: then this is not used).
    complete: bool,
    abi: ABI,
    created: RulesetCreated,
}

impl Ahead {
    /// Builds the ruleset for `policy` without its scratch directory. `hidden`: its hidden paths, as
    /// they resolve now.
    pub(crate) fn build(policy: &Policy, hidden: &[PathBuf], abi: ABI) -> Result<Self, SandboxError> {
        let policy = Policy { scratch: None, ..policy.clone() };
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(abi))?;
        if !policy.network && abi >= ABI::V4 {
            ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
        }
        if abi >= ABI::V6 {
            // Signals and abstract unix sockets only within the sandbox, whatever the network setting.
            ruleset = ruleset.scope(Scope::from_all(abi))?;
        }
        let mut created = ruleset.create()?;
        let readable = readable_rules(&policy.readable, hidden)?;
        for rule in readable.iter() {
            created =
                created.add_rule(PathBeneath::new(rule.fd.as_fd(), rule.access(AccessFs::from_read(abi), abi)))?;
        }
        let writable = writable_grants(&policy.writable, hidden)?;
        let (mut created, mut opened_ids) = add_writable(created, writable.clone(), hidden, abi)?;
        let mut complete = opened_ids.len() == writable.len();
        for device in WRITABLE_DEVICES.iter().map(Path::new) {
            if !device.exists() {
                complete = false;
                continue;
            }
            let fd = PathFd::new(device)
                .map_err(|e| SandboxError::Path { path: device.into(), source: std::io::Error::other(e) })?;
            opened_ids.push((device.to_path_buf(), FileId::of_fd(&fd)));
            created = created.add_rule(PathBeneath::new(fd, AccessFs::from_file(abi)))?;
        }
        Ok(Self { policy, hidden: hidden.to_vec(), readable, writable, opened: opened_ids, complete, abi, created })
    }

    /// Whether building the ruleset for `policy` (but its scratch) now would grant what this grants.
    fn fits(&self, policy: &Policy, hidden: &[PathBuf], abi: ABI) -> bool {
        // Every field but the scratch, named: a field added to `Policy` must be decided on here.
        let Policy { readable, writable, hidden: asked_hidden, network, scratch: _ } = policy;
        self.complete
            && self.abi == abi
            && self.policy.readable == *readable
            && self.policy.writable == *writable
            && self.policy.hidden == *asked_hidden
            && self.policy.network == *network
            && self.hidden == hidden
            && readable_rules(readable, hidden).is_ok_and(|now| Arc::ptr_eq(&now, &self.readable))
            && writable_grants(writable, hidden).is_ok_and(|now| now == self.writable)
            && self.opened.iter().all(|(path, id)| id.is_some() && FileId::of_path(path) == *id)
    }
}

/// What a path opened: its device and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    fn of_fd(fd: &PathFd) -> Option<Self> {
        use std::os::fd::AsRawFd;
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: fstat fills the struct it is given, on a descriptor this holds open.
        let done = unsafe { libc::fstat(fd.as_fd().as_raw_fd(), &mut stat) };
        (done == 0).then_some(Self { dev: stat.st_dev, ino: stat.st_ino })
    }

    /// What `path` opens now (following links, as opening it for a rule does).
    fn of_path(path: &Path) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| Self { dev: m.dev(), ino: m.ino() })
    }
}

/// A granted path, opened: what a rule is made on.
struct Opened {
    fd: PathFd,
    dir: bool,
}

impl Opened {
    /// `access`, less what applies only to directories when this is not one.
    fn access(&self, access: landlock::BitFlags<AccessFs>, abi: ABI) -> landlock::BitFlags<AccessFs> {
        if self.dir {
            access
        } else {
            access & AccessFs::from_file(abi)
        }
    }
}

/// The paths to grant: each readable and writable path, split around the hidden paths it holds.
#[cfg(test)]
pub(crate) fn grants(policy: &Policy, hidden: &[PathBuf]) -> Result<Vec<Grant>, SandboxError> {
    let mut grants = split_readable(&policy.readable, hidden)?.0;
    grants.extend(writable_grants(&policy.writable, hidden)?);
    Ok(grants)
}

/// Each writable path, split around the hidden paths it holds (one inside a hidden path is granted as
/// asked: the workspace).
fn writable_grants(writable: &[PathBuf], hidden: &[PathBuf]) -> Result<Vec<Grant>, SandboxError> {
    let mut grants = Vec::new();
    for path in writable {
        let path = path.canonicalize().map_err(|source| SandboxError::Path { path: path.clone(), source })?;
        grant(path, true, hidden, &mut grants, &mut Vec::new())?;
    }
    Ok(grants)
}

/// Each grant with the descriptor the rule is made on. A path gone since the listing (another
/// program's temp dir beside a hidden path, say) leaves nothing to grant, and granting less is always
/// safe. A split grant is checked on what its descriptor opens, not on its name: a link swapped since
/// the listing (which is kept while its directories are unchanged) must not open a way into Warden's
/// data.
fn opened(grants: Vec<Grant>, hidden: &[PathBuf]) -> Result<Vec<(Grant, PathFd)>, SandboxError> {
    let mut out = Vec::with_capacity(grants.len());
    for grant in grants {
        let fd = match PathFd::new(&grant.path) {
            Ok(fd) => fd,
            Err(_)
                if std::fs::symlink_metadata(&grant.path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) =>
            {
                continue
            }
            Err(e) => return Err(SandboxError::Path { path: grant.path.clone(), source: std::io::Error::other(e) }),
        };
        if grant.split && opens_hidden(&fd, hidden) {
            continue;
        }
        out.push((grant, fd));
    }
    Ok(out)
}

/// The hidden paths as they resolve now. One that does not exist has nothing to hide (yet); the data
/// dir exists before any call.
pub(crate) fn hidden_paths(policy: &Policy) -> Vec<PathBuf> {
    policy.hidden.iter().filter_map(|h| h.canonicalize().ok()).collect()
}

/// Whether the opened path is, holds or lies in a hidden path (or cannot be told: then it is not granted).
fn opens_hidden(fd: &PathFd, hidden: &[PathBuf]) -> bool {
    use std::os::fd::{AsFd, AsRawFd};
    match std::fs::read_link(format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd())) {
        Ok(real) => hidden.iter().any(|h| real.starts_with(h) || h.starts_with(&real)),
        Err(_) => true,
    }
}

/// Grants `path` as asked when it lies inside a hidden path (the workspace), or split around the hidden
/// paths beneath it; `listed` gets every directory read to split it.
fn grant(
    path: PathBuf,
    write: bool,
    hidden: &[PathBuf],
    out: &mut Vec<Grant>,
    listed: &mut Vec<Listed>,
) -> Result<(), SandboxError> {
    if hidden.iter().any(|h| path.starts_with(h)) {
        out.push(Grant { path, write, split: false });
        Ok(())
    } else {
        split(&path, write, hidden, 0, out, listed)
    }
}

/// A directory read to split a grant, as it was then: if it still is, its entries are the same.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listed {
    path: PathBuf,
    stamp: Option<DirStamp>,
}

/// What changes when a directory gains, loses or renames an entry (or is replaced).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DirStamp {
    dev: u64,
    ino: u64,
    mtime: (i64, i64),
}

pub(crate) fn stamp(path: &Path) -> Option<DirStamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path).ok()?;
    Some(DirStamp { dev: m.dev(), ino: m.ino(), mtime: (m.mtime(), m.mtime_nsec()) })
}

/// The readable grants as last worked out and opened, and what they were worked out from.
struct ReadableCache {
    readable: Vec<PathBuf>,
    hidden: Vec<PathBuf>,
    listed: Vec<Listed>,
    rules: Arc<Vec<Opened>>,
}

static READABLE: std::sync::Mutex<Option<ReadableCache>> = std::sync::Mutex::new(None);

/// The readable paths split around the hidden ones, opened. Splitting `/` lists it and every directory
/// on the way to the data dir (hundreds of entries in a busy `/tmp`), and opening each costs more
/// (several milliseconds a command in all): the opened paths are kept and used again while every
/// directory listed is unchanged (same inode and modification time, which an added, removed or renamed
/// entry changes). A rule is made on what a descriptor opened, which was checked when it was opened
/// (`opened`) and stays the same file whatever happens to its name since.
fn readable_rules(readable: &[PathBuf], hidden: &[PathBuf]) -> Result<Arc<Vec<Opened>>, SandboxError> {
    let mut cache = READABLE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = cache.as_ref() {
        if c.readable == readable && c.hidden == hidden && c.listed.iter().all(|l| stamp(&l.path) == l.stamp) {
            return Ok(c.rules.clone());
        }
    }
    let (grants, listed) = split_readable(readable, hidden)?;
    let rules: Vec<Opened> =
        opened(grants, hidden)?.into_iter().map(|(grant, fd)| Opened { dir: grant.path.is_dir(), fd }).collect();
    let rules = Arc::new(rules);
    *cache = Some(ReadableCache { readable: readable.to_vec(), hidden: hidden.to_vec(), listed, rules: rules.clone() });
    Ok(rules)
}

/// The readable paths split around the hidden ones, and the directories listed to split them.
fn split_readable(readable: &[PathBuf], hidden: &[PathBuf]) -> Result<(Vec<Grant>, Vec<Listed>), SandboxError> {
    let (mut grants, mut listed) = (Vec::new(), Vec::new());
    for path in readable {
        let path = path.canonicalize().map_err(|source| SandboxError::Path { path: path.clone(), source })?;
        grant(path, false, hidden, &mut grants, &mut listed)?;
    }
    Ok((grants, listed))
}

/// Grants `path`, or, if a hidden path lies strictly beneath it, each of its entries but the hidden ones.
fn split(
    path: &Path,
    write: bool,
    hidden: &[PathBuf],
    depth: usize,
    out: &mut Vec<Grant>,
    listed: &mut Vec<Listed>,
) -> Result<(), SandboxError> {
    if !hidden.iter().any(|h| h != path && h.starts_with(path)) {
        out.push(Grant { path: path.to_path_buf(), write, split: true });
        return Ok(());
    }
    if depth > MAX_SPLIT_DEPTH {
        return Err(SandboxError::Path {
            path: path.to_path_buf(),
            source: std::io::Error::other("too deep to split around the hidden paths"),
        });
    }
    // Stamped before the listing: a change during it makes the stamp stale, never the listing.
    listed.push(Listed { path: path.to_path_buf(), stamp: stamp(path) });
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
                out.push(Grant { path: entry_path, write, split: true });
            }
        } else if hidden.contains(&entry_path) {
            continue;
        } else {
            split(&entry_path, write, hidden, depth + 1, out, listed)?;
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
            scratch: None,
        };
        let mut got = grants(&policy, &hidden_paths(&policy)).unwrap();
        got.sort_by(|a, b| a.path.cmp(&b.path));
        let want = vec![
            Grant { path: data.join("workspace"), write: true, split: false },
            Grant { path: root.join("file"), write: false, split: true },
            Grant { path: root.join("other"), write: false, split: true },
        ];
        assert_eq!(got, want);
    }

    /// The listing is kept while its directories are unchanged, so a link found harmless then may lead
    /// elsewhere by now (a link further along its way was swapped): what it opens is checked again.
    #[test]
    fn a_link_that_leads_into_the_hidden_dir_by_now_is_caught_on_what_it_opens() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let data = root.join("data");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::os::unix::fs::symlink(root.join("other"), root.join("a/b")).unwrap();
        std::os::unix::fs::symlink(root.join("a/b"), root.join("link")).unwrap();
        let policy = Policy {
            readable: vec![root.clone()],
            writable: vec![],
            hidden: vec![data.clone()],
            network: false,
            scratch: None,
        };
        let hidden = hidden_paths(&policy);

        let paths = |granted: Vec<(Grant, PathFd)>| granted.into_iter().map(|(g, _)| g.path).collect::<Vec<_>>();
        let listed = grants(&policy, &hidden).unwrap();
        assert!(listed.iter().any(|g| g.path == root.join("link") && g.split), "{listed:?}");
        assert!(paths(opened(listed.clone(), &hidden).unwrap()).contains(&root.join("link")));

        // Swapped inside `a`, which was never listed: `root` looks the same as when it was listed, so the
        // listing still names the link; what it opens now is the data dir, and it is left out.
        std::fs::remove_file(root.join("a/b")).unwrap();
        std::os::unix::fs::symlink(&data, root.join("a/b")).unwrap();
        let granted = paths(opened(listed, &hidden).unwrap());
        assert!(!granted.contains(&root.join("link")), "{granted:?}");
        assert!(granted.contains(&root.join("other")), "{granted:?}");
    }
}
