//! Each way a "git show" thread rule was talked past, as a test: a rule covers only command lines of
//! plain literal words whose options neither write nor run anything, and is made only for read-only
//! commands. Goes through the same functions the approval gate and the decision use.

use serde_json::json;
use warden_engine::rules::{rule_for, rule_matches};
use warden_types::approval::{RuleMatcher, ThreadRule};

fn shell_rule(approved: &str, prefix: &str) -> ThreadRule {
    let matcher = rule_for("shell", &json!({ "command": approved }), Some(prefix))
        .unwrap_or_else(|e| panic!("a rule for {approved:?} / {prefix:?} should be made: {e}"));
    ThreadRule { id: "r".into(), thread_id: "t".into(), tool: "shell".into(), matcher, created_at: String::new() }
}

#[track_caller]
fn asks(rule: &ThreadRule, commands: &[&str]) {
    for command in commands {
        assert!(
            !rule_matches(rule, "shell", &json!({ "command": command })),
            "{command:?} must be asked about, not covered by {:?}",
            rule.matcher
        );
    }
}

#[test]
fn the_rule_still_covers_plain_read_only_uses() {
    let rule = shell_rule("git show HEAD", "git show");
    let plain = ["git show", "git show HEAD~1 -- src/main.rs", "git show 'HEAD:a b.txt'", "git show && git show HEAD"];
    for command in plain {
        assert!(rule_matches(&rule, "shell", &json!({ "command": command })), "{command:?}");
    }
}

#[test]
fn ansi_c_and_locale_quoting_are_asked_about() {
    // dash has no $'…': it runs `$\x2d…` where bash would run `--output=…`.
    asks(
        &shell_rule("git show", "git show"),
        &["git show $'\\x2d\\x2doutput=/tmp/x'", "git $'show' HEAD", "git show $'HEAD'", "git show $\"HEAD\""],
    );
}

#[test]
fn options_that_write_or_run_are_asked_about() {
    asks(
        &shell_rule("git show", "git show"),
        &[
            "git show --output=/tmp/x",
            "git show --output /tmp/x HEAD",
            "git show --outp=/tmp/x",
            "git show --ext-diff",
            "git show --textconv",
        ],
    );
    asks(&shell_rule("git log", "git log"), &["git log -p --output=/tmp/x"]);
    // A rule for all of git must not let configuration name a program.
    asks(
        &shell_rule("git status", "git"),
        &[
            "git -c core.pager=sh status",
            "git -c core.fsmonitor=/tmp/x status",
            "git --config-env=core.pager=X status",
            "git --exec-path=/tmp status",
            "git --git-dir=/tmp/evil status",
            "git grep -O/tmp/x foo",
        ],
    );
    let find = shell_rule("find . -name x", "find");
    asks(&find, &["find . -exec sh -c id ;", "find . -delete", "find . -fprint /tmp/x"]);
    asks(&shell_rule("sort a", "sort"), &["sort -o b a", "sort --output=b a", "sort --compress-program=sh a"]);
}

#[test]
fn reserved_words_and_loops_are_asked_about() {
    asks(
        &shell_rule("git show", "git show"),
        &[
            "for x in a; do git show; done",
            "while git show; do git show; done",
            "until git show; do git show; done",
            "if git show; then git show; fi",
            "case a in a) git show;; esac",
            "{ git show; }",
            "(git show)",
            "! git show",
            "time git show",
        ],
    );
}

#[test]
fn expansions_are_asked_about() {
    asks(
        &shell_rule("git show", "git show"),
        &[
            "git show $HOME",
            "git show \"$x\"",
            "git show ${x:-HEAD}",
            "$GIT show",
            "git show ~",
            "git show ~/x",
            "git show *",
            "git show HEAD?",
            "git show [ab]",
            "git show {a,b}",
        ],
    );
}

#[test]
fn substitutions_are_asked_about() {
    asks(
        &shell_rule("git show", "git show"),
        &[
            "git show $(rm -rf x)",
            "git show `rm -rf x`",
            "git show \"$(rm -rf x)\"",
            "git show $(git show HEAD:x)",
            "git show $((1+1))",
        ],
    );
}

#[test]
fn redirections_and_here_documents_are_asked_about() {
    asks(
        &shell_rule("git show", "git show"),
        &[
            "git show > ~/.bashrc",
            "git show >> x",
            "git show 2>&1",
            "git show < /etc/passwd",
            "git show &> x",
            "git show <<EOF\nHEAD\nEOF\n",
            "git show <<'EOF'\nHEAD\nEOF\n",
        ],
    );
}

#[test]
fn function_definitions_are_asked_about() {
    asks(&shell_rule("git show", "git show"), &["git() { rm -rf x; }; git show", "f() { git show; }; f"]);
}

#[test]
fn assignments_are_asked_about() {
    asks(
        &shell_rule("git show", "git show"),
        &["GIT_EXTERNAL_DIFF=/tmp/x git show", "GIT_PAGER=sh git show", "PATH=/tmp git show", "x=1; git show"],
    );
}

#[test]
fn other_commands_pipes_and_background_jobs_are_asked_about() {
    asks(
        &shell_rule("git show", "git show"),
        &[
            "git show; rm -rf x",
            "git show && rm -rf x",
            "git show || rm -rf x",
            "git show | sh",
            "git show | git show",
            "git show & rm -rf x",
            "git show &",
            "git show\nrm -rf x",
        ],
    );
}

#[test]
fn prefix_rules_are_made_only_for_read_only_plain_commands() {
    for (command, prefix) in [
        ("cargo test", "cargo test"),
        ("rm -rf build", "rm"),
        ("git show --output=/tmp/x", "git show"),
        ("git show", "git show --output=/tmp/x"),
        ("git show HEAD", "git log"),
        ("git show HEAD", "git $x"),
        ("git show HEAD", "git show; rm"),
    ] {
        assert!(rule_for("shell", &json!({ "command": command }), Some(prefix)).is_err(), "{command:?} / {prefix:?}");
    }
    assert!(matches!(
        rule_for("shell", &json!({ "command": "git show HEAD" }), Some("git show")),
        Ok(RuleMatcher::CommandPrefix { .. })
    ));
}
