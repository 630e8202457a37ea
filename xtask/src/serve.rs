//! `cargo xtask serve`: the site, then the server binary, then the server in place of this process,
//! with the LEPTOS_* settings cargo-leptos would give it. A plain `cargo build` of the server needs
//! nothing at compile time: leptos reads these at start (its `option_env!("LEPTOS_OUTPUT_NAME")` only
//! changes the wasm file's name, and the site has both names).

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result};

use crate::cargo;
use crate::project::{Profile, Profiles, Project};
use crate::site;

pub fn run(project: &Project, profiles: Profiles) -> Result<()> {
    let server = build_site_and_server(project, profiles)?;
    let mut command = Command::new(&server);
    command
        .current_dir(&project.root)
        // What the site is: always the one just built.
        .env("LEPTOS_OUTPUT_NAME", &project.output_name)
        .env("LEPTOS_SITE_ROOT", project.site_root())
        .env("LEPTOS_SITE_PKG_DIR", &project.site_pkg_dir);
    // Where and how it runs: the environment's choice when it made one (README, Configuration).
    let defaults = [
        ("LEPTOS_SITE_ADDR", project.site_addr.as_str()),
        ("LEPTOS_RELOAD_PORT", project.reload_port.as_str()),
        ("LEPTOS_ENV", if profiles.server == Profile::Release { "PROD" } else { "DEV" }),
    ];
    for (key, value) in defaults {
        if std::env::var_os(key).is_none() {
            command.env(key, value);
        }
    }
    eprintln!("[xtask] running {}", server.display());
    exec(command).with_context(|| format!("cannot run {}", server.display()))
}

/// The site and the server build at once, two cargo processes. With a release site each has its own
/// profile directories (`wasm-release`, and `release` or `debug`), and each ends in work that keeps one
/// core busy (the wasm's single-unit LTO; the server's last crates and its link), so together they
/// finish sooner: a cold release build took 12.6 min instead of 13.4 here. When both are in the dev
/// profile they share `target/debug` for build scripts and macros, so cargo's lock on it makes the
/// second wait for the first.
fn build_site_and_server(project: &Project, profiles: Profiles) -> Result<PathBuf> {
    std::thread::scope(|scope| {
        let server = scope.spawn(|| build_server(project, profiles.server));
        let site = site::build(project, profiles.site);
        let server = server.join().map_err(|_| anyhow::anyhow!("the server build panicked"))?;
        site?;
        server
    })
}

fn build_server(project: &Project, profile: Profile) -> Result<PathBuf> {
    let mut command = project.cargo();
    command.args(["build", "--bins", "--profile", profile.server()]).args(project.bin.cargo_args());
    let package = &project.bin.package;
    cargo::build(command, &[], package, |artifact| {
        artifact.executable().filter(|_| artifact.has_kind("bin") && artifact.target_name() == Some(package.as_str()))
    })
}

/// Replaces this process (Ctrl-C and SIGTERM reach the server directly, and its exit status is ours).
#[cfg(unix)]
fn exec(mut command: Command) -> Result<()> {
    use std::os::unix::process::CommandExt;
    Err(command.exec().into())
}

#[cfg(not(unix))]
fn exec(mut command: Command) -> Result<()> {
    let status = command.status()?;
    anyhow::ensure!(status.success(), "the server exited with {status}");
    Ok(())
}
