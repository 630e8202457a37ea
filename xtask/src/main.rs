//! Warden's build tool, run as `cargo xtask <command>` (the alias is in `.cargo/config.toml`).
//! It does what cargo-leptos did for the two commands, with the same `[workspace.metadata.leptos]`
//! settings, without compiling cargo-leptos: the wasm build, wasm-bindgen, CSS and assets, then the server.

mod cargo;
mod crate_graph;
mod deps_check;
mod doc_paths;
mod import_cycles;
mod precompress;
mod project;
mod serve;
mod site;
mod split;

use std::process::ExitCode;

use project::{Profile, Profiles, Project};

const USAGE: &str = "\
usage: cargo xtask <command> [--release | --release-site]

commands:
  site    build the browser side into <target dir>/site: the frontend for wasm32 (its leptos
          lib-features), split into the main module and the lazy pages' modules, wasm-bindgen,
          the style file as pkg/<name>.css and the assets
  serve   build the site and the server, then run the server with the LEPTOS_* settings it
          needs (LEPTOS_SITE_ADDR and LEPTOS_ENV from the environment when set)
  doc-paths   fail on a repository path named in the docs (Markdown, Rust and TOML comments)
              that does not exist
  deps-check  fail on a crate's dependency declared with a version of its own instead of
              `workspace = true`
  import-cycles [SRC_DIR…]
              fail on an import circle between the files of a crate (default app/src)
  crate-graph [--check]
              draw the workspace's crates and their dependencies into docs/ARCHITECTURE.md;
              --check fails when the graph there is out of date

options:
  --release       the wasm in the lib-profile-release profile, the server in release; without it
                  both are built in the dev profile, as `cargo test` builds the server
  --release-site  the wasm as --release builds it, the server in the dev profile (what
                  scripts/dev.sh serves: the browser gets the small wasm, the build takes
                  about two thirds of the CPU time of --release)
  -h, --help      this text";

#[derive(Debug, PartialEq)]
enum Command {
    Site,
    Serve,
}

#[derive(Debug, PartialEq)]
enum Args {
    Help,
    Run { command: Command, profiles: Profiles },
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut command = None;
    let mut profiles = Profiles::both(Profile::Dev);
    for arg in args {
        match arg.as_str() {
            "-h" | "--help" | "help" => return Ok(Args::Help),
            "--release" | "-r" => profiles = Profiles::both(Profile::Release),
            "--release-site" => profiles.site = Profile::Release,
            "site" | "serve" if command.is_some() => return Err(format!("one command at a time, not also `{arg}`")),
            "site" => command = Some(Command::Site),
            "serve" => command = Some(Command::Serve),
            other if other.starts_with('-') => return Err(format!("unknown option `{other}`")),
            other => return Err(format!("unknown command `{other}`")),
        }
    }
    match command {
        Some(command) => Ok(Args::Run { command, profiles }),
        None => Err("no command given".into()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(done) = crate_graph::dispatch(args.iter().cloned()) {
        return done;
    }
    match args.first().map(String::as_str) {
        Some("doc-paths") => return doc_paths::main(),
        Some("deps-check") => return deps_check::main(),
        Some("import-cycles") => return report(import_cycles::run(&args[1..])),
        _ => {}
    }
    let (command, profiles) = match parse_args(args) {
        Ok(Args::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Ok(Args::Run { command, profiles }) => (command, profiles),
        Err(message) => {
            eprintln!("xtask: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    report(Project::load().and_then(|project| match command {
        Command::Site => site::build(&project, profiles.site),
        Command::Serve => serve::run(&project, profiles),
    }))
}

fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, String> {
        parse_args(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn a_command_with_or_without_release() {
        let (dev, release) = (Profiles::both(Profile::Dev), Profiles::both(Profile::Release));
        assert_eq!(parse(&["site"]), Ok(Args::Run { command: Command::Site, profiles: dev }));
        assert_eq!(parse(&["--release", "serve"]), Ok(Args::Run { command: Command::Serve, profiles: release }));
        assert_eq!(parse(&["serve", "--help"]), Ok(Args::Help));
    }

    #[test]
    fn release_site_builds_only_the_site_in_release() {
        let mixed = Profiles { site: Profile::Release, server: Profile::Dev };
        assert_eq!(parse(&["serve", "--release-site"]), Ok(Args::Run { command: Command::Serve, profiles: mixed }));
        // With `--release` as well, before or after it, both are release.
        assert_eq!(
            parse(&["serve", "--release-site", "--release"]),
            Ok(Args::Run { command: Command::Serve, profiles: Profiles::both(Profile::Release) })
        );
        assert_eq!(
            parse(&["--release", "serve", "--release-site"]),
            Ok(Args::Run { command: Command::Serve, profiles: Profiles::both(Profile::Release) })
        );
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert!(parse(&[]).is_err());
        assert!(parse(&["build"]).unwrap_err().contains("`build`"));
        assert!(parse(&["site", "--relase"]).unwrap_err().contains("`--relase`"));
        assert!(parse(&["site", "serve"]).is_err());
    }
}
