//! `cargo xtask deps-check`: every version is declared once, in the workspace's `[workspace.dependencies]`.
//! A crate's `Cargo.toml` that names a dependency with a version or path of its own, instead of
//! `{ workspace = true, … }`, fails the check, so two crates cannot drift to two versions of one library.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new(".")).to_path_buf();
    match check(&root) {
        Ok(found) if found.is_empty() => ExitCode::SUCCESS,
        Ok(found) => {
            for own in &found {
                eprintln!("{}:{}: `{}` is not `workspace = true`", own.manifest.display(), own.line, own.text);
            }
            eprintln!(
                "xtask deps-check: {} dependencies declare their own version: add them to \
                 [workspace.dependencies] in Cargo.toml and write `name = {{ workspace = true }}`",
                found.len()
            );
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("xtask deps-check: error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// A dependency line of a crate's manifest that is not `workspace = true`.
#[derive(Debug, PartialEq)]
pub struct OwnVersion {
    pub manifest: PathBuf,
    pub line: usize,
    pub text: String,
}

/// The manifests of the workspace's crates: every `Cargo.toml` below the root but the root's own, outside
/// build output and the vendored crates (which are not the workspace's).
pub fn check(root: &Path) -> io::Result<Vec<OwnVersion>> {
    let mut manifests = Vec::new();
    for entry in fs::read_dir(root)? {
        let dir = entry?.path();
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let manifest = dir.join("Cargo.toml");
        if !["target", "vendor", "node_modules"].contains(&name.as_str()) && manifest.is_file() {
            manifests.push(manifest);
        }
    }
    manifests.sort();
    let mut found = Vec::new();
    for manifest in manifests {
        let text = fs::read_to_string(&manifest)?;
        let relative = manifest.strip_prefix(root).unwrap_or(&manifest).to_path_buf();
        for (line, text) in own_versions(&text) {
            found.push(OwnVersion { manifest: relative.clone(), line, text });
        }
    }
    Ok(found)
}

/// The dependency lines (1-based line, text) of one manifest that do not say `workspace = true`; a
/// `[dependencies.name]` table counts as one, as the check reads inline entries only.
fn own_versions(manifest: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut in_dependencies = false;
    for (index, line) in manifest.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            let section = line.trim_matches(['[', ']']);
            let last = section.rsplit('.').next().unwrap_or("");
            let is_table = ["dependencies", "dev-dependencies", "build-dependencies"].contains(&last);
            in_dependencies = is_table;
            let named_table = section.split('.').any(|part| part.ends_with("dependencies")) && !is_table;
            if named_table {
                found.push((index + 1, line.to_string()));
            }
            continue;
        }
        if !in_dependencies || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let compact: String = line.split('#').next().unwrap_or("").chars().filter(|c| !c.is_whitespace()).collect();
        if !compact.contains("workspace=true") {
            found.push((index + 1, line.to_string()));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_workspace_entries_pass() {
        let manifest = "\
[package]
name = \"x\"
version.workspace = true

[dependencies]
serde = { workspace = true }
# a comment
tokio = { workspace = true, features = [\"rt\"] }
hex = \"0.4\"
local = { path = \"../local\" }

[target.'cfg(unix)'.dependencies]
libc = { version = \"0.2\" }

[dev-dependencies.tempfile]
version = \"3\"

[features]
default = []
";
        assert_eq!(
            own_versions(manifest),
            vec![
                (9, "hex = \"0.4\"".to_string()),
                (10, "local = { path = \"../local\" }".to_string()),
                (13, "libc = { version = \"0.2\" }".to_string()),
                (15, "[dev-dependencies.tempfile]".to_string()),
            ]
        );
    }
}
