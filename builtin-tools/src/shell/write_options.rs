//! The one table of options that make an otherwise read-only command write files or run programs
//! (`git show --output=…`, `find -exec`, `sort -o`, `git -c core.pager=…`). Risk reads it to raise
//! such a command above Low, and prefix rules read it so that such an option never rides on a rule.

/// What an option makes the command do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Creates, changes or deletes files.
    Writes,
    /// Runs another program, or reads configuration that can name one.
    Runs,
}

/// How an option is spelled on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// `--name`, `--name=value`, and every abbreviation (`--out=x`): GNU getopt and git accept
    /// unambiguous prefixes, so any prefix counts.
    Long(&'static str),
    /// A single-dash letter anywhere in a cluster (`-o`, `-rno`, `-ofile`): counting letters of an
    /// option's value too is more than needed, and that is safe.
    Short(char),
    /// A whole word, as find spells its actions (`-exec`, `-delete`).
    Word(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RiskyOption {
    /// The command's name without its directory.
    pub command: &'static str,
    pub spelling: Spelling,
    pub effect: Effect,
}

const fn opt(command: &'static str, spelling: Spelling, effect: Effect) -> RiskyOption {
    RiskyOption { command, spelling, effect }
}

use Effect::{Runs, Writes};
use Spelling::{Long, Short, Word};

/// Every option known to write or run something, for the commands risk otherwise calls read-only.
pub const RISKY_OPTIONS: &[RiskyOption] = &[
    // git, global: configuration and the repository it is read from name pagers, diff drivers and hooks.
    opt("git", Short('c'), Runs),
    opt("git", Long("config-env"), Runs),
    opt("git", Long("exec-path"), Runs),
    opt("git", Long("git-dir"), Runs),
    opt("git", Long("work-tree"), Runs),
    // git, subcommands.
    opt("git", Long("output"), Writes),
    opt("git", Long("output-directory"), Writes),
    opt("git", Short('o'), Writes),
    opt("git", Long("ext-diff"), Runs),
    opt("git", Long("textconv"), Runs),
    opt("git", Long("open-files-in-pager"), Runs),
    opt("git", Short('O'), Runs),
    opt("git", Long("exec"), Runs),
    opt("git", Long("upload-pack"), Runs),
    opt("git", Long("receive-pack"), Runs),
    opt("git", Long("config"), Runs),
    // find's actions.
    opt("find", Word("-exec"), Runs),
    opt("find", Word("-execdir"), Runs),
    opt("find", Word("-ok"), Runs),
    opt("find", Word("-okdir"), Runs),
    opt("find", Word("-delete"), Writes),
    opt("find", Word("-fprint"), Writes),
    opt("find", Word("-fprint0"), Writes),
    opt("find", Word("-fprintf"), Writes),
    opt("find", Word("-fls"), Writes),
    // Text tools.
    opt("sort", Short('o'), Writes),
    opt("sort", Long("output"), Writes),
    opt("sort", Long("compress-program"), Runs),
    opt("sed", Short('i'), Writes),
    opt("sed", Long("in-place"), Writes),
    opt("tree", Short('o'), Writes),
    opt("tree", Long("output"), Writes),
    opt("rg", Long("pre"), Runs),
    opt("rg", Long("hostname-bin"), Runs),
    opt("file", Short('C'), Writes),
    opt("file", Long("compile"), Writes),
    opt("date", Short('s'), Writes),
    opt("date", Long("set"), Writes),
    opt("env", Short('S'), Runs),
    opt("env", Long("split-string"), Runs),
];

/// Whether the table lists options of `command` (its name without the directory).
pub fn has_risky_options(command: &str) -> bool {
    RISKY_OPTIONS.iter().any(|option| option.command == command)
}

/// The first option in `args` that makes `command` write or run something, if any.
pub fn risky_option(command: &str, args: &[String]) -> Option<&'static RiskyOption> {
    let name = command.rsplit('/').next().unwrap_or(command);
    RISKY_OPTIONS
        .iter()
        .filter(|option| option.command == name)
        .find(|option| args.iter().any(|arg| spelled_as(arg, option.spelling)))
}

fn spelled_as(arg: &str, spelling: Spelling) -> bool {
    match spelling {
        Spelling::Word(word) => arg == word,
        Spelling::Long(name) => match arg.strip_prefix("--") {
            Some(given) => {
                let given = given.split_once('=').map_or(given, |(name, _)| name);
                !given.is_empty() && name.starts_with(given)
            }
            None => false,
        },
        Spelling::Short(letter) => {
            arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--") && arg.contains(letter)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn finds_long_options_with_values_and_abbreviations() {
        for words in [
            &["show", "--output=/tmp/x"][..],
            &["show", "--output", "/tmp/x"],
            &["show", "--outp=/tmp/x"],
            &["log", "--ext-diff"],
            &["format-patch", "--output-dir=x"],
            &["-c", "core.pager=sh", "log"],
            &["--git-dir=/tmp/evil", "show"],
            &["grep", "-O", "x"],
            &["grep", "-Ovim", "x"],
        ] {
            assert!(risky_option("git", &args(words)).is_some(), "{words:?}");
        }
        assert_eq!(risky_option("/usr/bin/sort", &args(&["-rno", "out", "in"])).map(|o| o.effect), Some(Writes));
        assert_eq!(risky_option("find", &args(&[".", "-exec", "ls", ";"])).map(|o| o.effect), Some(Runs));
    }

    #[test]
    fn leaves_harmless_options_alone() {
        for words in [
            &["show", "HEAD"][..],
            &["show", "--output-indicator-new=+"],
            &["log", "--no-ext-diff", "--oneline"],
            &["show", "--stat", "--", "src/main.rs"],
        ] {
            assert_eq!(risky_option("git", &args(words)), None, "{words:?}");
        }
        assert_eq!(risky_option("find", &args(&[".", "-name", "*.rs"])), None);
        assert_eq!(risky_option("ls", &args(&["-o"])), None);
    }
}
