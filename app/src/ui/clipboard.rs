//! Putting text on the clipboard, in the browser (on the server there is none: `false`).

/// Writes `text` to the clipboard; whether the browser took it. `navigator.clipboard` is undefined
/// outside a secure context (plain http to another host): then it answers `false` at once.
pub async fn copy_text(text: &str) -> bool {
    #[cfg(feature = "hydrate")]
    {
        let clipboard = leptos::prelude::window().navigator().clipboard();
        if clipboard.is_undefined() {
            return false;
        }
        wasm_bindgen_futures::JsFuture::from(clipboard.write_text(text)).await.is_ok()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = text;
        false
    }
}
