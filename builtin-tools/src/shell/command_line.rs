//! Reads a shell command line with brush-parser (a maintained POSIX/bash grammar) into what approval
//! needs: every simple command the line may run, including those inside substitutions, compound
//! commands and function bodies (for risk), and, only when the line is nothing but plain literal
//! commands, their argv (for rules). Bounded in length and nesting; anything unreadable gives `None`.

use brush_parser::ast::{
    AndOr, AndOrList, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList, IoFileRedirectKind,
    IoFileRedirectTarget, IoRedirect, Program, RedirectList, SeparatorOperator, SimpleCommand,
};
use brush_parser::ParserOptions;

use super::words::{read_heredoc, read_word, ReadWord};

/// Longer command lines are not read at all: their risk is High and no rule covers them.
pub const MAX_LINE_BYTES: usize = 32 * 1024;
/// Most bracket characters and compound-command keywords a line may hold. The grammar crate recurses
/// once per nesting level (about 10 KiB of stack each in a debug build), so this caps its depth.
pub const MAX_NESTING: usize = 128;
/// Substitutions inside substitutions are read this many levels deep (each level holds a bracket or
/// backquote, so [`MAX_NESTING`] bounds it already; this keeps the walk's own recursion explicit).
const MAX_SUBSTITUTION_DEPTH: usize = MAX_NESTING;
/// Bytes of substitution bodies read again in all (each nesting level re-reads its body), so nested
/// substitutions cost at most a few times one line.
const REREAD_BUDGET_BYTES: usize = 4 * MAX_LINE_BYTES;
/// A longer or more nested line is parsed on a thread of its own with this much stack, whatever the
/// caller's stack holds.
const PARSER_STACK_BYTES: usize = 8 << 20;
/// A line at most this long and this nested is parsed on the caller's thread: starting a thread with a
/// large stack took 150-200 µs, the most of planning a shell call (measured in `warden-bench approvals`
/// for `echo ok`), and such a line needs far less stack than any thread of the server has (a test holds
/// it to [`INLINE_STACK_BYTES`] in a debug build).
const INLINE_LINE_BYTES: usize = 1024;
const INLINE_NESTING: usize = 8;
/// The stack a line read inline may use at most.
#[cfg(test)]
const INLINE_STACK_BYTES: usize = 512 * 1024;

/// Reserved words of bash or dash; never a command name in a line that a rule may cover.
const RESERVED: &[&str] = &[
    "!", "{", "}", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if",
    "in", "select", "then", "time", "until", "while",
];
/// Words that open a nesting level in the grammar, counted against [`MAX_NESTING`].
const NESTING_KEYWORDS: &[&str] = &["if", "while", "until", "for", "case", "select", "function", "coproc"];

/// One simple command of a command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Segment {
    /// Words after quote removal, assignments such as `FOO=bar` included; a word holding an expansion
    /// keeps its source text, e.g. `$(date)` or `$HOME`.
    pub words: Vec<String>,
    /// For each word, whether it is plain literal text (no expansion, substitution or pattern).
    pub literal: Vec<bool>,
    /// Whether the command has any redirection (`>`, `>>`, `<`, `2>`, `&>`, `>|`, `2>&1`, heredocs, ...).
    pub redirects: bool,
    /// Files its output redirections write to (`> f`, `>> f`, `&> f`, `>| f`, `<> f`, `>&f`);
    /// descriptor duplications such as `2>&1` are not files and are not listed.
    pub writes_to: Vec<String>,
    /// Whether its standard input may come from a command before it through a pipe.
    pub piped_input: bool,
}

/// How a plain command is joined to the one before it (the first of each list is `Sequence`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joiner {
    /// `;`, a newline, or the start of the line.
    Sequence,
    /// `&&`: runs only if the one before succeeded.
    And,
    /// `||`: runs only if the one before failed.
    Or,
}

/// A simple command made only of plain literal words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainCommand {
    pub joiner: Joiner,
    /// The words exactly as the shell passes them to the program (quotes removed).
    pub argv: Vec<String>,
}

/// Every simple command of `cmd`, in the order the shell meets them, with the commands inside
/// substitutions, compound commands (`if`, loops, `{ }`, `( )`, `case`) and function bodies listed
/// too (substitutions before the command that contains them).
///
/// `None` when the line cannot be read safely: too long or too deeply nested, a syntax error,
/// arithmetic commands, coprocesses, `[[ ]]`, or a substitution inside a parameter expansion.
pub fn split_command(cmd: &str) -> Option<Vec<Segment>> {
    let nesting = nesting_within_bounds(cmd)?;
    if cmd.contains('\0') {
        return None;
    }
    on_parser_stack(cmd.len(), nesting, || {
        let program = parse(cmd)?;
        let mut walker = Walker {
            options: parser_options(),
            depth: 0,
            reread_budget: REREAD_BUDGET_BYTES,
            in_pipe: false,
            segments: Vec::new(),
        };
        walker.program(&program)?;
        Some(walker.segments)
    })
}

/// The argv of each command when `cmd` consists only of simple commands of plain literal words joined
/// by `;`, `&&`, `||` or newlines; `None` for anything else: any expansion, substitution, `$'…'` or
/// `$"…"`, glob, brace or tilde character, assignment, redirection or here-document, pipeline, `&`,
/// `!`, reserved word, compound command or function definition; or a line that cannot be read.
pub fn plain_commands(cmd: &str) -> Option<Vec<PlainCommand>> {
    let nesting = nesting_within_bounds(cmd)?;
    if cmd.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return None;
    }
    on_parser_stack(cmd.len(), nesting, || {
        let program = parse(cmd)?;
        let options = parser_options();
        let mut out = Vec::new();
        for list in &program.complete_commands {
            for item in &list.0 {
                if matches!(item.1, SeparatorOperator::Async) {
                    return None;
                }
                plain_and_or(&item.0, &options, &mut out)?;
            }
        }
        Some(out)
    })
}

/// The options the grammar is read with: POSIX `sh`, as `sh -c` runs it, without extended globs.
pub fn parser_options() -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        posix_mode: true,
        sh_mode: true,
        tilde_expansion_at_word_start: true,
        tilde_expansion_after_colon: false,
        ..ParserOptions::default()
    }
}

/// The line's nesting estimate, when the line is within [`MAX_LINE_BYTES`] and [`MAX_NESTING`].
fn nesting_within_bounds(cmd: &str) -> Option<usize> {
    if cmd.len() > MAX_LINE_BYTES {
        return None;
    }
    Some(nesting_estimate(cmd)).filter(|&nesting| nesting <= MAX_NESTING)
}

/// An upper bound of the nesting depth the grammar can reach on `cmd`: every bracket or backquote,
/// and every compound-command keyword, whether quoted or not (counting more than needed is safe).
fn nesting_estimate(cmd: &str) -> usize {
    // A line continuation can join `i\⏎f` into a keyword, so count on the joined text.
    let joined = cmd.replace("\\\n", "");
    let brackets = joined.chars().filter(|c| matches!(c, '(' | '{' | '[' | '`')).count();
    let keywords = joined
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| NESTING_KEYWORDS.contains(word))
        .count();
    brackets + keywords
}

/// Runs `f`, which parses a line of `len` bytes and `nesting` (its estimate), where the stack is known to
/// suffice: on the caller's thread for a short, shallow line, else on a fresh thread with a large stack.
/// A panic inside the grammar crate is `None`.
fn on_parser_stack<T: Send>(len: usize, nesting: usize, f: impl FnOnce() -> Option<T> + Send) -> Option<T> {
    if len <= INLINE_LINE_BYTES && nesting <= INLINE_NESTING {
        return std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok().flatten();
    }
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("shell-parse".into())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, f)
            .ok()?;
        handle.join().ok().flatten()
    })
}

fn parse(cmd: &str) -> Option<Program> {
    let mut parser = brush_parser::Parser::new(std::io::BufReader::new(cmd.as_bytes()), &parser_options());
    parser.parse_program().ok()
}

fn plain_and_or(list: &AndOrList, options: &ParserOptions, out: &mut Vec<PlainCommand>) -> Option<()> {
    let first = std::iter::once((Joiner::Sequence, &list.first));
    let rest = list.additional.iter().map(|next| match next {
        AndOr::And(pipeline) => (Joiner::And, pipeline),
        AndOr::Or(pipeline) => (Joiner::Or, pipeline),
    });
    for (joiner, pipeline) in first.chain(rest) {
        if pipeline.bang || pipeline.timed.is_some() {
            return None;
        }
        let [Command::Simple(simple)] = pipeline.seq.as_slice() else { return None };
        out.push(PlainCommand { joiner, argv: plain_argv(simple, options)? });
    }
    Some(())
}

fn plain_argv(simple: &SimpleCommand, options: &ParserOptions) -> Option<Vec<String>> {
    if simple.prefix.is_some() {
        return None; // assignments or redirections before the command name
    }
    let name = simple.word_or_name.as_ref()?;
    let mut argv = vec![read_word(&name.value, options)?.literal?];
    if RESERVED.contains(&argv[0].as_str()) {
        return None;
    }
    for item in simple.suffix.iter().flat_map(|suffix| suffix.0.iter()) {
        let word = match item {
            CommandPrefixOrSuffixItem::Word(word) | CommandPrefixOrSuffixItem::AssignmentWord(_, word) => word,
            CommandPrefixOrSuffixItem::IoRedirect(_) | CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
                return None
            }
        };
        argv.push(read_word(&word.value, options)?.literal?);
    }
    Some(argv)
}

/// Collects the segments of a parsed program.
struct Walker {
    options: ParserOptions,
    depth: usize,
    /// Bytes of substitution bodies that may still be read again.
    reread_budget: usize,
    /// Inside a compound command that reads a pipe: every command in it may read that pipe.
    in_pipe: bool,
    segments: Vec<Segment>,
}

impl Walker {
    fn program(&mut self, program: &Program) -> Option<()> {
        program.complete_commands.iter().try_for_each(|list| self.list(list))
    }

    fn list(&mut self, list: &CompoundList) -> Option<()> {
        list.0.iter().try_for_each(|item| self.and_or(&item.0))
    }

    fn and_or(&mut self, list: &AndOrList) -> Option<()> {
        let rest = list.additional.iter().map(|next| match next {
            AndOr::And(pipeline) | AndOr::Or(pipeline) => pipeline,
        });
        for pipeline in std::iter::once(&list.first).chain(rest) {
            for (i, command) in pipeline.seq.iter().enumerate() {
                let before = self.segments.len();
                self.command(command, i > 0)?;
                if i == 0 {
                    self.timed(pipeline, command, before)?;
                }
            }
        }
        Some(())
    }

    /// `time` is a program to dash (`sh`): `time -o f ls` runs `/usr/bin/time -o f ls`, which writes `f`.
    /// The grammar reads it as bash's keyword, so it is put back in front of the first command's
    /// words (just pushed), where the risk reader reads it as a wrapper.
    fn timed(&mut self, pipeline: &brush_parser::ast::Pipeline, first: &Command, before: usize) -> Option<()> {
        let Some(timed) = &pipeline.timed else { return Some(()) };
        if pipeline.bang || !matches!(first, Command::Simple(_)) {
            return None;
        }
        if self.segments.len() == before {
            self.segments.push(Segment::default());
        }
        let segment = self.segments.last_mut()?;
        let words: &[&str] = if timed.is_posix_output() { &["time", "-p"] } else { &["time"] };
        segment.words.splice(0..0, words.iter().map(|w| w.to_string()));
        segment.literal.splice(0..0, words.iter().map(|_| true));
        Some(())
    }

    fn command(&mut self, command: &Command, piped: bool) -> Option<()> {
        match command {
            Command::Simple(simple) => self.simple(simple, piped),
            Command::Compound(compound, redirects) => {
                let outer = self.in_pipe;
                self.in_pipe |= piped;
                let walked = self.compound(compound);
                self.in_pipe = outer;
                walked?;
                self.redirect_list(redirects.as_ref(), piped)
            }
            // A function's body runs whenever it is called, so it counts as if it ran here.
            Command::Function(definition) => {
                self.compound(&definition.body.0)?;
                self.redirect_list(definition.body.1.as_ref(), false)
            }
            Command::ExtendedTest(..) => None,
        }
    }

    fn compound(&mut self, compound: &CompoundCommand) -> Option<()> {
        match compound {
            CompoundCommand::BraceGroup(group) => self.list(&group.list),
            CompoundCommand::Subshell(subshell) => self.list(&subshell.list),
            CompoundCommand::ForClause(clause) => {
                for word in clause.values.iter().flatten() {
                    self.word(&word.value)?;
                }
                self.list(&clause.body.list)
            }
            CompoundCommand::CaseClause(clause) => {
                self.word(&clause.value.value)?;
                for case in &clause.cases {
                    for pattern in &case.patterns {
                        self.word(&pattern.value)?;
                    }
                    if let Some(list) = &case.cmd {
                        self.list(list)?;
                    }
                }
                Some(())
            }
            CompoundCommand::IfClause(clause) => {
                self.list(&clause.condition)?;
                self.list(&clause.then)?;
                for other in clause.elses.iter().flatten() {
                    if let Some(condition) = &other.condition {
                        self.list(condition)?;
                    }
                    self.list(&other.body)?;
                }
                Some(())
            }
            CompoundCommand::WhileClause(clause) | CompoundCommand::UntilClause(clause) => {
                self.list(&clause.0)?;
                self.list(&clause.1.list)
            }
            CompoundCommand::Arithmetic(_)
            | CompoundCommand::ArithmeticForClause(_)
            | CompoundCommand::Coprocess(_) => None,
        }
    }

    fn simple(&mut self, simple: &SimpleCommand, piped: bool) -> Option<()> {
        let mut segment = Segment { piped_input: piped || self.in_pipe, ..Segment::default() };
        let prefix = simple.prefix.iter().flat_map(|p| p.0.iter());
        let suffix = simple.suffix.iter().flat_map(|s| s.0.iter());
        let name = simple.word_or_name.iter().map(Item::Name);
        // The command name comes after the prefix (assignments and redirections) and before the suffix.
        for item in prefix.map(Item::Part).chain(name).chain(suffix.map(Item::Part)) {
            match item {
                Item::Name(word)
                | Item::Part(CommandPrefixOrSuffixItem::Word(word))
                | Item::Part(CommandPrefixOrSuffixItem::AssignmentWord(_, word)) => {
                    let (display, literal) = self.read(&word.value)?;
                    segment.words.push(display);
                    segment.literal.push(literal);
                }
                Item::Part(CommandPrefixOrSuffixItem::IoRedirect(redirect)) => self.redirect(redirect, &mut segment)?,
                Item::Part(CommandPrefixOrSuffixItem::ProcessSubstitution(_, subshell)) => {
                    self.list(&subshell.list)?;
                    segment.words.push("<(…)".to_string());
                    segment.literal.push(false);
                }
            }
        }
        self.push(segment);
        Some(())
    }

    fn redirect_list(&mut self, redirects: Option<&RedirectList>, piped: bool) -> Option<()> {
        let Some(redirects) = redirects else { return Some(()) };
        let mut segment = Segment { piped_input: piped, ..Segment::default() };
        for redirect in &redirects.0 {
            self.redirect(redirect, &mut segment)?;
        }
        self.push(segment);
        Some(())
    }

    fn redirect(&mut self, redirect: &IoRedirect, segment: &mut Segment) -> Option<()> {
        segment.redirects = true;
        match redirect {
            IoRedirect::File(_, kind, target) => match target {
                IoFileRedirectTarget::Filename(word) => {
                    let file = self.word(&word.value)?;
                    use IoFileRedirectKind::*;
                    if matches!(kind, Write | Append | ReadAndWrite | Clobber | DuplicateOutput) {
                        segment.writes_to.push(file);
                    }
                }
                IoFileRedirectTarget::Duplicate(word) => {
                    let target = self.word(&word.value)?;
                    let is_descriptor = target == "-" || target.chars().all(|c| c.is_ascii_digit());
                    // `>&file` writes to a file in bash.
                    if matches!(kind, IoFileRedirectKind::DuplicateOutput) && !is_descriptor {
                        segment.writes_to.push(target);
                    }
                }
                IoFileRedirectTarget::Fd(_) => {}
                IoFileRedirectTarget::ProcessSubstitution(_, subshell) => self.list(&subshell.list)?,
            },
            IoRedirect::HereDocument(_, heredoc) => {
                if heredoc.requires_expansion {
                    let body = read_heredoc(&heredoc.doc.value, &self.options)?;
                    self.substitutions(body)?;
                }
            }
            IoRedirect::HereString(_, word) => {
                self.word(&word.value)?;
            }
            IoRedirect::OutputAndError(word, _) => {
                let file = self.word(&word.value)?;
                segment.writes_to.push(file);
            }
        }
        Some(())
    }

    /// Reads a word, walks the substitutions in it, and gives its display form.
    fn word(&mut self, raw: &str) -> Option<String> {
        self.read(raw).map(|(display, _)| display)
    }

    /// Like `word`, and tells whether the word is plain literal text.
    fn read(&mut self, raw: &str) -> Option<(String, bool)> {
        let word = read_word(raw, &self.options)?;
        let display = word.display.clone();
        let literal = word.literal.is_some();
        self.substitutions(word)?;
        Some((display, literal))
    }

    fn substitutions(&mut self, word: ReadWord) -> Option<()> {
        if word.opaque || (!word.substitutions.is_empty() && self.depth >= MAX_SUBSTITUTION_DEPTH) {
            return None;
        }
        for body in &word.substitutions {
            self.reread_budget = self.reread_budget.checked_sub(body.len())?;
            let program = parse(body)?;
            self.depth += 1;
            let walked = self.program(&program);
            self.depth -= 1;
            walked?;
        }
        Some(())
    }

    fn push(&mut self, segment: Segment) {
        if !segment.words.is_empty() || segment.redirects {
            self.segments.push(segment);
        }
    }
}

enum Item<'a> {
    Name(&'a brush_parser::ast::Word),
    Part(&'a CommandPrefixOrSuffixItem),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of each segment, for compact expectations.
    fn words(cmd: &str) -> Option<Vec<Vec<String>>> {
        split_command(cmd).map(|segs| segs.into_iter().map(|s| s.words).collect())
    }

    fn w(segments: &[&[&str]]) -> Option<Vec<Vec<String>>> {
        Some(segments.iter().map(|s| s.iter().map(|w| w.to_string()).collect()).collect())
    }

    fn argvs(cmd: &str) -> Option<Vec<Vec<String>>> {
        plain_commands(cmd).map(|cmds| cmds.into_iter().map(|c| c.argv).collect())
    }

    #[test]
    fn splits_at_every_control_operator() {
        let cases: &[(&str, &[&[&str]])] = &[
            ("ls -la", &[&["ls", "-la"]]),
            ("a | b", &[&["a"], &["b"]]),
            ("a|b||c&&d;e&f", &[&["a"], &["b"], &["c"], &["d"], &["e"], &["f"]]),
            ("a\nb", &[&["a"], &["b"]]),
            ("  a ;  b ; ", &[&["a"], &["b"]]),
            ("", &[]),
            ("# only a comment", &[]),
            ("git show # ; rm -rf /", &[&["git", "show"]]),
            ("echo a#b", &[&["echo", "a#b"]]),
        ];
        for (cmd, expected) in cases {
            assert_eq!(words(cmd), w(expected), "{cmd:?}");
        }
    }

    #[test]
    fn quotes_and_escapes_do_not_split() {
        let cases: &[(&str, &[&[&str]])] = &[
            ("echo 'a | b'", &[&["echo", "a | b"]]),
            ("echo \"a; b && c\"", &[&["echo", "a; b && c"]]),
            ("echo a\\|b", &[&["echo", "a|b"]]),
            ("echo a\\;b", &[&["echo", "a;b"]]),
            ("echo \"say \\\"hi\\\"\"", &[&["echo", "say \"hi\""]]),
            ("echo 'it'\\''s'", &[&["echo", "it's"]]),
            ("echo ''", &[&["echo", ""]]),
            ("git sh\"ow\" HEAD", &[&["git", "show", "HEAD"]]),
            ("echo \"$HOME\" ${USER}", &[&["echo", "$HOME", "${USER}"]]),
            ("ls \\\n -l", &[&["ls", "-l"]]),
        ];
        for (cmd, expected) in cases {
            assert_eq!(words(cmd), w(expected), "{cmd:?}");
        }
    }

    #[test]
    fn substitutions_become_segments_of_their_own() {
        let cases: &[(&str, &[&[&str]])] = &[
            ("git show $(rm x)", &[&["rm", "x"], &["git", "show", "$(rm x)"]]),
            ("echo `whoami`", &[&["whoami"], &["echo", "`whoami`"]]),
            (
                "echo \"today: $(date; rm -f y)\"",
                &[&["date"], &["rm", "-f", "y"], &["echo", "today: $(date; rm -f y)"]],
            ),
            ("echo $(echo $(id))", &[&["id"], &["echo", "$(id)"], &["echo", "$(echo $(id))"]]),
            ("echo \"`rm -rf /`\"", &[&["rm", "-rf", "/"], &["echo", "`rm -rf /`"]]),
            ("a=$(ls) b", &[&["ls"], &["a=$(ls)", "b"]]),
            ("cat <<EOF\n$(rm -rf x)\nEOF\n", &[&["rm", "-rf", "x"], &["cat"]]),
            ("echo $((1 + 2))", &[&["echo", "$((1 + 2))"]]),
        ];
        for (cmd, expected) in cases {
            assert_eq!(words(cmd), w(expected), "{cmd:?}");
        }
    }

    #[test]
    fn compound_commands_and_functions_are_read_into_their_commands() {
        assert_eq!(words("if git status; then rm -rf build; fi"), w(&[&["git", "status"], &["rm", "-rf", "build"]]));
        assert_eq!(words("for f in $(ls); do wc -l \"$f\"; done"), w(&[&["ls"], &["wc", "-l", "$f"]]));
        assert_eq!(words("! grep x f"), w(&[&["grep", "x", "f"]]));
        assert_eq!(words("echo if then"), w(&[&["echo", "if", "then"]]));
        assert_eq!(words("'if' x"), w(&[&["if", "x"]]));
        assert_eq!(words("f() { rm -rf /; }; f"), w(&[&["rm", "-rf", "/"], &["f"]]));
        assert_eq!(words("(cd x && rm y)"), w(&[&["cd", "x"], &["rm", "y"]]));
        assert_eq!(words("while true; do ls; done"), w(&[&["true"], &["ls"]]));
        assert_eq!(words("case $x in a) rm y;; esac"), w(&[&["rm", "y"]]));
    }

    #[test]
    fn redirections_are_flagged_and_write_targets_listed() {
        let cases: &[(&str, bool, &[&str])] = &[
            ("ls", false, &[]),
            ("echo hi > out.txt", true, &["out.txt"]),
            ("echo hi >>log", true, &["log"]),
            ("echo hi 2>err.txt", true, &["err.txt"]),
            ("echo hi >| forced", true, &["forced"]),
            ("echo hi > \"my file\"", true, &["my file"]),
            ("cat < in.txt", true, &[]),
            ("make 2>&1", true, &[]),
            ("make >&2", true, &[]),
            ("make 2>&-", true, &[]),
            ("make >/dev/null", true, &["/dev/null"]),
            ("exec 3<> f", true, &["f"]),
            ("cat <<'EOF'\n$(rm x)\nEOF\n", true, &[]),
        ];
        for (cmd, redirects, writes) in cases {
            let segs = split_command(cmd).unwrap_or_else(|| panic!("{cmd:?} should parse"));
            assert_eq!(segs.len(), 1, "{cmd:?}");
            assert_eq!(segs[0].redirects, *redirects, "{cmd:?}");
            assert_eq!(segs[0].writes_to, writes.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{cmd:?}");
        }
        assert_eq!(words("echo hi 2>err.txt"), w(&[&["echo", "hi"]]));
        // As dash reads it: `echo hi &` in the background, then `> all.txt` on its own.
        let background = split_command("echo hi &> all.txt").unwrap();
        assert_eq!(background.len(), 2);
        assert_eq!(background[1].writes_to, ["all.txt"]);
        assert_eq!(words("{ ls; } > out"), w(&[&["ls"], &[]]));
        assert_eq!(split_command("{ ls; } > out").unwrap()[1].writes_to, ["out"]);
    }

    #[test]
    fn pipes_mark_the_next_segment_as_reading_the_pipe() {
        let segs = split_command("curl -s x | sh && ls || cat").unwrap();
        let piped: Vec<bool> = segs.iter().map(|s| s.piped_input).collect();
        assert_eq!(piped, [false, true, false, false]);
        let segs = split_command("curl x | { cat; sh; }").unwrap();
        assert!(segs[1..].iter().all(|s| s.piped_input));
    }

    #[test]
    fn unreadable_lines_give_none() {
        for cmd in [
            "echo 'unclosed",
            "echo \"unclosed",
            "echo `unclosed",
            "echo $(unclosed",
            "echo )",
            "echo ${x:-$(rm y)}",
            "echo >",
            "echo > ;",
            "ls ;; ls",
            "echo $(( $(rm x) ))",
            "diff <(ls a) <(ls b)",
            "a\0b",
        ] {
            assert_eq!(split_command(cmd), None, "{cmd:?}");
        }
    }

    #[test]
    fn plain_commands_give_each_argv_with_its_joiner() {
        let cmds = plain_commands("git show HEAD; ls -l 'a b' && cat x || echo \"y z\"\npwd").unwrap();
        let joiners: Vec<Joiner> = cmds.iter().map(|c| c.joiner).collect();
        assert_eq!(joiners, [Joiner::Sequence, Joiner::Sequence, Joiner::And, Joiner::Or, Joiner::Sequence]);
        assert_eq!(cmds[1].argv, ["ls", "-l", "a b"]);
        assert_eq!(argvs("git show # ; rm -rf /"), w(&[&["git", "show"]]));
        assert_eq!(argvs("git sh\\\now"), w(&[&["git", "show"]]));
        assert_eq!(argvs(""), w(&[]));
    }

    #[test]
    fn anything_but_plain_literal_words_is_not_plain() {
        for cmd in [
            "git show $x",
            "git show \"$x\"",
            "git show ${x}",
            "git show $(id)",
            "git show `id`",
            "git show $((1))",
            "git show $'\\x41'",
            "git show $\"x\"",
            "git show ~",
            "git show ~/x",
            "git show *.rs",
            "git show a?",
            "git show [ab]",
            "git show {a,b}",
            "FOO=1 git show",
            "git show > x",
            "git show 2>&1",
            "git show < x",
            "cat <<EOF\nx\nEOF\n",
            "git show | cat",
            "git show &",
            "! git show",
            "time git show",
            "for x in a; do git show; done",
            "while true; do git show; done",
            "if true; then git show; fi",
            "{ git show; }",
            "(git show)",
            "f() { git show; }",
            "case a in a) git show;; esac",
            "'if' x",
            "git show\r",
            "git show 'unclosed",
        ] {
            assert_eq!(plain_commands(cmd), None, "{cmd:?}");
        }
    }

    #[test]
    fn nesting_beyond_the_limit_is_refused_without_recursing() {
        let deep = format!("echo {}x{}", "$(echo ".repeat(10_000), ")".repeat(10_000));
        assert_eq!(split_command(&deep), None);
        assert_eq!(plain_commands(&deep), None);
        let parens = format!("{}x{}", "(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(split_command(&parens), None);
        let keywords = format!("{}x{}", "if true; then ".repeat(5_000), "; fi".repeat(5_000));
        assert_eq!(split_command(&keywords), None);
    }

    #[test]
    fn nesting_up_to_the_limit_parses_on_a_small_caller_stack() {
        // The caller's stack is the default for test threads (2 MiB); the parser runs on its own.
        let levels = MAX_NESTING / 2 - 1;
        let deep = format!("echo {}x{}", "$(echo ".repeat(levels), ")".repeat(levels));
        assert!(nesting_estimate(&deep) <= MAX_NESTING);
        assert_eq!(split_command(&deep).map(|s| s.len()), Some(levels + 1));
        let parens = format!("{}x{}", "(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
        assert!(split_command(&parens).is_some());
        let ifs = format!("{}x{}", "if true; then ".repeat(MAX_NESTING / 2), "; fi".repeat(MAX_NESTING / 2));
        assert!(split_command(&ifs).is_some());
    }

    /// Lines read on the caller's thread: the longest and most nested of each shape fit a stack of
    /// `INLINE_STACK_BYTES` (a stack overflow would end the test process, so this cannot pass by luck).
    #[test]
    fn lines_read_inline_fit_a_small_stack() {
        let fill = |unit: &str, end: &str| {
            let mut line = String::new();
            while line.len() + unit.len() + end.len() <= INLINE_LINE_BYTES {
                line.push_str(unit);
            }
            line + end
        };
        let half = INLINE_NESTING / 2;
        let lines = [
            fill("a && ", "a"),
            fill("a | ", "a"),
            fill("a; ", "a"),
            fill("echo \"$x\" 'y' ", ""),
            fill("x ", &format!("{}x{}", "$(echo ".repeat(half), ")".repeat(half))),
            fill("y ", &format!("{}x{}", "(".repeat(INLINE_NESTING), ")".repeat(INLINE_NESTING))),
            format!("{}x{}", "if true; then ".repeat(half), "; fi".repeat(half)),
            format!("{}x{}", "`echo ".repeat(half), "`".repeat(half)),
        ];
        for line in &lines {
            assert!(line.len() <= INLINE_LINE_BYTES && nesting_estimate(line) <= INLINE_NESTING, "{line}");
        }
        let read = std::thread::Builder::new()
            .stack_size(INLINE_STACK_BYTES)
            .spawn(move || {
                lines.iter().map(|l| (split_command(l).is_some(), plain_commands(l).is_some())).collect::<Vec<_>>()
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(read[0].0 && read[0].1 && read[1].0 && read[2].1, "the lists are read: {read:?}");
    }

    #[test]
    fn nested_substitutions_are_read_again_only_within_a_budget() {
        let levels = 40;
        let filler = "x ".repeat(REREAD_BUDGET_BYTES / levels);
        let deep = format!("echo {}{filler}{}", "$(echo ".repeat(levels), ")".repeat(levels));
        assert!(deep.len() <= MAX_LINE_BYTES);
        assert_eq!(split_command(&deep), None);
        let shallow = format!("echo $(echo {filler})");
        assert!(split_command(&shallow).is_some());
    }

    #[test]
    fn over_long_lines_are_not_read() {
        let long = format!("ls {}", "a ".repeat(MAX_LINE_BYTES));
        assert_eq!(split_command(&long), None);
        assert_eq!(plain_commands(&long), None);
    }
}
