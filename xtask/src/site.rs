//! `cargo xtask site`: the browser side of the app in `<target dir>/site`, laid out as cargo-leptos
//! lays it out with `--split`: `pkg/<name>.js` and `pkg/<name>_bg.wasm` from wasm-bindgen (target web), the
//! lazy pages' modules and their loader ([`split`]), `pkg/<name>.css`, and the assets dir's files at the
//! site root. Steps whose input did not change are skipped, so a
//! build with nothing to do costs cargo's own no-op check.
//!
//! No wasm-opt: measured on this app's release wasm, binaryen's `-O1` (what the metadata asks cargo-leptos
//! for) took 16 s per build and gave 2.56 MB / 875 KB gzipped, against 2.77 MB / 868 KB for wasm-bindgen's
//! output with the name section dropped, and `-Oz` made it larger once compressed. A release build
//! also writes brotli copies of the pkg files (`precompress`), which the server sends as they are.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Instant, UNIX_EPOCH};

use anyhow::{Context, Result};
use wasm_bindgen_cli_support::Bindgen;

use crate::project::{Profile, Project};
use crate::{cargo, precompress, split};

const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// Where cargo takes the wasm build's own flags from (they replace `build.rustflags`, not add to them).
const WASM_RUSTFLAGS_VAR: &str = "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS";

/// The release wasm's flags: the workspace's (`build.rustflags` in `.cargo/config.toml`, repeated here
/// because a target's flags replace them), and panics that name no file, line or column
/// (`-Zlocation-detail=none`): the main wasm 51 KB smaller, 16 KB once compressed (brotli 396 -> 380
/// KB), at no cost in build time. The dev build keeps the locations, for the console's panic messages.
/// The flag is unstable, so this build alone runs with `RUSTC_BOOTSTRAP` (as the std-from-source
/// fallback does); `rust-toolchain.toml` pins the compiler that takes it.
const RELEASE_WASM_RUSTFLAGS: &str = "--cfg erase_components -Zlocation-detail=none";

/// Flags of your own (`RUSTFLAGS`) replace the workspace's for every build, this one's too, as cargo has it.
fn own_rustflags() -> bool {
    ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", WASM_RUSTFLAGS_VAR].iter().any(|var| std::env::var_os(var).is_some())
}

pub fn build(project: &Project, profile: Profile) -> Result<()> {
    let started = Instant::now();
    let pkg_dir = project.pkg_dir();
    fs::create_dir_all(&pkg_dir).with_context(|| format!("cannot create {}", pkg_dir.display()))?;
    let wasm = build_wasm(project, profile)?;
    split_and_bindgen(project, profile, &wasm, &pkg_dir)?;
    if let Some(style) = &project.style_file {
        copy_if_changed(style, &pkg_dir.join(format!("{}.css", project.output_name)))?;
    }
    if let Some(assets) = &project.assets_dir {
        copy_dir(assets, &project.site_root())?;
    }
    match profile {
        Profile::Release => precompress::write_brotli(&pkg_dir)?,
        Profile::Dev => precompress::remove_brotli(&pkg_dir)?,
    }
    eprintln!("[xtask] site ready in {} ({:.1} s)", project.site_root().display(), started.elapsed().as_secs_f64());
    Ok(())
}

/// The lib package built for wasm32 (`cargo rustc`, so that the linker's argument the splitter needs
/// reaches the frontend's own link and no dependency's build); returns the `.wasm` it made.
fn build_wasm(project: &Project, profile: Profile) -> Result<PathBuf> {
    let mut command = project.cargo();
    command.args(["rustc", "--lib", "--target", WASM_TARGET, "--profile", profile.wasm(project)]);
    command.args(project.lib.cargo_args());
    if project.std_from_source() {
        // Only this build: the server keeps the prebuilt host std.
        command.arg("-Zbuild-std=std,panic_abort").env("RUSTC_BOOTSTRAP", "1");
    }
    if profile == Profile::Release && !own_rustflags() {
        command.env(WASM_RUSTFLAGS_VAR, RELEASE_WASM_RUSTFLAGS).env("RUSTC_BOOTSTRAP", "1");
    }
    let crate_name = project.lib.package.replace('-', "_");
    let what = format!("{} for {WASM_TARGET}", project.lib.package);
    cargo::build(command, &[split::LINK_ARGS], &what, |artifact| {
        if artifact.target_name() != Some(crate_name.as_str()) || !artifact.has_kind("cdylib") {
            return None;
        }
        artifact.filenames().find(|file| file.extension().is_some_and(|ext| ext == "wasm"))
    })
}

/// The split ([`split`]) and wasm-bindgen into the pkg dir, unless the stamp says this very `.wasm` was
/// already done the same way.
fn split_and_bindgen(project: &Project, profile: Profile, wasm: &Path, pkg_dir: &Path) -> Result<()> {
    let name = &project.output_name;
    let js = pkg_dir.join(format!("{name}.js"));
    let bg_wasm = pkg_dir.join(format!("{name}_bg.wasm"));
    let stamp_file = pkg_dir.join(".xtask-bindgen-stamp");
    // The outputs are in the stamp too: if anything else wrote them (cargo-leptos does), run again.
    let [loader, manifest] = split::outputs(pkg_dir);
    let files = [wasm, js.as_path(), bg_wasm.as_path(), loader.as_path(), manifest.as_path()];
    let done = fs::read_to_string(&stamp_file).ok();
    if stamp_of(&files, profile).is_some_and(|stamp| Some(stamp) == done) {
        eprintln!("[xtask] {} unchanged: split and wasm-bindgen skipped", wasm.display());
        return Ok(());
    }
    // Removed first: a failure half-way must not leave a stamp that claims the new outputs.
    remove_if_there(&stamp_file)?;

    let started = Instant::now();
    // Release drops the function names (half the file); debug keeps them for the browser's stack traces.
    let release = profile == Profile::Release;
    let main = split::split(wasm, pkg_dir, name, release)?;
    let split_in = started.elapsed();
    Bindgen::new()
        .input_path(&main)
        .out_name(name)
        .web(true)?
        .typescript(false)
        // The split modules import the main module's functions by the linker's names.
        .keep_lld_exports(true)
        .demangle(false)
        .remove_name_section(release)
        .remove_producers_section(release)
        .generate(pkg_dir)
        .with_context(|| format!("wasm-bindgen failed on {}", main.display()))?;

    // A server built by cargo-leptos (LEPTOS_OUTPUT_NAME set at its compile time) asks for `<name>.wasm`,
    // one built by plain cargo for `<name>_bg.wasm`: the same file under both names serves either.
    let plain_wasm = pkg_dir.join(format!("{name}.wasm"));
    remove_if_there(&plain_wasm)?;
    if fs::hard_link(&bg_wasm, &plain_wasm).is_err() {
        fs::copy(&bg_wasm, &plain_wasm).with_context(|| format!("cannot write {}", plain_wasm.display()))?;
    }
    let size = fs::metadata(&bg_wasm).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "[xtask] split in {:.1} s, wasm-bindgen: {} KB in {:.1} s",
        split_in.as_secs_f64(),
        size / 1024,
        (started.elapsed() - split_in).as_secs_f64()
    );

    if let Some(stamp) = stamp_of(&files, profile) {
        fs::write(&stamp_file, stamp).with_context(|| format!("cannot write {}", stamp_file.display()))?;
    }
    Ok(())
}

/// The input `.wasm` and the outputs as they are (path, size, modification time), the profile and this
/// tool's version. `None` when a file is missing or has no modification time: then nothing is skipped.
fn stamp_of(files: &[&Path], profile: Profile) -> Option<String> {
    let mut stamp = String::new();
    for file in files {
        let meta = fs::metadata(file).ok()?;
        let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
        let line = format!("{} {} {}.{:09}\n", file.display(), meta.len(), modified.as_secs(), modified.subsec_nanos());
        stamp.push_str(&line);
    }
    stamp.push_str(&format!("{profile:?}\nxtask {}\n", env!("CARGO_PKG_VERSION")));
    Some(stamp)
}

/// Writes `to` only when its content differs, so its modification time says when it last changed.
fn copy_if_changed(from: &Path, to: &Path) -> Result<()> {
    let content = fs::read(from).with_context(|| format!("cannot read {}", from.display()))?;
    if fs::read(to).ok().as_deref() != Some(content.as_slice()) {
        fs::write(to, content).with_context(|| format!("cannot write {}", to.display()))?;
    }
    Ok(())
}

/// The files under `from` into `to`, keeping the tree.
fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    let entries = fs::read_dir(from).with_context(|| format!("cannot read the assets dir {}", from.display()))?;
    fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read the assets dir {}", from.display()))?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if source.is_dir() {
            copy_dir(&source, &target)?;
        } else {
            copy_if_changed(&source, &target)?;
        }
    }
    Ok(())
}

fn remove_if_there(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("cannot remove {}", path.display()))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assets_are_copied_and_unchanged_files_left_alone() {
        let dir = std::env::temp_dir().join(format!("xtask-test-{}", std::process::id()));
        let (from, to) = (dir.join("public"), dir.join("site"));
        fs::create_dir_all(from.join("img")).unwrap();
        fs::write(from.join("robots.txt"), "User-agent: *").unwrap();
        fs::write(from.join("img/a.svg"), "<svg/>").unwrap();
        copy_dir(&from, &to).unwrap();
        assert_eq!(fs::read_to_string(to.join("img/a.svg")).unwrap(), "<svg/>");
        let before = fs::metadata(to.join("robots.txt")).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        copy_dir(&from, &to).unwrap();
        assert_eq!(fs::metadata(to.join("robots.txt")).unwrap().modified().unwrap(), before);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_stamp_changes_with_the_files_and_the_profile() {
        let dir = std::env::temp_dir().join(format!("xtask-stamp-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let (wasm, js) = (dir.join("a.wasm"), dir.join("a.js"));
        fs::write(&wasm, b"\0asm").unwrap();
        fs::write(&js, "export {}").unwrap();
        let files = [wasm.as_path(), js.as_path()];
        let dev = stamp_of(&files, Profile::Dev).unwrap();
        assert_eq!(stamp_of(&files, Profile::Dev), Some(dev.clone()));
        assert_ne!(stamp_of(&files, Profile::Release), Some(dev.clone()));
        fs::write(&js, "export { other }").unwrap();
        assert_ne!(stamp_of(&files, Profile::Dev), Some(dev));
        assert!(stamp_of(&[wasm.as_path(), &dir.join("missing.js")], Profile::Dev).is_none());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// The release wasm's flags replace the workspace's: they must keep every one of them (a server
    /// with erased views cannot hydrate a browser without, and the other way round).
    #[test]
    fn the_release_wasm_keeps_the_workspace_flags() {
        let config = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.cargo/config.toml")).unwrap();
        let line = config.lines().find(|l| l.starts_with("rustflags")).expect("build.rustflags in .cargo/config.toml");
        let list = line.split_once('=').unwrap().1.trim().trim_start_matches('[').trim_end_matches(']');
        let workspace: Vec<&str> = list.split(',').map(|f| f.trim().trim_matches('"')).collect();
        let release: Vec<&str> = RELEASE_WASM_RUSTFLAGS.split_whitespace().collect();
        assert_eq!(&release[..workspace.len()], workspace.as_slice());
    }
}
