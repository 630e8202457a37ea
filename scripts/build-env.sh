# Sourced by dev.sh and test.sh after setup.sh: the PATH and toolchain every build uses.
# On the Debian fallback (setup.sh marks the checkout with .warden-std-from-source) the wasm32 std is
# built from Debian's std source: Debian's Rust in /usr and RUSTC_BOOTSTRAP for -Zbuild-std. `cargo xtask`
# sees the mark and passes -Zbuild-std to the wasm build only, so the server keeps the prebuilt std;
# LEPTOS_ARGS does the same for `cargo leptos watch` (scripts/dev.sh watch).
export PATH="$PWD/end2end/node_modules/.bin:$HOME/.cargo/bin:$PATH"
LEPTOS_ARGS=()
if [ -f .warden-std-from-source ]; then
  export RUSTUP_TOOLCHAIN=/usr RUSTC_BOOTSTRAP=1
  LEPTOS_ARGS=(--lib-cargo-args=-Zbuild-std=std,panic_abort)
fi
