//! The browser entry point: cargo-leptos builds this crate to wasm, and the page's hydration script
//! calls `hydrate`, which attaches the app to the HTML the server rendered.

#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    // A panic ends the wasm: after logging it, the page says so and offers a reload.
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        warden_app::ui::stopped_notice::show();
    }));
    leptos::mount::hydrate_lazy(warden_app::App);
}
