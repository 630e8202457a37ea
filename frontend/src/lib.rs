//! The browser entry point: cargo-leptos builds this crate to wasm, and the page's hydration script
//! calls `hydrate`, which attaches the app to the HTML the server rendered.

#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_lazy(warden_app::App);
}
