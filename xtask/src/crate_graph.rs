//! `cargo xtask crate-graph [--check]`: the workspace's crates and the dependencies between them, from
//! `cargo metadata`, drawn as a Mermaid graph between the markers in `docs/ARCHITECTURE.md`. With
//! `--check` nothing is written, and it fails when the file's graph is not the one the manifests make
//! (`scripts/test.sh` runs it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};
use serde_json::Value;

const START: &str = "<!-- crate-graph:start -->";
const END: &str = "<!-- crate-graph:end -->";
/// Where the graph lives, from the workspace root.
const DOC: &str = "docs/ARCHITECTURE.md";

/// `Some` when `args` ask for this command: what it ended with.
pub fn dispatch(mut args: impl Iterator<Item = String>) -> Option<ExitCode> {
    if args.next().as_deref() != Some("crate-graph") {
        return None;
    }
    let check = match args.next().as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("xtask: crate-graph takes only --check, not `{other}`");
            return Some(ExitCode::from(2));
        }
    };
    Some(match run(check) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: error: {error:#}");
            ExitCode::FAILURE
        }
    })
}

fn run(check: bool) -> Result<()> {
    let (root, metadata) = metadata()?;
    let graph = mermaid(&edges(&metadata)?);
    let path = root.join(DOC);
    let current = match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let updated = with_graph(current.as_deref(), &graph)?;
    if check {
        if current.as_deref() != Some(updated.as_str()) {
            bail!("the crate graph in {DOC} is out of date: run `cargo xtask crate-graph`");
        }
        return Ok(());
    }
    if current.as_deref() != Some(updated.as_str()) {
        std::fs::write(&path, updated).with_context(|| format!("cannot write {}", path.display()))?;
        println!("xtask: wrote the crate graph into {DOC}");
    }
    Ok(())
}

/// The workspace root and `cargo metadata` of its own packages.
fn metadata() -> Result<(PathBuf, Value)> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("Cargo.toml");
    let output = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--manifest-path"])
        .arg(&manifest)
        .output()
        .context("cannot run `cargo metadata`")?;
    if !output.status.success() {
        bail!("`cargo metadata` failed:\n{}", String::from_utf8_lossy(&output.stderr).trim());
    }
    let metadata: Value = serde_json::from_slice(&output.stdout).context("`cargo metadata` printed no JSON")?;
    let root = metadata["workspace_root"].as_str().context("`cargo metadata` names no workspace root")?;
    Ok((PathBuf::from(root), metadata))
}

/// One crate of the workspace depending on another.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Edge {
    from: String,
    to: String,
    /// Only when a feature turns it on.
    optional: bool,
}

/// The normal dependencies between the workspace's packages (dev- and build-dependencies left out: a
/// crate's tests may use a crate above it), sorted.
fn edges(metadata: &Value) -> Result<BTreeSet<Edge>> {
    let packages = metadata["packages"].as_array().context("`cargo metadata` lists no packages")?;
    let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut edges = BTreeSet::new();
    for package in packages {
        let from = package["name"].as_str().context("a package without a name")?;
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let Some(to) = dep["name"].as_str().filter(|name| names.contains(name)) else { continue };
            if !dep["kind"].is_null() {
                continue;
            }
            let optional = dep["optional"].as_bool().unwrap_or(false);
            edges.insert(Edge { from: from.to_string(), to: to.to_string(), optional });
        }
    }
    // A crate both needs another and names it optional (per target): the plain edge says it.
    let plain: BTreeSet<(String, String)> =
        edges.iter().filter(|e| !e.optional).map(|e| (e.from.clone(), e.to.clone())).collect();
    edges.retain(|e| !e.optional || !plain.contains(&(e.from.clone(), e.to.clone())));
    Ok(edges)
}

/// The Mermaid block: a crate above the crates it depends on; a dashed arrow for an optional one.
fn mermaid(edges: &BTreeSet<Edge>) -> String {
    let id = |name: &str| name.replace('-', "_");
    let crates: BTreeSet<&str> = edges.iter().flat_map(|e| [e.from.as_str(), e.to.as_str()]).collect();
    let mut out = String::from("```mermaid\ngraph TD\n");
    for name in crates {
        out.push_str(&format!("    {}[\"{name}\"]\n", id(name)));
    }
    for edge in edges {
        let arrow = if edge.optional { "-.->" } else { "-->" };
        out.push_str(&format!("    {} {arrow} {}\n", id(&edge.from), id(&edge.to)));
    }
    out.push_str("```\n");
    out
}

/// `doc` with `graph` between the markers: a missing file is made with a `## Crates` heading and
/// the block, a file without the markers gets them (and the heading) at its end.
fn with_graph(doc: Option<&str>, graph: &str) -> Result<String> {
    let block = format!("{START}\n{graph}{END}");
    let Some(doc) = doc else { return Ok(format!("## Crates\n\n{block}\n")) };
    match (doc.find(START), doc.find(END)) {
        (Some(start), Some(end)) if start < end => Ok(format!("{}{block}{}", &doc[..start], &doc[end + END.len()..])),
        (None, None) => {
            let separator = if doc.ends_with('\n') { "\n" } else { "\n\n" };
            Ok(format!("{doc}{separator}## Crates\n\n{block}\n"))
        }
        _ => bail!("{DOC} has the crate graph's markers out of order or only one of them"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dep(name: &str, kind: Option<&str>, optional: bool) -> Value {
        json!({"name": name, "kind": kind, "optional": optional})
    }

    #[test]
    fn only_normal_dependencies_between_the_workspaces_own_crates_are_drawn() {
        let metadata = json!({"packages": [
            {"name": "warden-types", "dependencies": [dep("serde", None, false)]},
            {"name": "warden-engine", "dependencies": [
                dep("warden-types", None, false), dep("warden-testkit", Some("dev"), false)]},
            {"name": "warden-testkit", "dependencies": []},
            {"name": "warden-app", "dependencies": [
                dep("warden-engine", None, true), dep("warden-types", None, false), dep("warden-types", None, true)]},
        ]});
        let graph = mermaid(&edges(&metadata).unwrap());
        assert_eq!(
            graph,
            "```mermaid\ngraph TD\n    warden_app[\"warden-app\"]\n    warden_engine[\"warden-engine\"]\n    \
             warden_types[\"warden-types\"]\n    warden_app -.-> warden_engine\n    warden_app --> warden_types\n    \
             warden_engine --> warden_types\n```\n"
        );
    }

    #[test]
    fn the_graph_replaces_what_is_between_the_markers_and_nothing_else() {
        let doc = format!("# Architecture\n\nBefore.\n\n{START}\nold\n{END}\n\nAfter.\n");
        let updated = with_graph(Some(&doc), "new\n").unwrap();
        assert_eq!(updated, format!("# Architecture\n\nBefore.\n\n{START}\nnew\n{END}\n\nAfter.\n"));
        assert_eq!(with_graph(Some(&updated), "new\n").unwrap(), updated, "written twice, the same");
    }

    #[test]
    fn a_missing_file_or_block_is_made_under_a_crates_heading() {
        assert_eq!(with_graph(None, "g\n").unwrap(), format!("## Crates\n\n{START}\ng\n{END}\n"));
        assert_eq!(with_graph(Some("# A\n"), "g\n").unwrap(), format!("# A\n\n## Crates\n\n{START}\ng\n{END}\n"));
        assert!(with_graph(Some(&format!("{END}\n{START}")), "g\n").is_err());
    }
}
