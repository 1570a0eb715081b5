//! `weft new LANG DIR`: a small project to start from, in Rust, Python or JavaScript: a
//! decider and an activity worker (a greeting: run an activity, wait on a timer, complete with
//! its result), their unit tests, a `weft-app.toml`, and a README whose commands build, test,
//! apply and start it. The templates are compiled into the binary (`host/templates/`).

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Args, ValueEnum};

/// `weft new`.
#[derive(Args)]
pub(crate) struct NewArgs {
    /// The project's language.
    #[arg(value_enum)]
    lang: Lang,
    /// The directory to write it in (made if missing; must be empty). Its name names the
    /// project and its domain.
    dir: PathBuf,
    /// A Weft source checkout whose SDK the project depends on (default: the published SDK at
    /// this Weft's version).
    #[arg(long, value_name = "PATH")]
    sdk: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Lang {
    Rust,
    Python,
    Js,
}

/// A template file: where it goes in the project, and its text with `{{placeholders}}`.
type File = (&'static str, &'static str);

macro_rules! templates {
    ($($to:literal => $from:literal),* $(,)?) => {
        &[$(($to, include_str!(concat!("../../../templates/", $from)))),*]
    };
}

const COMMON: &[File] = templates![
    "weft-app.toml" => "common/weft-app.toml",
    "README.md" => "common/README.md",
];
const RUST: &[File] = templates![
    "Cargo.toml" => "rust/Cargo.toml",
    "decider/Cargo.toml" => "rust/decider/Cargo.toml",
    "decider/src/lib.rs" => "rust/decider/src/lib.rs",
    "worker/Cargo.toml" => "rust/worker/Cargo.toml",
    "worker/src/lib.rs" => "rust/worker/src/lib.rs",
    ".gitignore" => "rust/gitignore",
];
const PYTHON: &[File] = templates![
    "decider.py" => "python/decider.py",
    "worker.py" => "python/worker.py",
    "test_greeting.py" => "python/test_greeting.py",
    ".gitignore" => "python/gitignore",
];
const JS: &[File] = templates![
    "package.json" => "js/package.json",
    "decider.js" => "js/decider.js",
    "worker.js" => "js/worker.js",
    "greeting.test.js" => "js/greeting.test.js",
    ".gitignore" => "js/gitignore",
];

/// Runs `weft new`.
pub(crate) fn run(args: NewArgs) -> anyhow::Result<()> {
    let name = project_name(&args.dir)?;
    if args.dir.exists() {
        let mut entries = std::fs::read_dir(&args.dir)
            .with_context(|| format!("cannot read {}", args.dir.display()))?;
        if entries.next().is_some() {
            anyhow::bail!("{} is not empty: give a new directory", args.dir.display());
        }
    }
    let sdk = args.sdk.as_deref().map(checkout).transpose()?;
    let values = values(args.lang, &name, sdk.as_deref());
    let files = match args.lang {
        Lang::Rust => RUST,
        Lang::Python => PYTHON,
        Lang::Js => JS,
    };
    for (path, text) in COMMON.iter().chain(files) {
        let to = args.dir.join(path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot make {}", parent.display()))?;
        }
        let text = fill(text, &values);
        std::fs::write(&to, text).with_context(|| format!("cannot write {}", to.display()))?;
    }
    println!(
        "wrote a {} project in {}: see its README.md (build, test, weft apply, start)",
        values.language,
        args.dir.display()
    );
    Ok(())
}

/// The project's name, from its directory's: lowercase letters, digits and dashes.
fn project_name(dir: &Path) -> anyhow::Result<String> {
    let last = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let name: String = last
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '-' => c,
            'A'..='Z' => c.to_ascii_lowercase(),
            _ => '-',
        })
        .collect();
    let name = name.trim_matches('-').to_owned();
    match name.chars().next() {
        Some('a'..='z') => Ok(name),
        _ => anyhow::bail!(
            "{} cannot name a project: its name must start with a letter",
            dir.display()
        ),
    }
}

/// The absolute path of a Weft checkout, checked.
fn checkout(path: &Path) -> anyhow::Result<PathBuf> {
    let path = std::fs::canonicalize(path)
        .with_context(|| format!("--sdk {}: no such directory", path.display()))?;
    if !path.join("guest-sdk").join("Cargo.toml").is_file() {
        anyhow::bail!(
            "--sdk {}: not a Weft checkout (it has no guest-sdk/)",
            path.display()
        );
    }
    Ok(path)
}

/// What fills a language's templates.
struct Values {
    name: String,
    language: &'static str,
    pairs: Vec<(&'static str, String)>,
}

fn values(lang: Lang, name: &str, sdk: Option<&Path>) -> Values {
    let version = env!("CARGO_PKG_VERSION");
    let at = |dir: &str| sdk.map(|sdk| shell_word(&sdk.join("guest-sdk").join(dir)));
    let (language, build, test, decider, worker, dependency) = match lang {
        Lang::Rust => {
            let crate_file = name.replace('-', "_");
            let dependency = match sdk {
                Some(sdk) => format!(
                    "weft-guest = {{ path = {:?} }}",
                    sdk.join("guest-sdk").display().to_string()
                ),
                None => format!("weft-guest = \"{version}\""),
            };
            (
                "Rust",
                "rustup target add wasm32-wasip2\ncargo build --release --target wasm32-wasip2"
                    .to_owned(),
                "cargo test".to_owned(),
                format!("target/wasm32-wasip2/release/{crate_file}_decider.wasm"),
                format!("target/wasm32-wasip2/release/{crate_file}_worker.wasm"),
                dependency,
            )
        }
        Lang::Python => {
            let sdk = at("python").unwrap_or_else(|| format!("weft-guest=={version}"));
            (
                "Python",
                format!(
                    "python3 -m venv .venv\n.venv/bin/pip install {sdk}\n\
                     .venv/bin/weft-componentize --world decider decider.py -o build/decider.wasm\n\
                     .venv/bin/weft-componentize --world activity-worker worker.py -o build/worker.wasm"
                ),
                ".venv/bin/python -m unittest".to_owned(),
                "build/decider.wasm".to_owned(),
                "build/worker.wasm".to_owned(),
                String::new(),
            )
        }
        Lang::Js => {
            let sdk = match sdk {
                Some(sdk) => format!("file:{}", sdk.join("guest-sdk").join("js").display()),
                None => version.to_owned(),
            };
            (
                "JavaScript",
                "npm install\nnpm run build".to_owned(),
                "npm test".to_owned(),
                "build/decider.wasm".to_owned(),
                "build/worker.wasm".to_owned(),
                sdk,
            )
        }
    };
    Values {
        name: name.to_owned(),
        language,
        pairs: vec![
            ("name", name.to_owned()),
            ("crate", name.to_owned()),
            ("language", language.to_owned()),
            ("build", build),
            ("test", test),
            ("decider_wasm", decider),
            ("worker_wasm", worker),
            ("weft_guest", dependency.clone()),
            ("js_sdk", dependency),
        ],
    }
}

/// `text` with each `{{key}}` replaced by its value.
fn fill(text: &str, values: &Values) -> String {
    let mut text = text.to_owned();
    for (key, value) in &values.pairs {
        text = text.replace(&format!("{{{{{key}}}}}"), value);
    }
    debug_assert!(
        !text.contains("{{"),
        "a placeholder is left in {}",
        values.name
    );
    text
}

/// A path as one shell word: quoted if it holds anything a shell would split or expand.
fn shell_word(path: &Path) -> String {
    let text = path.display().to_string();
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:@".contains(c);
    if text.chars().all(plain) {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_directory() {
        assert_eq!(
            project_name(Path::new("/tmp/Hello World")).unwrap(),
            "hello-world"
        );
        assert_eq!(project_name(Path::new("greet_2")).unwrap(), "greet-2");
        assert!(project_name(Path::new("/tmp/42")).is_err());
    }

    #[test]
    fn every_placeholder_is_filled_in_every_language() {
        for lang in [Lang::Rust, Lang::Python, Lang::Js] {
            for sdk in [None, Some(Path::new("/src/my weft"))] {
                let values = values(lang, "hello", sdk);
                let files = [COMMON, RUST, PYTHON, JS].concat();
                for (path, text) in files {
                    let filled = fill(text, &values);
                    assert!(!filled.contains("{{"), "{path}: {filled}");
                }
            }
        }
        let python = values(Lang::Python, "hello", Some(Path::new("/src/my weft")));
        let build = &python.pairs.iter().find(|(k, _)| *k == "build").unwrap().1;
        assert!(
            build.contains("pip install '/src/my weft/guest-sdk/python'"),
            "{build}"
        );
    }
}
