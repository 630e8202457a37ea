//! The process's one TLS crypto provider: rustls with ring. reqwest and rmcp are built without a
//! provider of their own (aws-lc-sys, their default, is a C build of 90 s), so every HTTP client of the
//! process needs this installed first; the providers' clients install it themselves.

/// Installs ring as rustls's process-wide provider. Idempotent: a provider already installed stays.
pub fn install_crypto_provider() {
    // `Err` only says one is installed already.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_http_client_can_be_built_once_the_provider_is_installed_and_installing_twice_is_harmless() {
        super::install_crypto_provider();
        super::install_crypto_provider();
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
        reqwest::Client::builder().build().expect("a client with TLS");
    }
}
