//! Commands that run another command (`env`, `nice -n 5`, `timeout 10`, `xargs -I R`, `command`, ...):
//! which of a wrapper's words are its options and their values, and which word names the program it
//! runs. Each wrapper is read the way its own option parser reads it (GNU coreutils, findutils and
//! time, util-linux, dash's builtins: all stop at the first operand). An option the table does not
//! know, an abbreviated long option, a word the shell computes, or a form the reader does not follow
//! (`env -S`, `env -a`, `ionice -p`) makes the reading [`End::Unknown`]: approval asks.

/// How an option takes its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arg {
    None,
    /// Attached (`-uNAME`, `--unset=NAME`) or the next word.
    Required,
    /// Only attached (`xargs -i{}`, `--replace=R`); absent otherwise.
    Optional,
}

/// What an option means for the reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Means {
    /// Nothing the reader needs.
    Plain,
    /// The wrapper runs no command (`--help`, `command -v`, `chrt --max`).
    Nothing,
    /// Not followed: what runs, or where its words come from, is not known (`env -S`, `ionice -p`).
    Unknown,
    /// The wrapper writes a file of its own (`time -o FILE`).
    Writes,
    /// Input replaces this string in the command's words (`xargs -I R`; `{}` without a value).
    Replace,
    /// Lines per command (`xargs -L`, `-l`): input is appended again, no longer replaced.
    Lines,
    /// Words per command (`xargs -n N`): as `Lines`, unless N is 1.
    MaxArgs,
}

#[derive(Debug)]
struct Opt {
    /// `'\0'`: no short form.
    short: char,
    /// `""`: no long form.
    long: &'static str,
    arg: Arg,
    means: Means,
}

const fn o(short: char, long: &'static str, arg: Arg, means: Means) -> Opt {
    Opt { short, long, arg, means }
}

use Arg::{None as NoArg, Optional, Required};
use Means::{Lines, MaxArgs, Nothing, Plain, Replace, Unknown, Writes};

/// One wrapper's grammar.
#[derive(Debug)]
struct Wrapper {
    name: &'static str,
    options: &'static [Opt],
    /// Operands before the command: timeout's DURATION, chrt's PRIORITY, taskset's MASK.
    operands: usize,
    /// The operand must be a number (a newer chrt takes a non-number as the command).
    numeric_operand: bool,
    /// Words holding `=` before the command set its environment (env).
    assignments: bool,
    /// A lone `-` means `-i` and ends the options (env).
    dash_is_option: bool,
    /// `-NUM`, `--NUM`, `-+NUM` is an adjustment (nice's old form).
    numeric_options: bool,
    /// Passes words read from input to the command (xargs); without a command it runs `echo`.
    input: bool,
}

const fn wrapper(name: &'static str, options: &'static [Opt]) -> Wrapper {
    Wrapper {
        name,
        options,
        operands: 0,
        numeric_operand: false,
        assignments: false,
        dash_is_option: false,
        numeric_options: false,
        input: false,
    }
}

const HELP: Opt = o('\0', "help", NoArg, Nothing);
const VERSION: Opt = o('\0', "version", NoArg, Nothing);
/// `-h`/`--help` and `-V`/`--version`, as util-linux and GNU time spell them.
const SHORT_HELP: Opt = o('h', "help", NoArg, Nothing);
const SHORT_VERSION: Opt = o('V', "version", NoArg, Nothing);

#[rustfmt::skip]
const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        assignments: true,
        dash_is_option: true,
        ..wrapper("env", &[
            o('i', "ignore-environment", NoArg, Plain), o('0', "null", NoArg, Plain),
            o('u', "unset", Required, Plain), o('C', "chdir", Required, Plain),
            o('S', "split-string", Required, Unknown), o('a', "argv0", Required, Unknown),
            o('v', "debug", NoArg, Plain), o('\0', "block-signal", Optional, Plain),
            o('\0', "default-signal", Optional, Plain), o('\0', "ignore-signal", Optional, Plain),
            o('\0', "list-signal-handling", NoArg, Plain), HELP, VERSION,
        ])
    },
    Wrapper {
        numeric_options: true,
        ..wrapper("nice", &[o('n', "adjustment", Required, Plain), HELP, VERSION])
    },
    Wrapper {
        operands: 1,
        ..wrapper("timeout", &[
            o('f', "foreground", NoArg, Plain), o('k', "kill-after", Required, Plain),
            o('p', "preserve-status", NoArg, Plain), o('s', "signal", Required, Plain),
            o('v', "verbose", NoArg, Plain), HELP, VERSION,
        ])
    },
    wrapper("nohup", &[HELP, VERSION]),
    wrapper("stdbuf", &[
        o('i', "input", Required, Plain), o('o', "output", Required, Plain), o('e', "error", Required, Plain),
        HELP, VERSION,
    ]),
    wrapper("setsid", &[
        o('c', "ctty", NoArg, Plain), o('f', "fork", NoArg, Plain), o('w', "wait", NoArg, Plain),
        SHORT_HELP, SHORT_VERSION,
    ]),
    wrapper("ionice", &[
        o('c', "class", Required, Plain), o('n', "classdata", Required, Plain), o('t', "ignore", NoArg, Plain),
        o('p', "pid", Required, Unknown), o('P', "pgid", Required, Unknown), o('u', "uid", Required, Unknown),
        SHORT_HELP, SHORT_VERSION,
    ]),
    Wrapper {
        operands: 1,
        numeric_operand: true,
        ..wrapper("chrt", &[
            o('a', "all-tasks", NoArg, Plain), o('b', "batch", NoArg, Plain), o('d', "deadline", NoArg, Plain),
            o('f', "fifo", NoArg, Plain), o('i', "idle", NoArg, Plain), o('o', "other", NoArg, Plain),
            o('r', "rr", NoArg, Plain), o('R', "reset-on-fork", NoArg, Plain),
            o('T', "sched-runtime", Required, Plain), o('P', "sched-period", Required, Plain),
            o('D', "sched-deadline", Required, Plain), o('v', "verbose", NoArg, Plain),
            o('m', "max", NoArg, Nothing), o('p', "pid", NoArg, Unknown),
            SHORT_HELP, SHORT_VERSION,
        ])
    },
    Wrapper {
        operands: 1,
        ..wrapper("taskset", &[
            o('a', "all-tasks", NoArg, Plain), o('c', "cpu-list", NoArg, Plain), o('p', "pid", NoArg, Unknown),
            SHORT_HELP, SHORT_VERSION,
        ])
    },
    wrapper("time", &[
        o('a', "append", NoArg, Plain), o('f', "format", Required, Plain), o('o', "output", Required, Writes),
        o('p', "portability", NoArg, Plain), o('q', "quiet", NoArg, Plain), o('v', "verbose", NoArg, Plain),
        SHORT_HELP, SHORT_VERSION,
    ]),
    Wrapper {
        input: true,
        ..wrapper("xargs", &[
            o('0', "null", NoArg, Plain), o('a', "arg-file", Required, Plain), o('d', "delimiter", Required, Plain),
            o('E', "", Required, Plain), o('e', "eof", Optional, Plain), o('I', "", Required, Replace),
            o('i', "replace", Optional, Replace), o('L', "", Required, Lines), o('l', "max-lines", Optional, Lines),
            o('n', "max-args", Required, MaxArgs), o('o', "open-tty", NoArg, Plain), o('p', "interactive", NoArg, Plain),
            o('r', "no-run-if-empty", NoArg, Plain), o('s', "max-chars", Required, Plain),
            o('t', "verbose", NoArg, Plain), o('\0', "show-limits", NoArg, Plain), o('x', "exit", NoArg, Plain),
            o('P', "max-procs", Required, Plain), o('\0', "process-slot-var", Required, Plain), HELP, VERSION,
        ])
    },
    // Shell builtins (dash's and bash's): `command -p` searches a default PATH, `-v`/`-V` only print.
    wrapper("command", &[o('p', "", NoArg, Plain), o('v', "", NoArg, Nothing), o('V', "", NoArg, Nothing)]),
    // dash's `exec` takes no option; bash's `-a NAME` renames the program (a multi-call binary
    // then becomes another tool), `-c` and `-l` change its environment: none is followed.
    wrapper("exec", &[]),
    wrapper("builtin", &[]),
    // The applet is the program: `busybox rm -rf x` is rm.
    wrapper("busybox", &[]),
];

/// Whether `name` (without its directory) is a command that runs another command.
pub fn is_wrapper(name: &str) -> bool {
    find(name).is_some()
}

fn find(name: &str) -> Option<&'static Wrapper> {
    WRAPPERS.iter().find(|w| w.name == name)
}

/// Wrappers in front of wrappers are read this many deep; deeper is unknown.
const MAX_WRAPPERS: usize = 16;

/// How a command's words end, read through its wrappers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The last of [`Chain::programs`] is the program that runs, with the words after it.
    Runs,
    /// The last wrapper runs no command (`env`, `nice`, `env -u X`, `nice --help`), or fails for
    /// want of one (`timeout 5`).
    Nothing,
    /// xargs without a command runs `echo` with the words it reads.
    Echo,
    /// The reader cannot tell what runs: ask.
    Unknown,
    /// A word the shell computes (`$x`, `` `…` ``, a glob) stands where a wrapper reads an option or
    /// the program's name: anything may run.
    Computed,
    /// More wrappers in a row than the reader follows (`env env env …`).
    TooDeep,
}

/// Where xargs feeds words it reads (from its input or `-a FILE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The index of the xargs word: every program after it may get words from input. (An xargs
    /// after it makes the reading unknown.)
    pub xargs: usize,
    /// The string input replaces in the command's words (`-I R`), if any.
    pub replace: Option<String>,
}

/// A command's words read through the wrappers in front of its program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// The index of each word that names a program the line starts: the wrappers, then (when `end`
    /// is [`End::Runs`]) the program that finally runs. The first is always 0.
    pub programs: Vec<usize>,
    pub end: End,
    /// A wrapper writes a file of its own (`time -o FILE`).
    pub writes: bool,
    /// A wrapper sets the program's environment (`env NAME=value`): PATH, LD_PRELOAD, BASH_ENV, GIT_*.
    pub environment: bool,
    pub input: Option<Input>,
}

impl Chain {
    /// The index of the program that finally runs, when the reader knows it.
    pub fn program(&self) -> Option<usize> {
        match self.end {
            End::Runs => self.programs.last().copied(),
            _ => None,
        }
    }
}

/// A word the shell may turn into something else (or into several words): an expansion, a
/// substitution, a glob, a brace or a tilde, as the reader's display form keeps them.
fn computed(word: &str) -> bool {
    word.contains(['$', '`', '*', '?', '{', '}']) || word.starts_with('~') || (word.contains('[') && word != "[")
}

fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Reads `words` (a simple command's, assignments removed) through the wrappers in front of its
/// program. A command that is not a wrapper is its own program.
pub fn read_chain(words: &[String]) -> Chain {
    let mut chain = Chain { programs: Vec::new(), end: End::Nothing, writes: false, environment: false, input: None };
    let mut i = 0;
    let end = loop {
        let Some(word) = words.get(i) else { break End::Nothing };
        if computed(word) {
            break End::Computed;
        }
        chain.programs.push(i);
        let Some(w) = find(base(word)) else { break End::Runs };
        if chain.programs.len() > MAX_WRAPPERS {
            break End::TooDeep;
        }
        // xargs under xargs: the inner one reads the outer one's words, not followed.
        if w.input && chain.input.is_some() {
            break End::Unknown;
        }
        let read = read_options(w, &words[i + 1..]);
        chain.writes |= read.writes;
        chain.environment |= read.environment;
        if w.input {
            chain.input = Some(Input { xargs: i, replace: read.replace.clone() });
        }
        match read.next {
            Next::Command(at) => i += 1 + at,
            Next::Nothing if w.input => break End::Echo,
            Next::Nothing => break End::Nothing,
            Next::Unknown => break End::Unknown,
            Next::Computed => break End::Computed,
        }
    };
    chain.end = end;
    if let Some(input) = &chain.input {
        // Words read from input go to the end of the command: to a wrapper that runs nothing yet, they
        // may name the program (`xargs env`, `xargs nice`).
        let last = chain.programs.last().copied().unwrap_or(0);
        let open_wrapper = matches!(chain.end, End::Nothing | End::Echo) && last != input.xargs;
        // Input replaces the string in every word it occurs in: in a wrapper's option or the program's
        // name it may make any program run (`xargs -I R R`, `xargs -I R env R`).
        let replaced = input.replace.as_deref().is_some_and(|r| {
            let after = chain.programs.iter().copied().find(|&at| at > input.xargs);
            let through = if chain.end == End::Runs { last } else { words.len().saturating_sub(1) };
            after.and_then(|from| words.get(from..=through)).is_some_and(|ws| ws.iter().any(|w| w.contains(r)))
        });
        if matches!(chain.end, End::Runs | End::Nothing | End::Echo) && (open_wrapper || replaced) {
            chain.end = End::Unknown;
        }
    }
    chain
}

enum Next {
    /// The command's name is at this index of the wrapper's arguments.
    Command(usize),
    Nothing,
    Unknown,
    Computed,
}

struct ReadOptions {
    next: Next,
    writes: bool,
    environment: bool,
    replace: Option<String>,
}

/// Reads one wrapper's arguments the way its getopt does (options stop at the first operand).
fn read_options(w: &Wrapper, args: &[String]) -> ReadOptions {
    let mut out = ReadOptions { next: Next::Nothing, writes: false, environment: false, replace: None };
    let mut i = 0;
    let mut options_end = false;
    // Applies an option's meaning; `false` ends the reading (with `out.next` set).
    fn apply(means: Means, value: Option<&str>, out: &mut ReadOptions) -> bool {
        match means {
            Plain => true,
            Writes => {
                out.writes = true;
                true
            }
            Replace => {
                out.replace = Some(value.filter(|v| !v.is_empty()).unwrap_or("{}").to_string());
                true
            }
            // findutils: the last of `-I`, `-L` and `-n` (but `-n 1`) decides how input is passed.
            Lines => {
                out.replace = None;
                true
            }
            MaxArgs => {
                if value.and_then(|v| v.parse::<u64>().ok()) != Some(1) {
                    out.replace = None;
                }
                true
            }
            Nothing => {
                out.next = Next::Nothing;
                false
            }
            Unknown => {
                out.next = Next::Unknown;
                false
            }
        }
    }
    while !options_end {
        let Some(arg) = args.get(i) else { return out };
        if computed(arg) {
            out.next = Next::Computed;
            return out;
        }
        if arg == "--" {
            i += 1;
            break;
        }
        if arg == "-" && w.dash_is_option {
            i += 1;
            options_end = true;
            continue;
        }
        if w.numeric_options && is_numeric_option(arg) {
            i += 1;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            // Exact names only: getopt takes any unambiguous abbreviation, but which are unambiguous
            // depends on the version installed.
            let Some(opt) = w.options.iter().find(|o| !o.long.is_empty() && o.long == name) else {
                out.next = Next::Unknown;
                return out;
            };
            let value = match (opt.arg, attached) {
                (NoArg, Some(_)) => {
                    out.next = Next::Unknown;
                    return out;
                }
                (NoArg, None) | (Optional, None) => None,
                (Optional | Required, Some(v)) => Some(v),
                (Required, None) => {
                    i += 1;
                    match args.get(i) {
                        Some(v) if computed(v) => {
                            out.next = Next::Computed;
                            return out;
                        }
                        Some(v) => Some(v.as_str()),
                        None => {
                            out.next = Next::Unknown;
                            return out;
                        }
                    }
                }
            };
            if !apply(opt.means, value, &mut out) {
                return out;
            }
            i += 1;
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (at, letter) in cluster.char_indices() {
                let Some(opt) = w.options.iter().find(|o| o.short != '\0' && o.short == letter) else {
                    out.next = Next::Unknown;
                    return out;
                };
                let rest = &cluster[at + letter.len_utf8()..];
                let (value, last) = match opt.arg {
                    NoArg => (None, false),
                    Optional => (Some(rest), true),
                    Required if !rest.is_empty() => (Some(rest), true),
                    Required => {
                        i += 1;
                        match args.get(i) {
                            Some(v) if computed(v) => {
                                out.next = Next::Computed;
                                return out;
                            }
                            Some(v) => (Some(v.as_str()), true),
                            None => {
                                out.next = Next::Unknown;
                                return out;
                            }
                        }
                    }
                };
                if !apply(opt.means, value, &mut out) {
                    return out;
                }
                if last {
                    break;
                }
            }
            i += 1;
            continue;
        }
        options_end = true;
    }
    if w.assignments {
        while args.get(i).is_some_and(|a| a.contains('=')) {
            out.environment = true;
            i += 1;
        }
    }
    for _ in 0..w.operands {
        match args.get(i) {
            None => return out,
            Some(operand) if w.numeric_operand && !operand.chars().all(|c| c.is_ascii_digit()) => {
                out.next = Next::Unknown;
                return out;
            }
            Some(_) => i += 1,
        }
    }
    match args.get(i) {
        Some(word) if computed(word) => out.next = Next::Computed,
        Some(_) => out.next = Next::Command(i),
        None => {}
    }
    out
}

/// nice's `-5`, `--5`, `-+5`: an adjustment (a malformed number makes nice fail, running nothing).
fn is_numeric_option(arg: &str) -> bool {
    let Some(rest) = arg.strip_prefix('-') else { return false };
    let rest = rest.strip_prefix(['-', '+']).unwrap_or(rest);
    rest.starts_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> (Vec<String>, End) {
        let words: Vec<String> = line.split(' ').map(String::from).collect();
        let chain = read_chain(&words);
        (chain.programs.iter().map(|&i| words[i].clone()).collect(), chain.end)
    }

    #[track_caller]
    fn runs(line: &str, programs: &[&str]) {
        assert_eq!(read(line), (programs.iter().map(|p| p.to_string()).collect(), End::Runs), "{line:?}");
    }

    #[track_caller]
    fn unknown(line: &str) {
        assert!(
            matches!(read(line).1, End::Unknown | End::Computed | End::TooDeep),
            "{line:?} must be unknown: {:?}",
            read(line)
        );
    }

    #[test]
    fn option_values_are_not_the_command() {
        runs("env -u cat sh -c x", &["env", "sh"]);
        runs("env -ucat sh", &["env", "sh"]);
        runs("env --unset=cat sh", &["env", "sh"]);
        runs("env --unset cat sh", &["env", "sh"]);
        runs("env -iu cat sh", &["env", "sh"]);
        runs("env -C / -- ls", &["env", "ls"]);
        runs("env - -u ls", &["env", "-u"]);
        runs("env A=1 B=2 ls", &["env", "ls"]);
        runs("xargs -E cat sh -c x", &["xargs", "sh"]);
        runs("xargs -a cat sh", &["xargs", "sh"]);
        runs("xargs -I R sh -c x", &["xargs", "sh"]);
        runs("xargs -i ls", &["xargs", "ls"]);
        runs("xargs -e ls", &["xargs", "ls"]);
        runs("xargs -0n 1 -P2 ls", &["xargs", "ls"]);
        runs("time -o out -f %e ls", &["time", "ls"]);
        runs("timeout -s KILL -k 1 5 ls", &["timeout", "ls"]);
        runs("timeout 5 nice -n 3 ls", &["timeout", "nice", "ls"]);
        runs("nice -5 ls", &["nice", "ls"]);
        runs("nice --10 ls", &["nice", "ls"]);
        runs("stdbuf -oL -e 0 ls", &["stdbuf", "ls"]);
        runs("ionice -c 3 -n 7 ls", &["ionice", "ls"]);
        runs("chrt -o 0 ls", &["chrt", "ls"]);
        runs("taskset -c 0 ls", &["taskset", "ls"]);
        runs("setsid -fw ls", &["setsid", "ls"]);
        runs("nohup -- ls", &["nohup", "ls"]);
        runs("command -p ls", &["command", "ls"]);
        runs("busybox rm -rf x", &["busybox", "rm"]);
    }

    #[test]
    fn what_the_reader_does_not_follow_is_unknown() {
        for line in [
            "env -S ls",
            "env -a sh busybox",
            "env --uns=X ls",
            "env -Z ls",
            "env --ignore-environment=x ls",
            "xargs -I R R",
            "xargs -I R env R",
            "xargs -IX nice X",
            "xargs env",
            "xargs nice -n 1",
            "xargs xargs -I R R",
            "ionice -p 1 ls",
            "chrt -o cat ls",
            "chrt -p 0 1",
            "taskset -p 1 ls",
            "exec -a x ls",
            "nohup -x ls",
            "env $X ls",
            "env -u $X ls",
            "nice *",
            "env -u",
        ] {
            unknown(line);
        }
    }

    #[test]
    fn wrappers_without_a_command_run_nothing() {
        assert_eq!(read("env").1, End::Nothing);
        assert_eq!(read("env -u X A=1").1, End::Nothing);
        assert_eq!(read("nice --help ls").1, End::Nothing);
        assert_eq!(read("command -v ls").1, End::Nothing);
        assert_eq!(read("xargs").1, End::Echo);
        assert_eq!(read("xargs -0").1, End::Echo);
    }

    #[test]
    fn effects_of_the_wrappers_are_kept() {
        let words = |l: &str| l.split(' ').map(String::from).collect::<Vec<_>>();
        assert!(read_chain(&words("time -o f ls")).writes);
        assert!(read_chain(&words("env PATH=. ls")).environment);
        let chain = read_chain(&words("env xargs -I R ls R"));
        assert_eq!(chain.input, Some(Input { xargs: 1, replace: Some("R".into()) }));
        assert_eq!(chain.program(), Some(4));
    }
}
