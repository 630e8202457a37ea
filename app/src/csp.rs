//! The Content-Security-Policy of Warden's pages: scripts only from this server plus the inline
//! hydration scripts Leptos marks with the response's nonce, WebAssembly allowed, connections and
//! styles and the service worker (Web Push) to self, images from self or `data:` only (so a model's Markdown cannot make the browser
//! fetch a remote URL), no framing, no `<base>`, forms to self.

/// The policy for an HTML page rendered with `nonce`; `dev_reload` allows cargo-leptos' reload socket.
pub fn page_policy(nonce: &str, dev_reload: bool) -> String {
    let reload = if dev_reload { " ws: wss:" } else { "" };
    format!(
        "default-src 'none'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; style-src 'self'; \
         img-src 'self' data:; font-src 'self'; connect-src 'self'{reload}; manifest-src 'self'; worker-src 'self'; \
         base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )
}

/// The policy for everything else (API answers, static files, the sign-in page): nothing may load.
pub const FALLBACK_POLICY: &str = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_policy_allows_only_self_and_the_nonce() {
        let p = page_policy("abc123", false);
        assert!(p.contains("script-src 'self' 'nonce-abc123' 'wasm-unsafe-eval';"), "{p}");
        assert!(p.contains("img-src 'self' data:;"), "{p}");
        assert!(p.contains("connect-src 'self';"), "{p}");
        assert!(p.contains("worker-src 'self';"), "the push service worker: {p}");
        assert!(p.contains("frame-ancestors 'none'"), "{p}");
        assert!(!p.contains("unsafe-inline"), "{p}");
    }
}
