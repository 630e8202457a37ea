//! What to execute for a command line: the program and its words directly when the line has no shell
//! syntax at all (`ls -la src`, `echo ok`, `cargo test`), otherwise `sh -c <line>`. Skipping the shell
//! saves starting one per call; a line that could mean anything more to a shell (quotes, `$`, globs,
//! `~`, redirections, `;`, `&`, `|`, comments, assignments, a builtin) keeps going through it.

use std::path::{Path, PathBuf};

/// Characters a plain word may hold: none of them means anything to a POSIX shell (or to bash).
fn plain_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ',' | ':' | '+' | '@' | '%' | '=')
}

/// Builtins and keywords of `sh` (dash) and bash: as a first word they mean something other than a
/// program on PATH, so such a line goes to the shell.
#[rustfmt::skip]
const SHELL_WORDS: &[&str] = &[
    ".", ":", "[", "[[", "alias", "bg", "bind", "break", "builtin", "caller", "case", "cd", "command",
    "compgen", "complete", "coproc", "continue", "declare", "dirs", "disown", "do", "done", "elif", "else",
    "enable", "esac", "eval", "exec", "exit", "export", "fc", "fg", "fi", "for", "function", "getopts",
    "hash", "help", "history", "if", "in", "jobs", "kill", "let", "local", "logout", "mapfile", "popd",
    "printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "select", "set", "shift", "shopt",
    "source", "suspend", "test", "then", "time", "times", "trap", "type", "typeset", "ulimit", "umask",
    "unalias", "unset", "until", "wait", "while",
];

/// `echo`, `true` and `false` are builtins too, not listed above: their programs on PATH do the same
/// with plain words, except `echo` given an option (dash's takes none but `-n`, `/bin/echo` also `-e`).
fn builtin_differs(name: &str, args: &[&str]) -> bool {
    name == "echo" && args.iter().any(|a| a.starts_with('-'))
}

/// `(program, args)`: the program found on `path` and the line's words when the line is plain, else
/// `sh -c <line>`.
pub(crate) fn argv(line: &str, path: &str) -> (PathBuf, Vec<String>) {
    plain(line, path).unwrap_or_else(|| (PathBuf::from("sh"), vec!["-c".into(), line.into()]))
}

fn plain(line: &str, path: &str) -> Option<(PathBuf, Vec<String>)> {
    if !line.chars().all(|c| c == ' ' || c == '\t' || plain_char(c)) {
        return None;
    }
    let words: Vec<&str> = line.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
    let (&name, args) = words.split_first()?;
    // `NAME=value cmd` is an assignment; a path (`./build.sh`) may be a script without a `#!` line,
    // which only a shell runs.
    if name.contains(['=', '/', '%', '@', ',', ':', '+']) {
        return None;
    }
    if SHELL_WORDS.contains(&name) || builtin_differs(name, args) {
        return None;
    }
    let program = find_on(path, name)?;
    Some((program, args.iter().map(|a| a.to_string()).collect()))
}

/// The first executable file named `name` in the directories of `path`; `None` leaves the line to the
/// shell, which says "not found" and exits 127 as a person expects.
fn find_on(path: &str, name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    path.split(':').map(|dir| Path::new(dir).join(name)).find(|candidate| {
        std::fs::metadata(candidate).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

    fn direct(line: &str) -> Option<Vec<String>> {
        plain(line, PATH).map(|(program, mut args)| {
            args.insert(0, program.file_name().unwrap().to_string_lossy().into_owned());
            args
        })
    }

    #[test]
    fn plain_lines_run_their_program_directly() {
        assert_eq!(direct("echo ok"), Some(vec!["echo".into(), "ok".into()]));
        assert_eq!(direct("  ls   -la\tsrc/main.rs "), Some(vec!["ls".into(), "-la".into(), "src/main.rs".into()]));
        assert_eq!(direct("true"), Some(vec!["true".into()]));
        let (program, _) = plain("echo ok", PATH).unwrap();
        assert!(program.is_absolute(), "found on PATH: {program:?}");
    }

    #[test]
    fn anything_a_shell_would_read_differently_goes_to_the_shell() {
        for line in [
            "echo $HOME",
            "echo 'a b'",
            "echo \"a\"",
            "echo a\\ b",
            "ls *.rs",
            "ls src/?",
            "ls [ab]",
            "cat ~/x",
            "echo a > f",
            "echo a | wc",
            "echo a; ls",
            "echo a & ls",
            "echo a # note",
            "FOO=1 env",
            "cd src",
            "echo -e a",
            "echo -n a",
            "pwd",
            "printf x",
            "test -f a",
            "echo {a,b}",
            "echo `id`",
            "echo $(id)",
            "ls\nrm -rf x",
            "! ls",
            "",
            "   ",
            "no-such-program-anywhere-4711 x",
            "./build.sh",
            "/bin/ls",
        ] {
            assert_eq!(plain(line, PATH), None, "{line:?} must go to the shell");
        }
    }

    #[test]
    fn the_shell_line_is_passed_whole() {
        assert_eq!(argv("echo $HOME", PATH), (PathBuf::from("sh"), vec!["-c".to_string(), "echo $HOME".to_string()]));
    }
}
