//! A command with a hidden or direction-changing character is never Low risk: it may run other than
//! it reads on a card (Trojan Source).

use warden_tools::{shell_risk, Risk};

#[test]
fn a_read_only_command_with_a_hidden_character_is_at_least_medium() {
    assert_eq!(shell_risk("ls -la"), Risk::Low);
    for line in [
        "ls -la \u{202E}",
        "cat notes.txt #\u{2066} }\u{2069}",
        "echo ok\u{200B}",
        "ls\u{00A0}-la",
        "\u{FEFF}pwd",
        "echo a\u{2028}b",
        "grep x file\r",
    ] {
        assert_eq!(shell_risk(line), Risk::Medium, "{line:?}");
    }
    // It only raises: what is High stays High.
    assert_eq!(shell_risk("rm -rf /tmp/x \u{202E}"), Risk::High);
}
