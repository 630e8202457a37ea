//! The command-line reader proven against the real shell: thousands of seeded, generated command
//! strings full of shell metacharacters go to `plain_commands`; every string it accepts as plain
//! literal commands is run by `dash`, with each command name bound to a function that prints its argv,
//! and the test fails on any string where dash runs other words than the reader said (or rejects it).
//!
//! The wrapper reader is proven the same way: thousands of generated wrapper commands (`env -u cat sh`,
//! `xargs -E x -I R ls R`, `timeout -s KILL 5 nice -n 3 cat`, options with values attached or apart,
//! long forms, clusters, `--`, unknown and abbreviated options, shells with options) run under dash
//! with a PATH of recording stubs: each wrapper's stub records its words and hands over to the real
//! wrapper, every other program's stub only records. Wherever the reader says which programs run, the
//! recorded ones must be exactly those, with those words; a wrapper the reader does not follow, or a
//! shell with any option but a plain `-c`, must never be Low.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use warden_tools::shell::{plain_commands, read_chain, shell_risk, split_command, End, Joiner, PlainCommand};
use warden_tools::Risk;

/// Fixed, so a failure shows the same string on every run and every machine.
const SEED: u64 = 0x5EED_0009_DA54;
/// Generated command lines per run.
const CASES: usize = 20_000;
/// Accepted lines per dash invocation.
const BATCH: usize = 1_500;

/// splitmix64: small, seeded, and the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const NAMES: &[&str] = &["git", "ls", "cat", "echo", "printf", "x", "a_b", "grep", "find", "test", "sort", "f1"];
const WORDS: &[&str] = &[
    "show",
    "HEAD",
    "HEAD~1",
    "--output=x",
    "-o",
    "--",
    "-",
    "a",
    "b",
    "ab",
    "x",
    "main.rs",
    "if",
    "then",
    "fi",
    "do",
    "done",
    "for",
    "in",
    "case",
    "esac",
    "while",
    "{",
    "}",
    "!",
    "time",
    "function",
    "[[",
    "]]",
    "a=b",
    "--ext-diff",
    "-exec",
    "é",
    "\u{a0}",
    "%s",
    "%",
    "\\",
    "\\\\",
    "a.b",
    "@",
    "^",
    ",",
    ".",
    "/",
    ":",
    "+",
];
/// Single characters that mean something to a shell somewhere.
const META: &[&str] = &[
    "'", "\"", "\\", "$", "`", "(", ")", "{", "}", ";", "&", "|", "<", ">", "*", "?", "[", "]", "~", "#", "=", "\n",
    "\t", " ", "!", "%", "^", ",", ":", "-", "@",
];
const INSIDE_QUOTES: &[&str] = &[
    "a", "b", " ", "\t", "\n", "$", "`", "\\", "\"", "'", "x y", "*", "?", "~", "#", ";", "&", "|", "(", ")", "{", "}",
    "$x", "$(x)", "\\$", "\\\"", "\\\\", "\\`", "\\\n", "\\n", "\\a", "é", "${x}",
];
const SEPARATORS: &[&str] = &[" ", " ", " ", "  ", "\t", " \\\n", "\\\n"];
const JOINERS: &[&str] = &["; ", ";", " && ", "&&", " || ", "||", "\n", " | ", " & ", ";\n", " ;; ", "\n\n"];

fn fragment(rng: &mut Rng) -> String {
    match rng.below(14) {
        0..=3 => rng.pick(WORDS).to_string(),
        4 => rng.pick(META).to_string(),
        5 => format!("'{}'", quoted_body(rng, |s| !s.contains('\''))),
        6 | 7 => format!("\"{}\"", quoted_body(rng, |s| s != "\"" && s != "\\")),
        8 => format!("\\{}", rng.pick(META)),
        9 => format!("$'{}'", quoted_body(rng, |s| !s.contains('\''))),
        10 => format!("$\"{}\"", quoted_body(rng, |s| s != "\"" && s != "\\")),
        11 => rng.pick(NAMES).to_string(),
        12 => format!("{}{}", rng.pick(WORDS), rng.pick(META)),
        _ => {
            let n = 1 + rng.below(3);
            (0..n).map(|_| rng.pick(INSIDE_QUOTES)).collect()
        }
    }
}

fn quoted_body(rng: &mut Rng, allowed: impl Fn(&str) -> bool) -> String {
    let n = rng.below(4);
    let mut body = String::new();
    while body.chars().count() < n * 2 {
        let piece = rng.pick(INSIDE_QUOTES);
        if allowed(piece) {
            body.push_str(piece);
        }
    }
    body
}

fn word(rng: &mut Rng) -> String {
    let n = 1 + rng.below(3);
    (0..n).map(|_| fragment(rng)).collect()
}

fn command_name(rng: &mut Rng) -> String {
    let name = rng.pick(NAMES);
    match rng.below(10) {
        0 => format!("'{name}'"),
        1 => format!("\"{name}\""),
        2 => {
            let (head, tail) = name.split_at(1);
            format!("{head}\\{tail}")
        }
        3 => word(rng),
        _ => name.to_string(),
    }
}

fn simple_command(rng: &mut Rng) -> String {
    let mut out = command_name(rng);
    for _ in 0..rng.below(5) {
        out.push_str(rng.pick(SEPARATORS));
        out.push_str(&word(rng));
    }
    if rng.chance(10) {
        out.push_str(" #");
        out.push_str(&word(rng));
    }
    out
}

fn command_line(rng: &mut Rng) -> String {
    let mut out = String::new();
    if rng.chance(5) {
        out.push_str(rng.pick(SEPARATORS));
    }
    out.push_str(&simple_command(rng));
    while rng.chance(30) {
        out.push_str(rng.pick(JOINERS));
        out.push_str(&simple_command(rng));
    }
    if rng.chance(10) {
        out.push_str(rng.pick(&[";", " ", "\t", "\\", "&"]));
    }
    out
}

/// Dash's special builtins (found before functions) and names the test's own functions use.
const NOT_TESTABLE: &[&str] = &[
    "break", ":", ".", "continue", "eval", "exec", "exit", "export", "readonly", "return", "set", "shift", "times",
    "trap", "unset", "command", "local",
];

fn testable_name(name: &str) -> bool {
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid && !name.starts_with("__") && !NOT_TESTABLE.contains(&name)
}

/// The calls dash should make: every function returns `$# % 2` (its name counted), so `&&` and `||`
/// both get exercised.
fn expected_calls(commands: &[PlainCommand]) -> Vec<Vec<String>> {
    let mut status = 0;
    let mut calls = Vec::new();
    for command in commands {
        let runs = match command.joiner {
            Joiner::Sequence => true,
            Joiner::And => status == 0,
            Joiner::Or => status != 0,
        };
        if runs {
            status = command.argv.len() % 2;
            calls.push(command.argv.clone());
        }
    }
    calls
}

fn dash() -> Option<&'static str> {
    ["/bin/dash", "/usr/bin/dash"].into_iter().find(|p| Path::new(p).exists())
}

/// Runs one batch in dash; gives the calls of each case as dash made them.
fn run_in_dash(dash: &str, dir: &Path, cases: &[(String, Vec<PlainCommand>)]) -> (Vec<Vec<Vec<String>>>, String) {
    let names: BTreeSet<&str> = cases.iter().flat_map(|(_, cmds)| cmds.iter().map(|c| c.argv[0].as_str())).collect();
    let mut script = String::from(
        "__p() { command printf '%s\\001' \"$@\"; command printf '\\002'; return $(($# % 2)); }\n\
         __sep() { command printf '\\003'; }\n",
    );
    for name in names {
        script.push_str(&format!("{name}() {{ __p {name} \"$@\"; }}\n"));
    }
    script.push_str("__sep\n");
    for (line, _) in cases {
        script.push_str(line);
        script.push_str("\n__sep\n");
    }
    let script_path = dir.join("cases.sh");
    std::fs::write(&script_path, &script).expect("write the script");
    let out = Command::new(dash)
        .arg(&script_path)
        .current_dir(dir.join("cwd"))
        .env_clear()
        .env("PATH", "/nonexistent-warden-path")
        .env("HOME", "/home-of-warden-test")
        .stdin(Stdio::null())
        .output()
        .expect("run dash");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut chunks: Vec<&str> = stdout.split('\u{3}').collect();
    chunks.remove(0); // before the first separator
    chunks.pop(); // after the last one
    let per_case = chunks
        .iter()
        .map(|chunk| {
            chunk
                .split_terminator('\u{2}')
                .map(|call| call.split_terminator('\u{1}').map(str::to_string).collect())
                .collect()
        })
        .collect();
    (per_case, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn plain_commands_split_exactly_as_dash_does() {
    let Some(dash) = dash() else {
        panic!("dash is needed for this test (apt-get install dash)");
    };
    let dir = tempfile::tempdir().expect("temp dir");
    // Files for globs to find, should the reader ever take a pattern for a literal.
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).expect("cwd");
    for file in ["a", "b", "ab", "x", "git", "-o", "main.rs", "é"] {
        std::fs::write(cwd.join(file), "").expect("glob bait");
    }

    let mut rng = Rng(SEED);
    let mut accepted = Vec::new();
    let mut accepted_total = 0;
    let mut untestable = 0;
    for _ in 0..CASES {
        let line = command_line(&mut rng);
        let Some(commands) = plain_commands(&line) else { continue };
        if commands.is_empty() {
            continue;
        }
        accepted_total += 1;
        // The risk classifier must see exactly the same commands.
        let segments = split_command(&line).expect("a plain line is readable for risk too");
        let words: Vec<&Vec<String>> = segments.iter().map(|s| &s.words).collect();
        let argvs: Vec<&Vec<String>> = commands.iter().map(|c| &c.argv).collect();
        assert_eq!(words, argvs, "split_command and plain_commands disagree on {line:?}");
        if commands.iter().all(|c| testable_name(&c.argv[0])) {
            accepted.push((line, commands));
        } else {
            untestable += 1;
        }
    }

    let mut compared = 0;
    for batch in accepted.chunks(BATCH) {
        let (calls, stderr) = run_in_dash(dash, dir.path(), batch);
        for (i, (line, commands)) in batch.iter().enumerate() {
            let expected = expected_calls(commands);
            match calls.get(i) {
                Some(actual) if *actual == expected => compared += 1,
                actual => panic!(
                    "the reader accepted {line:?} as {expected:?}, but dash ran {actual:?}\ndash said: {}",
                    stderr.lines().take(5).collect::<Vec<_>>().join("\n")
                ),
            }
        }
        assert_eq!(calls.len(), batch.len(), "dash ran more cases than given; stderr: {stderr}");
    }
    let _ = std::io::stdout().flush();
    println!(
        "{CASES} generated command lines: {accepted_total} accepted as plain ({untestable} with a command name \
         dash cannot bind to a function), {compared} split identically by dash"
    );
    assert!(compared >= 1_000, "too few accepted lines to prove anything: {compared}");
}

/// Generated wrapper commands per run.
const WRAPPER_CASES: usize = 12_000;
/// Wrapper cases per dash invocation.
const WRAPPER_BATCH: usize = 2_000;
const WRAPPER_SEED: u64 = 0x5EED_0037_0001;

/// A wrapper as the generator knows it: options by kind, each a short letter, a long name, or both
/// (`"u|unset"`). The generator's own table: the real program is the oracle, not this.
struct Gen {
    name: &'static str,
    flags: &'static [&'static str],
    /// Options with a value, and values to give them.
    valued: &'static [(&'static str, &'static [&'static str])],
    /// Options with an optional value (attached only), and values.
    optional: &'static [(&'static str, &'static [&'static str])],
    /// Options after which nothing runs (`--help`); never generated with an unknown option.
    nothing: &'static [&'static str],
    /// Operands before the command, if any, to pick from.
    operand: &'static [&'static str],
    builtin: bool,
}

const NAMES_AS_VALUES: &[&str] = &["cat", "ls", "sh", "echo", "R", "x1"];

#[rustfmt::skip]
const GENS: &[Gen] = &[
    Gen { name: "env", flags: &["i|ignore-environment", "v|debug", "|list-signal-handling"],
        valued: &[("u|unset", &["cat", "ls", "HOME", "X"]), ("C|chdir", &[".", "sub", "missing"]),
                  ("S|split-string", &["cat", "'ls a'"]), ("a|argv0", &["cat", "sh"])],
        optional: &[("|block-signal", &["INT", ""]), ("|default-signal", &["TERM", ""])],
        nothing: &["|help", "|version"], operand: &[], builtin: false },
    Gen { name: "xargs", flags: &["0|null", "r|no-run-if-empty", "t|verbose", "x|exit", "|show-limits"],
        valued: &[("a|arg-file", &["cat", "input.txt", "missing"]), ("E", &["cat", "in1", "ls"]),
                  ("I", &["R", "cat", "ls", "in"]), ("L", &["1", "2"]), ("n|max-args", &["1", "2"]),
                  ("s|max-chars", &["1000", "cat"]), ("P|max-procs", &["1"]), ("d|delimiter", &["x", "n"]),
                  ("|process-slot-var", &["SLOT", "cat"])],
        optional: &[("e|eof", &["cat", "in2", ""]), ("i|replace", &["R", "cat", ""]), ("l|max-lines", &["1", ""])],
        nothing: &["|help", "|version"], operand: &[], builtin: false },
    Gen { name: "timeout", flags: &["f|foreground", "p|preserve-status", "v|verbose"],
        valued: &[("s|signal", &["TERM", "KILL", "cat", "0"]), ("k|kill-after", &["1", "2s", "cat"])],
        optional: &[], nothing: &["|help", "|version"], operand: &["5", "10s", "1m", "cat", "0.5"], builtin: false },
    Gen { name: "nice", flags: &["-5", "--3", "-+2", "-10"], valued: &[("n|adjustment", &["1", "5", "cat", "-2"])],
        optional: &[], nothing: &["|help", "|version"], operand: &[], builtin: false },
    Gen { name: "stdbuf", flags: &[],
        valued: &[("o|output", &["L", "0", "1K", "cat"]), ("e|error", &["L", "0"]), ("i|input", &["0", "L"])],
        optional: &[], nothing: &["|help", "|version"], operand: &[], builtin: false },
    Gen { name: "ionice", flags: &["t|ignore"],
        valued: &[("c|class", &["2", "3", "idle", "cat"]), ("n|classdata", &["0", "7", "cat"])],
        optional: &[], nothing: &["h|help", "V|version"], operand: &[], builtin: false },
    Gen { name: "chrt", flags: &["o|other", "b|batch", "i|idle", "v|verbose", "R|reset-on-fork"],
        valued: &[("T|sched-runtime", &["1000"]), ("P|sched-period", &["1000"])],
        optional: &[], nothing: &["m|max", "h|help", "V|version"], operand: &["0", "cat", "1"], builtin: false },
    Gen { name: "taskset", flags: &["c|cpu-list", "a|all-tasks"], valued: &[], optional: &[],
        nothing: &["h|help", "V|version"], operand: &["1", "0x1", "0", "cat"], builtin: false },
    Gen { name: "setsid", flags: &["w|wait"], valued: &[], optional: &[],
        nothing: &["h|help", "V|version"], operand: &[], builtin: false },
    Gen { name: "nohup", flags: &[], valued: &[], optional: &[], nothing: &["|help", "|version"],
        operand: &[], builtin: false },
    Gen { name: "time", flags: &["a|append", "p|portability", "q|quiet", "v|verbose"],
        valued: &[("o|output", &["out.txt", "cat"]), ("f|format", &["%e", "cat"])],
        optional: &[], nothing: &["h|help", "V|version"], operand: &[], builtin: false },
    Gen { name: "command", flags: &[], valued: &[], optional: &[], nothing: &["v", "V"], operand: &[], builtin: true },
    Gen { name: "exec", flags: &[], valued: &[], optional: &[], nothing: &[], operand: &[], builtin: true },
];

/// Programs the stubs stand for (they only record), with the words they may get.
const PROGRAMS: &[&str] = &["cat", "ls", "echo", "grep", "x1", "sh", "bash"];
const PROGRAM_ARGS: &[&str] = &["a", "-c", "ls", "cat", "-u", "--", "-i", "R", "in", "'cat a'", "-l", "+o", "x"];
/// Options no wrapper here has, and abbreviations the reader does not follow.
const UNKNOWN: &[&str] = &["-Z", "-Q", "--bogus", "--bogus=1", "--uns=X", "--sig=KILL", "--deb", "--he", "-%"];

fn spellings(option: &str) -> (Option<char>, Option<&str>) {
    if option.starts_with('-') {
        return (None, None); // nice's numeric forms, written out in full
    }
    let (short, long) = option.split_once('|').unwrap_or((option, ""));
    (short.chars().next(), (!long.is_empty()).then_some(long))
}

/// One option of `gen` with its value, spelled one of the ways its parser takes.
fn option_words(rng: &mut Rng, option: &str, value: Option<&str>, optional: bool) -> Vec<String> {
    if option.starts_with('-') {
        return vec![option.to_string()];
    }
    let (short, long) = spellings(option);
    let use_long = long.is_some() && (short.is_none() || rng.chance(50));
    match (use_long, value) {
        (true, None) => vec![format!("--{}", long.unwrap_or_default())],
        (true, Some(v)) if optional || v.is_empty() || rng.chance(50) => {
            if v.is_empty() {
                vec![format!("--{}", long.unwrap_or_default())]
            } else {
                vec![format!("--{}={v}", long.unwrap_or_default())]
            }
        }
        (true, Some(v)) => vec![format!("--{}", long.unwrap_or_default()), v.to_string()],
        (false, None) => vec![format!("-{}", short.unwrap_or('?'))],
        (false, Some(v)) if optional || v.is_empty() || rng.chance(50) => vec![format!("-{}{v}", short.unwrap_or('?'))],
        (false, Some(v)) => vec![format!("-{}", short.unwrap_or('?')), v.to_string()],
    }
}

/// A wrapper command line and whether the generator put an option there that no wrapper knows.
fn wrapper_line(rng: &mut Rng, bin: &str) -> (String, bool) {
    let mut words: Vec<String> = Vec::new();
    let mut unknown = false;
    // An option after which a wrapper runs nothing came: no unknown option may follow (nothing reads it).
    let mut ends = false;
    let depth = 1 + rng.below(3);
    for level in 0..depth {
        let gen = loop {
            let gen = &GENS[rng.below(GENS.len())];
            if level == 0 || !gen.builtin {
                break gen;
            }
        };
        words.push(gen.name.to_string());
        let mut clears_environment = false;
        // Without `-w` a setsid that must fork returns before its program has run.
        if gen.name == "setsid" {
            words.push("-w".to_string());
        }
        let short_flags: Vec<char> = gen.flags.iter().filter_map(|f| spellings(f).0).collect();
        let short_valued: Vec<(char, &[&str])> =
            gen.valued.iter().filter_map(|(o, values)| spellings(o).0.map(|c| (c, *values))).collect();
        for _ in 0..rng.below(4) {
            match rng.below(12) {
                0..=3 if !gen.flags.is_empty() => {
                    let flag = gen.flags[rng.below(gen.flags.len())];
                    clears_environment |= gen.name == "env" && flag.starts_with("i|");
                    words.extend(option_words(rng, flag, None, false));
                }
                4..=6 if !gen.valued.is_empty() => {
                    let (option, values) = gen.valued[rng.below(gen.valued.len())];
                    let value = if rng.chance(25) {
                        NAMES_AS_VALUES[rng.below(NAMES_AS_VALUES.len())]
                    } else {
                        rng.pick(values)
                    };
                    words.extend(option_words(rng, option, Some(value), false));
                }
                // Short options in one word: flags, then maybe one that takes a value (`-iu X`, `-0n1`).
                7 if !short_flags.is_empty() => {
                    let mut word = format!("-{}", short_flags[rng.below(short_flags.len())]);
                    if short_flags.len() > 1 && rng.chance(50) {
                        word.push(short_flags[rng.below(short_flags.len())]);
                    }
                    clears_environment |= gen.name == "env" && word.contains('i');
                    if !short_valued.is_empty() && rng.chance(60) {
                        let (letter, values) = short_valued[rng.below(short_valued.len())];
                        word.push(letter);
                        let value = rng.pick(values);
                        if rng.chance(50) {
                            word.push_str(value);
                            words.push(word);
                        } else {
                            words.extend([word, value.to_string()]);
                        }
                    } else {
                        words.push(word);
                    }
                }
                8 if !gen.optional.is_empty() => {
                    let (option, values) = gen.optional[rng.below(gen.optional.len())];
                    let value = rng.pick(values);
                    words.extend(option_words(rng, option, Some(value), true));
                }
                9 if !unknown && !ends => {
                    words.push(rng.pick(UNKNOWN).to_string());
                    unknown = true;
                }
                10 if !gen.nothing.is_empty() && !unknown && rng.chance(20) => {
                    let option = gen.nothing[rng.below(gen.nothing.len())];
                    words.extend(option_words(rng, option, None, false));
                    ends = true;
                }
                _ => {}
            }
        }
        if rng.chance(15) {
            words.push("--".to_string());
        }
        if gen.name == "env" {
            // Without PATH the program would be found on the default path, past the stubs.
            if clears_environment {
                words.push(format!("PATH={bin}"));
            }
            if rng.chance(15) {
                words.push("A=1".to_string());
            }
        }
        if !gen.operand.is_empty() && rng.chance(95) {
            words.push(rng.pick(gen.operand).to_string());
        }
    }
    if rng.chance(92) {
        let mut program = rng.pick(PROGRAMS);
        // `command echo` runs dash's builtin echo, which no stub sees.
        if program == "echo" && words.iter().all(|w| w == "command" || w.starts_with('-')) {
            program = "x1";
        }
        words.push(program.to_string());
        if (program == "sh" || program == "bash") && rng.chance(40) {
            words.extend(["-c".to_string(), "'cat a'".to_string()]);
        }
        for _ in 0..rng.below(4) {
            words.push(rng.pick(PROGRAM_ARGS).to_string());
        }
    }
    (words.join(" "), unknown)
}

/// The real program of each wrapper the generator uses, found on the usual path.
fn real_program(name: &str) -> Option<String> {
    ["/usr/bin", "/bin", "/usr/sbin", "/sbin"].iter().map(|dir| format!("{dir}/{name}")).find(|p| Path::new(p).exists())
}

/// A directory of stubs: each wrapper's records its words and runs the real wrapper; every other
/// program's only records. Records go to `log`: the name and words, each ended by `\001`, then `\002`.
fn stub_dir(dir: &Path, log: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let log = log.display();
    let record = |name: &str| format!("#!/bin/sh\nprintf '%s\\001' {name} \"$@\" >> {log}; printf '\\002' >> {log}\n");
    let wrappers = GENS.iter().filter(|g| !g.builtin).map(|g| g.name);
    for name in wrappers {
        let real = real_program(name).unwrap_or_else(|| panic!("{name} is needed for this test"));
        std::fs::write(bin.join(name), format!("{}exec {real} \"$@\"\n", record(name))).expect("stub");
    }
    for name in PROGRAMS.iter().chain(&["echo"]) {
        std::fs::write(bin.join(name), record(name)).expect("stub");
    }
    for entry in std::fs::read_dir(&bin).expect("bin") {
        let path = entry.expect("entry").path();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    bin
}

/// What one case ran: each program's (name, words), and the exit status of the line.
type Ran = (Vec<(String, Vec<String>)>, i32);

fn run_wrapper_batch(dash: &str, dir: &Path, bin: &Path, log: &Path, lines: &[String]) -> (Vec<Ran>, String) {
    let _ = std::fs::remove_file(log);
    let mut script = String::new();
    for line in lines {
        script.push_str(&format!(
            "( {line} ) <input.txt >/dev/null 2>&1; printf '\\004%s\\003' \"$?\" >> {}\n",
            log.display()
        ));
    }
    std::fs::write(dir.join("wrappers.sh"), &script).expect("script");
    let out = Command::new(dash)
        .arg(dir.join("wrappers.sh"))
        .current_dir(dir.join("cwd"))
        .env_clear()
        .env("PATH", bin)
        .env("HOME", "/home-of-warden-test")
        .stdin(Stdio::null())
        .output()
        .expect("run dash");
    let logged = std::fs::read(log).unwrap_or_default();
    let logged = String::from_utf8_lossy(&logged);
    let cases = logged
        .split_terminator('\u{3}')
        .map(|case| {
            let (records, status) = case.rsplit_once('\u{4}').unwrap_or((case, "-1"));
            let ran = records
                .split_terminator('\u{2}')
                .map(|record| {
                    let mut words = record.split_terminator('\u{1}').map(str::to_string);
                    (words.next().unwrap_or_default(), words.collect())
                })
                .collect();
            (ran, status.trim().parse().unwrap_or(-1))
        })
        .collect();
    (cases, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The programs the reader says run, each with the words it gets, or `None` when it does not say;
/// the number of them before (and including) the first xargs; xargs' replace string.
#[allow(clippy::type_complexity)]
fn expected_programs(words: &[String]) -> Option<(Vec<(String, Vec<String>)>, usize, Option<String>)> {
    let chain = read_chain(words);
    if matches!(chain.end, End::Unknown | End::Computed | End::TooDeep) {
        return None;
    }
    let base = |w: &str| w.rsplit('/').next().unwrap_or(w).to_string();
    let mut programs = Vec::new();
    let mut head = None;
    for &at in &chain.programs {
        let name = base(&words[at]);
        // The shell's own builtins start no program.
        if at == 0 && (name == "command" || name == "exec") {
            continue;
        }
        programs.push((name.clone(), words[at + 1..].to_vec()));
        if chain.input.as_ref().is_some_and(|input| input.xargs == at) {
            head = Some(programs.len());
        }
    }
    if chain.end == End::Echo {
        programs.push(("echo".to_string(), Vec::new()));
    }
    let head = head.unwrap_or(programs.len());
    Some((programs, head, chain.input.and_then(|input| input.replace)))
}

/// Compares what ran with what the reader said: the programs up to xargs exactly; after it, each run
/// xargs made (none, one or more) has the same programs, whose words start with the reader's (or are
/// the reader's with the replace string replaced by the input line). A line that failed may stop early.
fn compare(expected: &[(String, Vec<String>)], head: usize, replace: Option<&str>, ran: &Ran) -> Result<(), String> {
    let (records, status) = ran;
    for (k, want) in expected[..head].iter().enumerate() {
        match records.get(k) {
            Some(got) if got == want => {}
            Some(got) => return Err(format!("program {k}: the reader said {want:?}, {got:?} ran")),
            None if *status != 0 => return Ok(()),
            None => return Err(format!("program {k}: the reader said {want:?}, nothing ran (status 0)")),
        }
    }
    let tail = &expected[head..];
    let rest = &records[head.min(records.len())..];
    if tail.is_empty() {
        return match rest.first() {
            Some(extra) => Err(format!("the reader said nothing more runs, {extra:?} ran")),
            None => Ok(()),
        };
    }
    // Each run xargs makes goes through the tail; a wrapper in it may refuse (the line then fails),
    // so a run may stop short and the next one start over.
    let matches = |want: &(String, Vec<String>), got: &(String, Vec<String>)| {
        // With a replace string, words holding it take input (split as `-d`/`-0` say); the others stay.
        let words_match = match replace {
            Some(r) => want.1.len() == got.1.len() && want.1.iter().zip(&got.1).all(|(w, g)| w.contains(r) || w == g),
            None => got.1.starts_with(&want.1),
        };
        got.0 == want.0 && words_match
    };
    let mut at = 0;
    for got in rest {
        if at < tail.len() && matches(&tail[at], got) {
            at += 1;
        } else if matches(&tail[0], got) && (at == tail.len() || *status != 0) {
            at = 1;
        } else {
            let want = tail.get(at).unwrap_or(&tail[0]);
            return Err(format!("after xargs: the reader said {want:?}, {got:?} ran"));
        }
    }
    if at != 0 && at < tail.len() && *status == 0 {
        return Err(format!("after xargs: a run stopped short with status 0: {rest:?}"));
    }
    Ok(())
}

/// A shell given anything but a plain `-c SCRIPT` (or a script file, or nothing) must be asked about.
fn shell_with_options(words: &[String]) -> bool {
    let chain = read_chain(words);
    let Some(at) = chain.program() else { return false };
    let name = words[at].rsplit('/').next().unwrap_or(&words[at]);
    let args = &words[at + 1..];
    let option = |w: &String| w.starts_with(['-', '+']);
    (name == "sh" || name == "bash")
        && match args {
            [] => false,
            [c, script, ..] if c == "-c" && !option(script) => false,
            [first, ..] => option(first),
        }
}

#[test]
fn wrapper_commands_run_the_program_the_reader_says() {
    let Some(dash) = dash() else {
        panic!("dash is needed for this test (apt-get install dash)");
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let cwd = dir.path().join("cwd");
    std::fs::create_dir_all(cwd.join("sub")).expect("cwd");
    // Input for xargs, from its standard input or a file it is told to read (`-a cat`).
    for file in ["input.txt", "cat", "ls", "R"] {
        std::fs::write(cwd.join(file), "in1 in2\n").expect("input");
    }
    let log = dir.path().join("ran.log");
    let bin = stub_dir(dir.path(), &log);
    let bin_text = bin.display().to_string();

    let mut rng = Rng(WRAPPER_SEED);
    let mut cases = Vec::new();
    let (mut unknown_options, mut read, mut not_read, mut skipped) = (0, 0, 0, 0);
    for _ in 0..WRAPPER_CASES {
        let (line, unknown) = wrapper_line(&mut rng, &bin_text);
        let risk = shell_risk(&line);
        let segments = split_command(&line);
        let Some([segment]) = segments.as_deref() else {
            skipped += 1;
            continue;
        };
        if unknown {
            unknown_options += 1;
            assert_ne!(risk, Risk::Low, "{line:?} has an option no wrapper knows: never Low");
        }
        if shell_with_options(&segment.words) {
            assert_ne!(risk, Risk::Low, "{line:?} runs a shell with options: never Low");
        }
        match expected_programs(&segment.words) {
            Some(expected) => {
                read += 1;
                cases.push((line, expected));
            }
            None => {
                not_read += 1;
                assert_ne!(risk, Risk::Low, "{line:?}: the reader does not follow it, so it is never Low");
            }
        }
    }

    let mut refused = 0;
    for batch in cases.chunks(WRAPPER_BATCH) {
        let lines: Vec<String> = batch.iter().map(|(line, _)| line.clone()).collect();
        let (ran, stderr) = run_wrapper_batch(dash, dir.path(), &bin, &log, &lines);
        assert_eq!(ran.len(), batch.len(), "every case ran once; dash said: {stderr}");
        for ((line, (expected, head, replace)), ran) in batch.iter().zip(&ran) {
            if let Err(why) = compare(expected, *head, replace.as_deref(), ran) {
                panic!("{line:?}: {why}\nthe reader: {expected:?}\nran: {ran:?}");
            }
            if ran.1 != 0 && ran.0.len() < expected.len() {
                refused += 1;
            }
        }
    }
    println!(
        "{WRAPPER_CASES} generated wrapper commands: {read} read to their program and run as read ({refused} of \
         them refused by a wrapper), {not_read} not followed (never Low), {unknown_options} with an unknown option, \
         {skipped} not one command"
    );
    assert!(read - refused >= 5_000, "too few lines ran to prove anything: {}", read - refused);
}
