//! What a login and a display name may be. Both come from a person typing, so each refusal says what to fix.

/// The longest login and name kept.
pub const LOGIN_MAX_CHARS: usize = 64;
pub const NAME_MAX_CHARS: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameRefused {
    #[error("a login is 1 to {LOGIN_MAX_CHARS} letters, digits, or . _ - @ (no spaces)")]
    Login,
    #[error("a name is 1 to {NAME_MAX_CHARS} characters, with no control characters")]
    Name,
}

/// A login as typed, trimmed; letters (any script), digits and `._-@` only.
pub fn login(typed: &str) -> Result<String, NameRefused> {
    let login = typed.trim();
    let fits = !login.is_empty()
        && login.chars().count() <= LOGIN_MAX_CHARS
        && login.chars().all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '@'));
    if fits {
        Ok(login.to_string())
    } else {
        Err(NameRefused::Login)
    }
}

/// A display name as typed, trimmed; no control or hidden (format) characters.
pub fn name(typed: &str) -> Result<String, NameRefused> {
    let name = typed.trim();
    let fits = !name.is_empty()
        && name.chars().count() <= NAME_MAX_CHARS
        && !name.chars().any(|c| c.is_control() || warden_types::hidden_chars::is_hidden(c));
    if fits {
        Ok(name.to_string())
    } else {
        Err(NameRefused::Name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logins_and_names_are_trimmed_and_refused_with_a_reason() {
        assert_eq!(login("  ada.l@example  ").as_deref(), Ok("ada.l@example"));
        assert_eq!(login("zoë_9").as_deref(), Ok("zoë_9"));
        for bad in ["", "   ", "ada lovelace", "a/b", "x\u{0}", &"a".repeat(LOGIN_MAX_CHARS + 1)] {
            assert_eq!(login(bad), Err(NameRefused::Login), "{bad:?}");
        }
        assert_eq!(name("  Ada Lovelace ").as_deref(), Ok("Ada Lovelace"));
        for bad in ["", "Ada\nLovelace", "Ada\u{202e}", &"a".repeat(NAME_MAX_CHARS + 1)] {
            assert_eq!(name(bad), Err(NameRefused::Name), "{bad:?}");
        }
    }
}
