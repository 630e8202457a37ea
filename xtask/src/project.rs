//! Where things are and what to build: the workspace root and cargo's target dir (from `cargo metadata`,
//! so CARGO_TARGET_DIR and cargo's config are honoured) and the `[workspace.metadata.leptos]` settings
//! cargo-leptos reads too, so the two tools build the same site.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value;

/// Debug builds use cargo's dev profile for the wasm and the server alike; release builds use the
/// metadata's `lib-profile-release` for the wasm and `release` for the server.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Profile {
    Dev,
    Release,
}

/// What `serve` builds the site and the server in. They may differ: `--release-site` (scripts/dev.sh)
/// sends the browser the small release wasm and builds the server as `cargo test` does, in about two
/// thirds of the CPU time of a release server.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profiles {
    pub site: Profile,
    pub server: Profile,
}

impl Profiles {
    pub fn both(profile: Profile) -> Self {
        Self { site: profile, server: profile }
    }
}

pub struct Project {
    pub root: PathBuf,
    pub target_dir: PathBuf,
    cargo: OsString,
    /// `name`: the site's file names (`pkg/<name>.js`, `<name>_bg.wasm`, `<name>.css`).
    pub output_name: String,
    pub lib: PackageBuild,
    pub bin: PackageBuild,
    pub lib_profile_release: String,
    pub site_pkg_dir: String,
    pub style_file: Option<PathBuf>,
    pub assets_dir: Option<PathBuf>,
    pub site_addr: String,
    pub reload_port: String,
}

/// One of the two packages (wasm lib, server bin) with the features the metadata builds it with.
pub struct PackageBuild {
    pub package: String,
    pub features: Vec<String>,
    pub default_features: bool,
}

impl PackageBuild {
    /// `-p <package> [--no-default-features] [--features a,b]`
    pub fn cargo_args(&self) -> Vec<String> {
        let mut args = vec!["-p".to_string(), self.package.clone()];
        if !self.default_features {
            args.push("--no-default-features".into());
        }
        if !self.features.is_empty() {
            args.push("--features".into());
            args.push(self.features.join(","));
        }
        args
    }
}

impl Project {
    pub fn load() -> Result<Self> {
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
        let root = PathBuf::from(str_at(&metadata, "workspace_root")?);
        let target_dir = PathBuf::from(str_at(&metadata, "target_directory")?);
        // `[[workspace.metadata.leptos]]` is a list of sites; Warden has one.
        let leptos = match &metadata["metadata"]["leptos"] {
            Value::Array(sites) if sites.len() == 1 => &sites[0],
            Value::Array(sites) => {
                bail!("[workspace.metadata.leptos] lists {} sites; xtask builds exactly one", sites.len())
            }
            site @ Value::Object(_) => site,
            _ => bail!("Cargo.toml has no [[workspace.metadata.leptos]] section"),
        };
        let setting = |key: &str| leptos.get(key).and_then(Value::as_str).map(str::to_string);
        let required = |key: &str| setting(key).with_context(|| format!("[workspace.metadata.leptos] has no `{key}`"));
        let list = |key: &str| -> Result<Vec<String>> {
            match leptos.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|item| item.as_str().map(str::to_string))
                    .collect::<Option<_>>()
                    .with_context(|| format!("[workspace.metadata.leptos] `{key}` must be a list of strings")),
                Some(_) => bail!("[workspace.metadata.leptos] `{key}` must be a list of strings"),
            }
        };
        let flag = |key: &str| leptos.get(key).and_then(Value::as_bool).unwrap_or(true);
        let port = match leptos.get("reload-port") {
            Some(Value::Number(n)) => n.to_string(),
            _ => "3001".into(),
        };
        Ok(Project {
            output_name: required("name")?,
            lib: PackageBuild {
                package: required("lib-package")?,
                features: list("lib-features")?,
                default_features: flag("lib-default-features"),
            },
            bin: PackageBuild {
                package: required("bin-package")?,
                features: list("bin-features")?,
                default_features: flag("bin-default-features"),
            },
            lib_profile_release: setting("lib-profile-release").unwrap_or_else(|| "release".into()),
            site_pkg_dir: setting("site-pkg-dir").unwrap_or_else(|| "pkg".into()),
            style_file: setting("style-file").map(|file| root.join(file)),
            assets_dir: setting("assets-dir").map(|dir| root.join(dir)),
            site_addr: setting("site-addr").unwrap_or_else(|| "127.0.0.1:3000".into()),
            reload_port: port,
            root,
            target_dir,
            cargo,
        })
    }

    /// `cargo` in the workspace root (the same cargo that runs xtask).
    pub fn cargo(&self) -> Command {
        let mut command = Command::new(&self.cargo);
        command.current_dir(&self.root);
        command
    }

    /// The site lives in cargo's target dir (`target/site` by default, the metadata's `site-root`), so
    /// builds with another CARGO_TARGET_DIR do not overwrite each other's site.
    pub fn site_root(&self) -> PathBuf {
        self.target_dir.join("site")
    }

    pub fn pkg_dir(&self) -> PathBuf {
        self.site_root().join(&self.site_pkg_dir)
    }

    /// Debian's fallback toolchain (scripts/setup.sh) has no prebuilt wasm32 std: build it from source.
    pub fn std_from_source(&self) -> bool {
        self.root.join(".warden-std-from-source").exists()
    }
}

fn str_at<'a>(value: &'a Value, key: &str) -> Result<&'a str> {
    value.get(key).and_then(Value::as_str).with_context(|| format!("`cargo metadata` has no `{key}`"))
}

impl Profile {
    /// The cargo profile of the wasm build.
    pub fn wasm(self, project: &Project) -> &str {
        match self {
            Profile::Dev => "dev",
            Profile::Release => &project.lib_profile_release,
        }
    }

    /// The cargo profile of the server build.
    pub fn server(self) -> &'static str {
        match self {
            Profile::Dev => "dev",
            Profile::Release => "release",
        }
    }
}
