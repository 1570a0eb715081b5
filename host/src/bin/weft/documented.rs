//! Every `weft` command that the READMEs, the pages under `docs/` and the project templates
//! show in their shell blocks parses as this CLI reads it: a command or flag renamed or
//! removed fails here rather than for a reader.

use std::path::{Path, PathBuf};

use clap::Parser as _;
use clap::error::ErrorKind;

use super::Cli;

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("host/ is in the repository")
        .to_owned()
}

/// The Markdown files that show commands: the README, `docs/`, and every README below the
/// SDKs, the templates and the examples.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut found = vec![root.join("README.md")];
    let mut dirs: Vec<PathBuf> = ["docs", "guest-sdk", "host/templates", "examples"]
        .iter()
        .map(|dir| root.join(dir))
        .collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a documented directory") {
            let path = entry.expect("a directory entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() && name != "node_modules" && !name.starts_with('.') {
                dirs.push(path);
            } else if name == "README.md" || (dir.ends_with("docs") && name.ends_with(".md")) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The `weft` commands in the shell blocks of `markdown`: lines joined where they end in `\`,
/// comments cut, each part of a pipeline or list on its own, `VAR=value` prefixes dropped,
/// and template placeholders filled.
fn commands(markdown: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        if !matches!(line.trim(), "```sh" | "```bash" | "```shell") {
            continue;
        }
        let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        let joined = block.join("\n").replace("\\\n", " ");
        for line in joined.lines() {
            let line = line.split(" #").next().unwrap_or("").trim();
            let line = line
                .replace("{{lang}}", "rust")
                .replace("{{", "")
                .replace("}}", "");
            let line = first_alternatives(&line);
            for part in line.split(['|', ';']).flat_map(|p| p.split("&&")) {
                let words = words(part);
                let command: Vec<&String> = words.iter().skip_while(|w| is_assignment(w)).collect();
                if command.first().is_some_and(|w| *w == "weft") {
                    found.push(
                        command
                            .iter()
                            .map(|w| w.as_str())
                            .collect::<Vec<_>>()
                            .join("\u{1}"),
                    );
                }
            }
        }
    }
    found
}

/// `line` with each optional part `[a | b]` as its first alternative, `a`.
fn first_alternatives(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']') else {
            break;
        };
        out.push_str(&rest[..open]);
        let inside = &rest[open + 1..open + close];
        out.push_str(inside.split('|').next().unwrap_or("").trim());
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// Whether `word` sets an environment variable for the command after it (`NAME=value`).
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    })
}

/// `text` split as a shell splits words: on blanks, quotes keeping theirs together.
fn words(text: &str) -> Vec<String> {
    let (mut words, mut word, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => (quote, any) = (Some(c), true),
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        words.push(word);
    }
    words
}

#[test]
fn every_command_the_docs_show_parses() {
    let (mut seen, mut failures) = (0, Vec::new());
    for document in documents() {
        let text = std::fs::read_to_string(&document).expect("a document");
        for command in commands(&text) {
            seen += 1;
            let args: Vec<&str> = command.split('\u{1}').collect();
            let parsed = Cli::try_parse_from(&args);
            if let Err(error) = parsed
                && !matches!(
                    error.kind(),
                    ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
                )
            {
                let shown = document.strip_prefix(root()).unwrap_or(&document);
                failures.push(format!("{}: {}\n{error}", shown.display(), args.join(" ")));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The documents show 25: far fewer would mean this test stopped reading them.
    assert!(seen >= 20, "only {seen} commands found");
}

#[test]
fn commands_are_read_as_a_shell_reads_them() {
    let markdown = "text\n```sh\nWEFT_ENDPOINT=http://x weft workflow start --id a \\\n  \
                    --input '{\"a\": 1}' --wait   # a comment\nweft workflow history a | head -1\n\
                    weft import --from d [--closed | --open]\ncargo build\n```\n`weft not-this`\n";
    let found: Vec<Vec<String>> = commands(markdown)
        .iter()
        .map(|c| c.split('\u{1}').map(str::to_owned).collect())
        .collect();
    assert_eq!(
        found,
        [
            vec![
                "weft",
                "workflow",
                "start",
                "--id",
                "a",
                "--input",
                "{\"a\": 1}",
                "--wait"
            ],
            vec!["weft", "workflow", "history", "a"],
            vec!["weft", "import", "--from", "d", "--closed"],
        ]
    );
}
