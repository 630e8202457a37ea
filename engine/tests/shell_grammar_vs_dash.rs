//! The command-line reader proven against the real shell: thousands of seeded, generated command
//! strings full of shell metacharacters go to `plain_commands`; every string it accepts as plain
//! literal commands is run by `dash`, with each command name bound to a function that prints its argv,
//! and the test fails on any string where dash runs other words than the reader said (or rejects it).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use warden_engine::tools::shell::{plain_commands, split_command, Joiner, PlainCommand};

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
