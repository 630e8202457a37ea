//! Code splitting: the functions the app marks `#[lazy]` (and the views of its `#[lazy_route]`s) are
//! cut out of the wasm cargo built into modules of their own in the pkg dir (`split_<name>.wasm`,
//! with code several of them share in `chunk_<n>.wasm`), which `__wasm_split.….js` fetches the first
//! time one is called. What is left goes on to wasm-bindgen. The pages a route renders on the server
//! name the modules they need (`__wasm_split_manifest.json`, read by Leptos' `HydrationScripts`),
//! so the browser fetches those beside the main wasm instead of after it.
//!
//! The splitter finds the calls between functions from the relocations the linker keeps with
//! `--emit-relocs` ([`LINK_ARGS`], passed to the frontend's own link only).

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

/// The linker's argument the splitter needs.
pub const LINK_ARGS: &str = "-Clink-arg=--emit-relocs";

/// The loader module the split wasm imports; Leptos' `HydrationScripts` preloads it by this name.
const LINK_NAME: &str = "./__wasm_split.______________________.js";
const MANIFEST: &str = "__wasm_split_manifest.json";

/// Splits `wasm` (cargo's output) into the pkg dir; returns the main module, written beside `wasm`,
/// which wasm-bindgen turns into `<output_name>_bg.wasm` and `<output_name>.js`. `strip` drops the
/// split modules' function names and tool versions (half of each file), as wasm-bindgen does for the
/// main module of a release build.
pub fn split(wasm: &Path, pkg_dir: &Path, output_name: &str, strip: bool) -> Result<PathBuf> {
    remove_modules_of_earlier_builds(pkg_dir)?;
    let input = fs::read(wasm).with_context(|| format!("cannot read {}", wasm.display()))?;
    let stem = wasm.file_stem().and_then(|s| s.to_str()).context("the wasm file has no name")?;
    let main = wasm.with_file_name(format!("{stem}_split.wasm"));
    let main_module = format!("./{output_name}.js");
    let mut options = wasm_split_cli_support::Options::new(&input);
    options.output_dir = pkg_dir;
    options.main_out_path = &main;
    options.main_module = &main_module;
    options.link_name = LINK_NAME;
    let split = wasm_split_cli_support::transform(options)
        .map_err(|error| anyhow!("splitting {} failed: {error:?}", wasm.display()))?;
    if strip {
        for module in &split.split_modules {
            let bytes = fs::read(module).with_context(|| format!("cannot read {}", module.display()))?;
            let stripped =
                without_names(&bytes).with_context(|| format!("cannot read {} as wasm", module.display()))?;
            fs::write(module, stripped).with_context(|| format!("cannot write {}", module.display()))?;
        }
    }
    let manifest = serde_json::to_string_pretty(&split.prefetch_map).context("cannot write the split manifest")?;
    let manifest_path = pkg_dir.join(MANIFEST);
    fs::write(&manifest_path, manifest).with_context(|| format!("cannot write {}", manifest_path.display()))?;
    Ok(main)
}

/// `module` without its `name` and `producers` sections; every other section as it was.
fn without_names(module: &[u8]) -> Result<Vec<u8>> {
    let mut out = wasm_encoder::Module::new();
    for payload in wasmparser::Parser::new(0).parse_all(module) {
        let payload = payload?;
        if let wasmparser::Payload::CustomSection(custom) = &payload {
            if matches!(custom.name(), "name" | "producers") {
                continue;
            }
        }
        if let Some((id, range)) = payload.as_section() {
            let data = module.get(range.start as usize..range.end as usize).context("a section ends past the file")?;
            out.section(&wasm_encoder::RawSection { id, data });
        }
    }
    Ok(out.finish())
}

/// The files a split writes into the pkg dir besides wasm-bindgen's: the loader and the manifest.
pub fn outputs(pkg_dir: &Path) -> [PathBuf; 2] {
    [pkg_dir.join(LINK_NAME.trim_start_matches("./")), pkg_dir.join(MANIFEST)]
}

/// The split modules of a build before (and their brotli copies): their names and number change
/// with the code, and a stale one must never be served.
fn remove_modules_of_earlier_builds(pkg_dir: &Path) -> Result<()> {
    let Ok(entries) = fs::read_dir(pkg_dir) else { return Ok(()) };
    for entry in entries {
        let path = entry.with_context(|| format!("cannot read {}", pkg_dir.display()))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if is_split_module(name) {
            fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    Ok(())
}

fn is_split_module(file_name: &str) -> bool {
    let module = file_name.strip_suffix(".br").unwrap_or(file_name);
    (module.starts_with("split_") || module.starts_with("chunk_")) && module.ends_with(".wasm")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_split_modules_and_their_copies_count_as_split_modules() {
        assert!(is_split_module("split_settings_route_123.wasm"));
        assert!(is_split_module("chunk_0.wasm"));
        assert!(is_split_module("chunk_0.wasm.br"));
        assert!(!is_split_module("warden_bg.wasm"));
        assert!(!is_split_module("warden.wasm.br"));
        assert!(!is_split_module("chunk_notes.txt"));
    }

    #[test]
    fn a_stripped_module_keeps_its_code_and_loses_its_names() {
        let mut module = wasm_encoder::Module::new();
        let mut types = wasm_encoder::TypeSection::new();
        types.ty().function([], [wasm_encoder::ValType::I32]);
        module.section(&types);
        let mut functions = wasm_encoder::FunctionSection::new();
        functions.function(0);
        module.section(&functions);
        let mut code = wasm_encoder::CodeSection::new();
        let mut body = wasm_encoder::Function::new([]);
        body.instructions().i32_const(42).end();
        code.function(&body);
        module.section(&code);
        let mut names = wasm_encoder::NameSection::new();
        let mut function_names = wasm_encoder::NameMap::new();
        function_names.append(0, "the_answer");
        names.functions(&function_names);
        module.section(&names);
        let module = module.finish();

        let stripped = without_names(&module).unwrap();
        wasmparser::Validator::new().validate_all(&stripped).unwrap();
        let sections: Vec<_> = wasmparser::Parser::new(0)
            .parse_all(&stripped)
            .filter_map(|p| p.unwrap().as_section().map(|(id, _)| id))
            .collect();
        assert_eq!(sections, [1, 3, 10], "type, function and code sections, no custom one");
        assert!(!stripped.windows(10).any(|w| w == b"the_answer"));
        assert!(module.windows(10).any(|w| w == b"the_answer"));
    }
}
