# Sourced by dev.sh and test.sh after setup.sh: the PATH and toolchain every build uses.
# On the Debian fallback (setup.sh marks the checkout with .warden-std-from-source) the wasm32 std is
# built from Debian's std source: Debian's Rust in /usr, RUSTC_BOOTSTRAP for -Zbuild-std, and the
# build-std flag given to cargo-leptos for the wasm (lib) build only, so the server keeps the prebuilt std.
export PATH="$PWD/end2end/node_modules/.bin:$HOME/.cargo/bin:$PATH"
LEPTOS_ARGS=()
if [ -f .warden-std-from-source ]; then
  export RUSTUP_TOOLCHAIN=/usr RUSTC_BOOTSTRAP=1
  LEPTOS_ARGS=(--lib-cargo-args=-Zbuild-std=std,panic_abort)
fi
