//! "Always allow commands starting with ..." rules. A rule covers a line only when the line is made
//! of plain literal commands (see `plain_commands`) joined by `;`, `&&`, `||` or newlines, each one
//! starting with the rule's words, none using an option that writes or runs something, and the whole
//! line read-only by `shell_risk`. A rule is only made for a read-only command it covers.
//! A rule shows the program it lets run: through a wrapper (`env`, `nice -n 5`, `xargs`) its words
//! must reach the program's name, and a shell's script (`sh -c …`) is never covered.

use super::command_line::{plain_commands, PlainCommand};
use super::risk::{is_shell, shell_risk};
use super::wrappers::{read_chain, End};
use super::write_options::risky_option;
use crate::Risk;

/// Whether `command` is fully covered by the prefix rule `prefix` (compared word by word, after the
/// shell's quote removal). Anything the rule cannot vouch for means "ask".
pub fn matches_prefix_rule(command: &str, prefix: &str) -> bool {
    let Some(prefix_words) = plain_prefix(prefix) else { return false };
    match plain_commands(command) {
        Some(commands) if !commands.is_empty() => {
            commands.iter().all(|cmd| {
                cmd.argv.starts_with(&prefix_words)
                    && !has_risky_option(cmd)
                    && shown_program(&cmd.argv).is_some_and(|at| at < prefix_words.len())
            }) && shell_risk(command) == Risk::Low
        }
        _ => false,
    }
}

/// Why `prefix` cannot become a rule for the approved `command`, if it cannot.
pub fn check_prefix_rule(command: &str, prefix: &str) -> Result<(), String> {
    if plain_prefix(prefix).is_none() {
        return Err(format!(
            "the prefix `{prefix}` must be one plain command (words only: no $, quotes like $'…', globs, \
             redirections, pipes or lists)"
        ));
    }
    if shell_risk(command) != Risk::Low {
        return Err("a command prefix rule is only for read-only commands; approve this one once".into());
    }
    if !matches_prefix_rule(command, prefix) {
        return Err(format!(
            "the prefix `{prefix}` does not cover the approved command word for word, or the command is not \
             made of plain words; approve this one once"
        ));
    }
    Ok(())
}

/// The prefix an approval card may suggest for `command`: for a single read-only plain command, its
/// name and, for tools with subcommands (`git show`), the first word after it that is not an option.
/// `None` when no rule could cover the command, or its words would need quoting.
pub fn prefix_rule_offer(command: &str) -> Option<String> {
    let commands = plain_commands(command)?;
    let [only] = commands.as_slice() else { return None };
    if has_risky_option(only) || shell_risk(command) != Risk::Low {
        return None;
    }
    let at = shown_program(&only.argv)?;
    let mut offer: Vec<&str> = only.argv[..=at].iter().map(String::as_str).collect();
    if SUBCOMMAND_TOOLS.contains(&only.argv[at].as_str()) {
        let sub = only.argv.get(at + 1).filter(|w| !w.starts_with('-'))?;
        offer.push(sub);
    }
    let safe = |w: &&str| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:@%+,=".contains(c));
    offer.iter().all(safe).then(|| offer.join(" "))
}

/// Tools whose first non-option word names what they do; a rule for them names it too.
const SUBCOMMAND_TOOLS: &[&str] = &["git", "cargo", "npm", "go", "docker", "kubectl"];

/// The index of the word a rule must reach to show what `argv` runs: the program, read through any
/// wrappers in front of it (the last wrapper when it runs no command). `None` when the reader
/// cannot tell, or a shell runs a script no prefix shows.
fn shown_program(argv: &[String]) -> Option<usize> {
    let chain = read_chain(argv);
    match chain.end {
        End::Nothing | End::Echo => chain.programs.last().copied(),
        End::Runs => chain.program().filter(|&at| !is_shell(argv[at].rsplit('/').next().unwrap_or(&argv[at]))),
        End::Unknown | End::Computed | End::TooDeep => None,
    }
}

fn plain_prefix(prefix: &str) -> Option<Vec<String>> {
    match plain_commands(prefix)?.as_slice() {
        [only] if !only.argv.is_empty() && !has_risky_option(only) => Some(only.argv.clone()),
        _ => None,
    }
}

fn has_risky_option(cmd: &PlainCommand) -> bool {
    match cmd.argv.split_first() {
        Some((name, args)) => risky_option(name, args).is_some(),
        None => false,
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
            ("git 'show' HEAD", "git show"),
            ("git show && git show HEAD", "git show"),
            ("git show; git show HEAD", "git show"),
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
            ("git show | git show", "git show"),
            ("git show $(rm x)", "git show"),
            ("git show `rm x`", "git show"),
            ("git show \"$(rm x)\"", "git show"),
            ("git show $(git show HEAD:x)", "git show"),
            ("git show <(rm x)", "git show"),
            ("git show 'unclosed", "git show"),
            ("FOO=bar git show", "git show"),
            ("$GIT show", "git show"),
            ("if true; then git show; fi", "git show"),
            ("cargo test -p warden-engine", "cargo test"),
            ("", "git show"),
            ("git show", ""),
            ("git show", "   "),
            ("git show", "git show > x"),
            ("git show", "git show; ls"),
            ("git show", "git show $x"),
        ] {
            assert!(!matches_prefix_rule(command, prefix), "{command:?} should not match {prefix:?}");
        }
    }

    #[test]
    fn prefix_rules_are_made_only_for_read_only_commands_they_cover() {
        assert!(check_prefix_rule("git show HEAD", "git show").is_ok());
        assert!(check_prefix_rule("echo one", "echo").is_ok());
        assert!(check_prefix_rule("cargo test", "cargo test").is_err(), "not read-only");
        assert!(check_prefix_rule("rm -rf build", "rm").is_err(), "not read-only");
        assert!(check_prefix_rule("git show HEAD", "git log").is_err(), "does not cover the command");
        assert!(check_prefix_rule("git show HEAD", "git $x").is_err(), "not plain");
        assert!(check_prefix_rule("git show --output=/tmp/x", "git show").is_err(), "writes a file");
        assert!(check_prefix_rule("git show", "git show --output=/tmp/x").is_err(), "prefix writes a file");
    }

    #[test]
    fn a_rule_for_a_wrapper_shows_the_program_it_lets_run() {
        assert_eq!(prefix_rule_offer("env").as_deref(), Some("env"));
        assert_eq!(prefix_rule_offer("nice -n 5 grep x f").as_deref(), Some("nice -n 5 grep"));
        assert_eq!(prefix_rule_offer("sh -c ls"), None, "a shell's script is never covered");
        assert_eq!(prefix_rule_offer("env -Z ls"), None, "an unknown option is never low");
        assert!(matches_prefix_rule("env -u HOME", "env"));
        assert!(matches_prefix_rule("nice -n 5 grep y g", "nice -n 5 grep"));
        for command in ["env cat x", "env -u cat sh -c 'echo x'", "nice grep x", "env bash --rcfile f -ic ls"] {
            assert!(!matches_prefix_rule(command, "env") && !matches_prefix_rule(command, "nice"), "{command:?}");
        }
        assert!(check_prefix_rule("bash -c ls", "bash").is_err());
    }

    #[test]
    fn offers_a_prefix_only_for_plain_read_only_commands() {
        assert_eq!(prefix_rule_offer("git show HEAD~1").as_deref(), Some("git show"));
        assert_eq!(prefix_rule_offer("git --no-pager log").as_deref(), None);
        assert_eq!(prefix_rule_offer("ls -la src").as_deref(), Some("ls"));
        assert_eq!(prefix_rule_offer("cat 'a b'").as_deref(), Some("cat"));
        assert_eq!(prefix_rule_offer("cargo build"), None);
        assert_eq!(prefix_rule_offer("git show --output=x"), None);
        assert_eq!(prefix_rule_offer("git show $(id)"), None);
        assert_eq!(prefix_rule_offer("ls; ls"), None);
        assert_eq!(prefix_rule_offer("'l s' x"), None);
    }
}
