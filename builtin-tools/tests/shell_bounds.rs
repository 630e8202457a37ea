//! Deep or huge command lines end as High risk and no rule match, quickly and without exhausting the
//! stack. Each test runs on an ordinary test thread (2 MiB of stack).

use warden_tools::shell::{matches_prefix_rule, plain_commands, split_command, MAX_LINE_BYTES};
use warden_tools::{shell_risk, Risk};

#[test]
fn a_hundred_thousand_nested_env_wrappers_are_high() {
    let line = format!("{}ls", "env ".repeat(100_000));
    assert_eq!(shell_risk(&line), Risk::High);
    assert!(!matches_prefix_rule(&line, "env"));
}

#[test]
fn a_wrapper_chain_within_the_length_limit_is_high_without_recursing_through_it() {
    let line = format!("{}ls", "env ".repeat(7_000));
    assert!(line.len() <= MAX_LINE_BYTES);
    assert_eq!(shell_risk(&line), Risk::High);
    let line = format!("{}ls", "timeout 1 nice ".repeat(2_000));
    assert_eq!(shell_risk(&line), Risk::High);
}

#[test]
fn a_long_find_exec_chain_is_high() {
    let line = format!("{}ls", "find . -exec ".repeat(2_000));
    assert!(line.len() <= MAX_LINE_BYTES);
    assert_eq!(shell_risk(&line), Risk::High);
    let huge = format!("{}ls", "find . -exec ".repeat(100_000));
    assert_eq!(shell_risk(&huge), Risk::High);
}

#[test]
fn shells_and_wrappers_nested_past_the_depth_limit_are_high() {
    // Each `sh -c '…'` level multiplies the quoting, so the length limit ends pure nesting early...
    let mut line = "ls".to_string();
    while line.len() <= MAX_LINE_BYTES {
        line = format!("sh -c '{}'", line.replace('\'', "'\\''"));
    }
    assert_eq!(shell_risk(&line), Risk::High);
    // ...and a wrapper chain inside a shell counts toward the same depth.
    let line = format!("sh -c 'sh -c \"{}ls\"'", "nice ".repeat(20));
    assert_eq!(shell_risk(&line), Risk::High);
    assert_eq!(shell_risk("sh -c 'sh -c \"nice ls\"'"), Risk::Low);
}

#[test]
fn ten_thousand_nested_substitutions_are_high() {
    let line = format!("echo {}x{}", "$(echo ".repeat(10_000), ")".repeat(10_000));
    assert_eq!(shell_risk(&line), Risk::High);
    let backquotes = format!("echo {}", "`".repeat(10_000));
    assert_eq!(shell_risk(&backquotes), Risk::High);
}

#[test]
fn ten_thousand_nested_parentheses_braces_and_keywords_are_high() {
    for line in [
        format!("{}ls{}", "(".repeat(10_000), ")".repeat(10_000)),
        format!("echo $(({}1{}))", "(".repeat(10_000), ")".repeat(10_000)),
        format!("{}ls;{}", "{ ".repeat(10_000), "} ".repeat(10_000)),
        format!("{}ls{}", "if true; then ".repeat(2_000), "; fi".repeat(2_000)),
        format!("echo {}x{}", "${a:-".repeat(10_000), "}".repeat(10_000)),
    ] {
        assert_eq!(shell_risk(&line), Risk::High, "{}", &line[..40]);
        assert_eq!(split_command(&line), None);
    }
}

#[test]
fn a_line_over_the_length_limit_is_high_and_never_covered() {
    let line = format!("ls {}", "a".repeat(MAX_LINE_BYTES));
    assert_eq!(shell_risk(&line), Risk::High);
    assert_eq!(plain_commands(&line), None);
    assert!(!matches_prefix_rule(&line, "ls"));
}
