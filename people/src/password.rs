//! Passwords: checked against a length policy, hashed with argon2id and OWASP's parameters (19 MiB, two
//! passes, one lane: `argon2::Params::DEFAULT`), kept as a PHC string that carries its salt and parameters,
//! so a later change of parameters still verifies old hashes. Hashing is CPU work: it runs on a blocking
//! thread.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use crate::{Error, Result};

/// NIST SP 800-63B rev. 4 asks at least 15 characters of a password that alone signs someone in.
pub const MIN_CHARS: usize = 15;
/// Long passphrases are welcome; beyond this a password is refused rather than hashed.
pub const MAX_CHARS: usize = 256;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PasswordRefused {
    #[error("a password needs at least {MIN_CHARS} characters (a few words make a good one)")]
    TooShort,
    #[error("a password may have at most {MAX_CHARS} characters")]
    TooLong,
    #[error("a password must not be the login")]
    SameAsLogin,
}

/// Whether `password` may be set for the person who signs in as `login`.
pub fn check(password: &str, login: &str) -> Result<(), PasswordRefused> {
    let chars = password.chars().count();
    if chars < MIN_CHARS {
        return Err(PasswordRefused::TooShort);
    }
    if chars > MAX_CHARS {
        return Err(PasswordRefused::TooLong);
    }
    if password.trim().eq_ignore_ascii_case(login.trim()) {
        return Err(PasswordRefused::SameAsLogin);
    }
    Ok(())
}

/// The PHC string of `password` with a fresh salt.
pub async fn hash(password: String) -> Result<String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(Error::Random)?;
    blocking(move || {
        let salt = SaltString::encode_b64(&salt).map_err(|e| Error::Hashing(e.to_string()))?;
        let hashed = Argon2::default().hash_password(password.as_bytes(), &salt);
        Ok(hashed.map_err(|e| Error::Hashing(e.to_string()))?.to_string())
    })
    .await
}

/// Whether `password` is the one `phc` was made from. A stored string that does not parse verifies nothing.
pub async fn verify(password: String, phc: String) -> Result<bool> {
    blocking(move || {
        let Ok(parsed) = PasswordHash::new(&phc) else { return Ok(false) };
        Ok(Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
    })
    .await
}

async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(work).await.map_err(|e| Error::Hashing(e.to_string()))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_says_what_is_wrong() {
        assert_eq!(check("short", "ada"), Err(PasswordRefused::TooShort));
        assert_eq!(check(&"x".repeat(MAX_CHARS + 1), "ada"), Err(PasswordRefused::TooLong));
        assert_eq!(check("ada.lovelace.1815", "Ada.Lovelace.1815"), Err(PasswordRefused::SameAsLogin));
        assert_eq!(check("correct horse battery", "ada"), Ok(()));
    }

    #[tokio::test]
    async fn a_hash_is_argon2id_with_owasps_parameters_and_a_salt_of_its_own() {
        let one = hash("correct horse battery".into()).await.expect("hashed");
        let two = hash("correct horse battery".into()).await.expect("hashed");
        assert!(one.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{one}");
        assert_ne!(one, two, "each hash has its own salt");
        assert!(verify("correct horse battery".into(), one.clone()).await.expect("verified"));
        assert!(!verify("correct horse batterY".into(), one).await.expect("verified"));
        assert!(!verify("anything".into(), "not a phc string".into()).await.expect("verified"));
    }
}
