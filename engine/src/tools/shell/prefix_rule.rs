//! "Always allow commands starting with ..." rules. A rule matches only when every simple command in
//! the line, including those inside substitutions, starts with the rule's words and redirects nothing,
//! so `git show; rm -rf /` or `git show > ~/.bashrc` never ride on a `git show` rule.

use super::command_line::split_command;

/// Whether `command` is fully covered by the prefix rule `prefix` (compared word by word).
pub fn matches_prefix_rule(command: &str, prefix: &str) -> bool {
    let prefix_words = match split_command(prefix).as_deref() {
        Some([only]) if !only.redirects && !only.words.is_empty() => only.words.clone(),
        _ => return false,
    };
    match split_command(command) {
        Some(segments) if !segments.is_empty() => {
            segments.iter().all(|seg| !seg.redirects && seg.words.starts_with(&prefix_words))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_word_wise_prefixes() {
        for (command, prefix) in [
            ("git show", "git show"),
            ("git show HEAD", "git show"),
            ("git show HEAD~1 -- src/main.rs", "git show"),
            ("  git   show  HEAD ", "git show"),
            ("git show 'a b'", "git show"),
            ("git show && git show HEAD", "git show"),
            ("git show $(git show HEAD:x)", "git show"),
            ("cargo test -p warden-engine", "cargo test"),
            ("ls", "ls"),
            ("git status # trailing comment", "git status"),
        ] {
            assert!(matches_prefix_rule(command, prefix), "{command:?} should match {prefix:?}");
        }
    }

    #[test]
    fn refuses_anything_beyond_the_prefix() {
        for (command, prefix) in [
            ("git shower", "git show"),
            ("git", "git show"),
            ("git log", "git show"),
            ("git show > ~/.ssh/id_rsa", "git show"),
            ("git show >> ~/.bashrc", "git show"),
            ("git show 2>&1", "git show"),
            ("git show < /etc/passwd", "git show"),
            ("git show; rm -rf /", "git show"),
            ("git show && rm -rf /", "git show"),
            ("git show || rm -rf /", "git show"),
            ("git show & rm -rf /", "git show"),
            ("git show\nrm -rf /", "git show"),
            ("git show | sh", "git show"),
            ("git show |& sh", "git show"),
            ("git show $(rm x)", "git show"),
            ("git show `rm x`", "git show"),
            ("git show \"$(rm x)\"", "git show"),
            ("git show <(rm x)", "git show"),
            ("git show 'unclosed", "git show"),
            ("FOO=bar git show", "git show"),
            ("$GIT show", "git show"),
            ("if true; then git show; fi", "git show"),
            ("", "git show"),
            ("git show", ""),
            ("git show", "   "),
            ("git show", "git show > x"),
            ("git show", "git show; ls"),
        ] {
            assert!(!matches_prefix_rule(command, prefix), "{command:?} should not match {prefix:?}");
        }
    }
}
