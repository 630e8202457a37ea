//! Secrets handed to a browser once (a session's cookie, an invitation's link): 32 bytes of OS randomness as
//! 64 hex characters. The database keeps only their SHA-256, so a copy of it lets nobody in.

use sha2::{Digest, Sha256};

/// A new secret, shown once. Never in `Debug` output.
pub struct Secret(String);

impl Secret {
    /// 32 random bytes from the operating system.
    pub fn new() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)?;
        Ok(Self(hex::encode(bytes)))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    /// What the database keeps of it.
    pub fn hash(&self) -> String {
        hash(&self.0)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// The hex SHA-256 of a secret as a browser presented it.
pub fn hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Whether `text` has a secret's shape (64 hex characters): anything else is refused before a lookup.
pub fn has_secret_shape(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_64_hex_characters_kept_only_as_its_hash_and_never_printed() {
        let secret = Secret::new().expect("random");
        assert!(has_secret_shape(secret.expose()));
        assert_ne!(secret.hash(), secret.expose());
        assert_eq!(secret.hash(), hash(secret.expose()));
        assert!(!format!("{secret:?}").contains(secret.expose()));
        assert_ne!(Secret::new().expect("random").expose(), secret.expose());
        assert!(!has_secret_shape("zz"));
    }
}
