//! `cargo xtask doc-paths`: fails when the docs name a file or folder of the repository that is not there.
//! It reads every Markdown file of the repository and the comments of its Rust and TOML files, and checks
//! what looks like a path (the rules are on `paths_in_line`), so a moved file cannot leave its old name behind.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Folders not read: build output, installed packages, other people's code (the crates in `vendor/`; its
/// own README is read), git's own.
const SKIPPED_DIRS: &[&str] = &[".git", "target", "node_modules", "data", "test-results", "playwright-report"];

/// Words that look like paths and are not: MCP's method names, which start like the `tools/` folder.
const NOT_PATHS: &[&str] = &["tools/list", "tools/call"];

/// Top-level folders whose names start no checked path: made by builds and runs, absent on a fresh clone.
const GENERATED_TOP: &[&str] = &["target", "data", "node_modules"];

pub fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new(".")).to_path_buf();
    match check(&root) {
        Ok(missing) if missing.is_empty() => ExitCode::SUCCESS,
        Ok(missing) => {
            for m in &missing {
                eprintln!("{}:{}: `{}` does not exist", m.file.display(), m.line, m.path);
            }
            eprintln!("xtask doc-paths: {} path(s) named in the docs do not exist", missing.len());
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("xtask doc-paths: error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// A path named in `file` (relative to the root) at `line` that is not there.
#[derive(Debug, PartialEq)]
pub struct Missing {
    pub file: PathBuf,
    pub line: usize,
    pub path: String,
}

pub fn check(root: &Path) -> io::Result<Vec<Missing>> {
    let mut files = Vec::new();
    collect(root, root, &mut files)?;
    files.sort();
    let top = top_level_names(root)?;
    let doc_names = doc_file_names(&files);
    let mut missing = Vec::new();
    for file in &files {
        let text = match fs::read_to_string(root.join(file)) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::InvalidData => continue,
            Err(error) => return Err(error),
        };
        let kind = Kind::of(file);
        let dir = file.parent().unwrap_or(Path::new(""));
        for (index, line) in text.lines().enumerate() {
            let Some(text) = kind.prose(line) else { continue };
            for named in paths_in_line(text, kind == Kind::Markdown, &top) {
                let exists = match &named {
                    Named::FromRoot(path) => root.join(path).exists(),
                    Named::FromFile(path) => root.join(dir).join(path).exists(),
                    Named::DocName(name) => doc_names.contains(name.as_str()),
                };
                if !exists {
                    missing.push(Missing { file: file.clone(), line: index + 1, path: named.text().to_string() });
                }
            }
        }
    }
    Ok(missing)
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Markdown,
    Rust,
    Toml,
}

impl Kind {
    fn of(file: &Path) -> Kind {
        match file.extension().and_then(|e| e.to_str()) {
            Some("rs") => Kind::Rust,
            Some("toml") => Kind::Toml,
            _ => Kind::Markdown,
        }
    }

    /// The part of a line that is prose: all of it in Markdown, the comment of a line that is one in Rust
    /// (`//`, `///`, `//!`) and TOML (`#`).
    fn prose(self, line: &str) -> Option<&str> {
        let trimmed = line.trim_start();
        match self {
            Kind::Markdown => Some(line),
            Kind::Rust => trimmed.strip_prefix("//"),
            Kind::Toml => trimmed.strip_prefix('#').or_else(|| line.split_once(" # ").map(|(_, c)| c)),
        }
    }
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        if entry.file_type()?.is_dir() {
            let vendored = relative.parent() == Some(Path::new("vendor"));
            if !SKIPPED_DIRS.contains(&name.as_ref()) && !vendored {
                collect(root, &path, files)?;
            }
        } else if name.ends_with(".md") || name.ends_with(".rs") || name == "Cargo.toml" {
            files.push(relative);
        }
    }
    Ok(())
}

fn top_level_names(root: &Path) -> io::Result<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    for entry in fs::read_dir(root)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if !GENERATED_TOP.contains(&name.as_str()) && !name.starts_with('.') {
            names.insert(name);
        }
    }
    Ok(names)
}

fn doc_file_names(files: &[PathBuf]) -> BTreeSet<String> {
    files.iter().filter_map(|f| f.file_name()).map(|n| n.to_string_lossy().into_owned()).collect()
}

#[derive(Debug, PartialEq)]
enum Named {
    /// `engine/src/lib.rs`: from the repository's root.
    FromRoot(String),
    /// A Markdown link's target, from the linking file's folder.
    FromFile(String),
    /// `SECURITY.md` by name alone: some Markdown file of the repository has that name.
    DocName(String),
}

impl Named {
    fn text(&self) -> &str {
        match self {
            Named::FromRoot(p) | Named::FromFile(p) | Named::DocName(p) => p,
        }
    }
}

/// What in a line names a path:
/// - a Markdown link's target that is not a URL or an anchor (`[x](../docs/API.md#runs)`), from the file's folder;
/// - a word (backticked or not) whose first segment is a top-level file or folder of the repository followed
///   by `/` (`engine/src/lib.rs`, `scripts/`, `docs/API.md`), from the root; a word is cut at spaces, quotes,
///   brackets and commas, and at a trailing `.`, `:` or `:line`; words with placeholders (`<page>`, `*`,
///   `{id}`, `…`, `$VAR`) or inside a URL or an absolute path are not paths;
/// - an upper-case Markdown file name alone (`SECURITY.md`): some Markdown file has that name.
///
/// MCP's method names (`tools/list`, `tools/call`) look like paths into `tools/` and are not.
fn paths_in_line(line: &str, markdown: bool, top: &BTreeSet<String>) -> Vec<Named> {
    let mut found = Vec::new();
    if markdown {
        let mut rest = line;
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split(['#', '?']).next().unwrap_or("").trim();
            let target = target.split_whitespace().next().unwrap_or("");
            if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
                found.push(Named::FromFile(target.to_string()));
            }
            rest = &after[end..];
        }
    }
    let separators = |c: char| c.is_whitespace() || "`'\"()[],;|=".contains(c);
    let mut offset = 0;
    for word in line.split(separators) {
        let at = offset;
        offset += word.len() + 1;
        if word.is_empty() {
            continue;
        }
        // A link's target was checked above, from the file's folder.
        if markdown && line[..at].ends_with("](") {
            continue;
        }
        if let Some(named) = path_word(word, top) {
            found.push(named);
        }
    }
    found
}

fn path_word(word: &str, top: &BTreeSet<String>) -> Option<Named> {
    if word.contains("://") || word.starts_with('/') || word.starts_with("../") || word.starts_with("./") {
        return None;
    }
    if word.contains(['*', '{', '}', '…', '$', '<', '>', '~', '\\']) || word.contains("...") {
        return None;
    }
    let mut word = word.trim_end_matches(['.', ':', '!', '?']);
    // `path.rs:42`
    if let Some((path, line)) = word.rsplit_once(':') {
        if !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()) {
            word = path;
        }
    }
    if word.contains(':') || NOT_PATHS.contains(&word) {
        return None;
    }
    match word.split_once('/') {
        Some((first, _)) if top.contains(first) => Some(Named::FromRoot(word.to_string())),
        Some(_) => None,
        None => {
            let stem = word.strip_suffix(".md")?;
            let doc_like = !stem.is_empty() && stem.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c == '-');
            doc_like.then(|| Named::DocName(word.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top() -> BTreeSet<String> {
        ["engine", "docs", "app", "scripts", "tools", "README.md"].iter().map(|s| s.to_string()).collect()
    }

    fn named(line: &str) -> Vec<Named> {
        paths_in_line(line, true, &top())
    }

    fn root(path: &str) -> Named {
        Named::FromRoot(path.to_string())
    }

    #[test]
    fn backticked_and_plain_paths_from_the_root() {
        assert_eq!(
            named("the gate (`engine/src/approval/gate.rs`), see docs/API.md, Authentication."),
            vec![root("engine/src/approval/gate.rs"), root("docs/API.md")]
        );
        assert_eq!(named("folders: `app/`, scripts/dev.sh:12"), vec![root("app/"), root("scripts/dev.sh")]);
    }

    #[test]
    fn links_are_read_from_the_files_folder() {
        assert_eq!(
            named("[the API](API.md#runs) and [Rust](https://www.rust-lang.org/) and [top](#warden)"),
            vec![Named::FromFile("API.md".into())]
        );
        assert_eq!(named("[x](../engine/src/lib.rs)"), vec![Named::FromFile("../engine/src/lib.rs".into())]);
    }

    #[test]
    fn urls_placeholders_and_other_words_are_not_paths() {
        for line in [
            "http://127.0.0.1:3000/docs/x and /engine/src/abs",
            "`app/src/routes/<page>.rs`, `engine/migrations/*.sql`, `docs/{id}`, `engine/…`",
            "run/driver.rs and a/b and 1/2 of them",
            "`warden_engine::llm::local` and and/or",
            "$WARDEN_DATA_DIR/models",
            "MCP's `tools/list` and tools/call.",
        ] {
            assert_eq!(named(line), vec![], "{line}");
        }
    }

    #[test]
    fn an_upper_case_doc_name_alone_must_be_some_doc() {
        assert_eq!(named("read STYLE.md first"), vec![Named::DocName("STYLE.md".into())]);
        assert_eq!(named("see notes.md"), vec![]);
    }

    #[test]
    fn comments_of_rust_and_toml_only() {
        assert_eq!(Kind::Rust.prose("    /// see `docs/API.md`"), Some("/ see `docs/API.md`"));
        assert_eq!(Kind::Rust.prose("let x = \"docs/none.md\";"), None);
        assert_eq!(Kind::Toml.prose("x = 1 # docs/API.md"), Some("docs/API.md"));
    }

    #[test]
    fn a_repository_with_a_stale_reference_fails() -> io::Result<()> {
        let dir = std::env::temp_dir().join(format!("xtask-doc-paths-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("docs"))?;
        fs::create_dir_all(dir.join("engine/src"))?;
        fs::create_dir_all(dir.join("target/x"))?;
        fs::write(dir.join("engine/src/lib.rs"), "//! Read `engine/src/gone.rs` and docs/API.md.\nfn x() {}\n")?;
        fs::write(dir.join("docs/API.md"), "# API\n[back](../README.md), [lost](LOST.md)\n")?;
        fs::write(dir.join("README.md"), "`engine/src/lib.rs` and `target/debug/x` and SECURITY.md\n")?;
        fs::write(dir.join("target/x/README.md"), "`engine/nothing.rs`\n")?;
        let missing = check(&dir)?;
        fs::remove_dir_all(&dir)?;
        let found: Vec<(String, usize, String)> =
            missing.into_iter().map(|m| (m.file.display().to_string(), m.line, m.path)).collect();
        assert_eq!(
            found,
            vec![
                ("README.md".to_string(), 1, "SECURITY.md".to_string()),
                ("docs/API.md".to_string(), 2, "LOST.md".to_string()),
                ("engine/src/lib.rs".to_string(), 1, "engine/src/gone.rs".to_string()),
            ]
        );
        Ok(())
    }
}
