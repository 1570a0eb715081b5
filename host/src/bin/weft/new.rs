//! `weft new LANG DIR`: a small project to start from, in Rust, Python or JavaScript: a
//! workflow and an activity worker (a greeting: run an activity, wait on a timer, complete with
//! its result), their unit tests, a `weft-app.toml`, and a README whose commands build, test,
//! apply and start it. The workflow is written as ordinary async code (`--style workflow`, the
//! default, as the SDKs' READMEs lead with) or as a state machine over the history (`--style
//! decider`). The templates are compiled into the binary (`host/templates/`): what both styles
//! share beside what each writes (`<lang>/workflow-style/`, `<lang>/decider-style/`).

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
    /// How the decider is written (the activity worker is the same either way).
    #[arg(long, value_enum, default_value_t = Style::Workflow)]
    style: Style,
    /// A Weft source checkout whose SDK the project depends on, for SDK development (default:
    /// the SDK this weft carries, unpacked once into ~/.cache/weft/sdk and never written).
    #[arg(long, value_name = "PATH")]
    sdk: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Lang {
    Rust,
    Python,
    Js,
}

/// How the decider is written.
#[derive(Clone, Copy, ValueEnum)]
enum Style {
    /// The workflow as ordinary async code, which the SDK replays over the history; its tests
    /// run it whole in the SDK's testing Environment, time skipped.
    Workflow,
    /// A state machine: a function of the history that answers the next decisions; its tests
    /// run it on hand-built histories.
    Decider,
}

impl Style {
    /// What the line printed after writing says of it.
    fn describe(self) -> &'static str {
        match self {
            Style::Workflow => "workflow style: the workflow as async code",
            Style::Decider => "decider style: a state machine over the history",
        }
    }
}

/// A template file: where it goes in the project, and its text with `{{placeholders}}`.
type File = (&'static str, &'static str);

macro_rules! templates {
    ($($to:literal => $from:literal),* $(,)?) => {
        &[$(($to, include_str!(concat!("../../../templates/", $from)))),*]
    };
}

// What both styles share.
const COMMON: &[File] = templates![
    "weft-app.toml" => "common/weft-app.toml",
];
const RUST: &[File] = templates![
    "Cargo.toml" => "rust/Cargo.toml",
    "decider/Cargo.toml" => "rust/decider/Cargo.toml",
    "worker/Cargo.toml" => "rust/worker/Cargo.toml",
    "worker/src/lib.rs" => "rust/worker/src/lib.rs",
    ".gitignore" => "rust/gitignore",
];
const PYTHON: &[File] = templates![
    "worker.py" => "python/worker.py",
    ".gitignore" => "python/gitignore",
];
const JS: &[File] = templates![
    "worker.js" => "js/worker.js",
    ".gitignore" => "js/gitignore",
];

// `--style workflow`: the workflow as async code, tested whole in the testing Environment.
const COMMON_WORKFLOW: &[File] = templates![
    "README.md" => "common/workflow-style/README.md",
];
const RUST_WORKFLOW: &[File] = templates![
    "decider/src/lib.rs" => "rust/workflow-style/decider/src/lib.rs",
];
const PYTHON_WORKFLOW: &[File] = templates![
    "decider.py" => "python/workflow-style/decider.py",
    "test_greeting.py" => "python/workflow-style/test_greeting.py",
];
const JS_WORKFLOW: &[File] = templates![
    "package.json" => "js/workflow-style/package.json",
    "decider.js" => "js/workflow-style/decider.js",
    "greeting.test.js" => "js/workflow-style/greeting.test.js",
];

// `--style decider`: a state machine over the history, tested on hand-built histories.
const COMMON_DECIDER: &[File] = templates![
    "README.md" => "common/decider-style/README.md",
];
const RUST_DECIDER: &[File] = templates![
    "decider/src/lib.rs" => "rust/decider-style/decider/src/lib.rs",
];
const PYTHON_DECIDER: &[File] = templates![
    "decider.py" => "python/decider-style/decider.py",
    "test_greeting.py" => "python/decider-style/test_greeting.py",
];
const JS_DECIDER: &[File] = templates![
    "package.json" => "js/decider-style/package.json",
    "decider.js" => "js/decider-style/decider.js",
    "greeting.test.js" => "js/decider-style/greeting.test.js",
];

/// Every file of a project in `lang` and `style`.
fn files(lang: Lang, style: Style) -> Vec<File> {
    let (common, shared, styled) = match (style, lang) {
        (Style::Workflow, Lang::Rust) => (COMMON_WORKFLOW, RUST, RUST_WORKFLOW),
        (Style::Workflow, Lang::Python) => (COMMON_WORKFLOW, PYTHON, PYTHON_WORKFLOW),
        (Style::Workflow, Lang::Js) => (COMMON_WORKFLOW, JS, JS_WORKFLOW),
        (Style::Decider, Lang::Rust) => (COMMON_DECIDER, RUST, RUST_DECIDER),
        (Style::Decider, Lang::Python) => (COMMON_DECIDER, PYTHON, PYTHON_DECIDER),
        (Style::Decider, Lang::Js) => (COMMON_DECIDER, JS, JS_DECIDER),
    };
    [COMMON, common, shared, styled].concat()
}

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
    let sdk = match args.sdk.as_deref() {
        Some(path) => checkout(path)?,
        None => crate::sdk::unpacked()?,
    };
    let values = values(args.lang, &name, &sdk);
    for (path, text) in files(args.lang, args.style) {
        let to = args.dir.join(path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot make {}", parent.display()))?;
        }
        let text = fill(text, &values);
        std::fs::write(&to, text).with_context(|| format!("cannot write {}", to.display()))?;
    }
    println!(
        "wrote a {} project in {} ({}): see its README.md (build, test, weft apply, start)",
        values.language,
        args.dir.display(),
        args.style.describe()
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

/// What differs between the languages' projects.
struct Language {
    /// Its name for people: `Rust`.
    name: &'static str,
    /// The README's commands that set up and build, and that test.
    build: String,
    test: String,
    /// The components `weft-app.toml` names.
    decider_wasm: String,
    worker_wasm: String,
    /// The SDK it depends on: a Cargo dependency line, or a package.json version or path.
    dependency: String,
    /// Where the README says the decider's and the worker's code is.
    decider_source: &'static str,
    worker_source: &'static str,
}

/// What fills the templates of a project in `lang` named `name`, depending on the SDK in `sdk`
/// (a checkout, or the SDKs unpacked as one).
fn values(lang: Lang, name: &str, sdk: &Path) -> Values {
    let language = match lang {
        Lang::Rust => rust(name, sdk),
        Lang::Python => python(sdk),
        Lang::Js => js(sdk),
    };
    let cli_name = lang.to_possible_value().expect("no variant is skipped");
    Values {
        name: name.to_owned(),
        language: language.name,
        pairs: vec![
            ("name", name.to_owned()),
            ("crate", name.to_owned()),
            ("lang", cli_name.get_name().to_owned()),
            ("language", language.name.to_owned()),
            ("build", language.build),
            ("test", language.test),
            ("decider_wasm", language.decider_wasm),
            ("worker_wasm", language.worker_wasm),
            ("decider_source", language.decider_source.to_owned()),
            ("worker_source", language.worker_source.to_owned()),
            ("weft_guest", language.dependency.clone()),
            ("js_sdk", language.dependency),
        ],
    }
}

fn rust(name: &str, sdk: &Path) -> Language {
    let crate_file = name.replace('-', "_");
    let dependency = format!(
        "weft-guest = {{ path = {:?} }}",
        sdk.join("guest-sdk").display().to_string()
    );
    Language {
        name: "Rust",
        build: "rustup target add wasm32-wasip2\ncargo build --release --target wasm32-wasip2"
            .to_owned(),
        test: "cargo test".to_owned(),
        decider_wasm: format!("target/wasm32-wasip2/release/{crate_file}_decider.wasm"),
        worker_wasm: format!("target/wasm32-wasip2/release/{crate_file}_worker.wasm"),
        dependency,
        decider_source: "decider/src/lib.rs",
        worker_source: "worker/src/lib.rs",
    }
}

fn python(sdk: &Path) -> Language {
    let sdk = shell_word(&sdk.join("guest-sdk").join("python"));
    Language {
        name: "Python",
        build: format!(
            "python3 -m venv .venv\n.venv/bin/pip install {sdk}\n\
             .venv/bin/weft-componentize --world decider decider.py -o build/decider.wasm\n\
             .venv/bin/weft-componentize --world activity-worker worker.py -o build/worker.wasm"
        ),
        test: ".venv/bin/python -m unittest".to_owned(),
        decider_wasm: "build/decider.wasm".to_owned(),
        worker_wasm: "build/worker.wasm".to_owned(),
        dependency: String::new(),
        decider_source: "decider.py",
        worker_source: "worker.py",
    }
}

fn js(sdk: &Path) -> Language {
    let dependency = format!("file:{}", sdk.join("guest-sdk").join("js").display());
    Language {
        name: "JavaScript",
        build: "npm install\nnpm run build".to_owned(),
        test: "npm test".to_owned(),
        decider_wasm: "build/decider.wasm".to_owned(),
        worker_wasm: "build/worker.wasm".to_owned(),
        dependency,
        decider_source: "decider.js",
        worker_source: "worker.js",
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

    const LANGS: [Lang; 3] = [Lang::Rust, Lang::Python, Lang::Js];
    const STYLES: [Style; 2] = [Style::Workflow, Style::Decider];

    #[test]
    fn every_placeholder_is_filled_in_every_language_and_style() {
        for (lang, style) in LANGS.into_iter().flat_map(|l| STYLES.map(|s| (l, s))) {
            for sdk in [Path::new("/src/weft"), Path::new("/src/my weft")] {
                let values = values(lang, "hello", sdk);
                for (path, text) in files(lang, style) {
                    let filled = fill(text, &values);
                    assert!(!filled.contains("{{"), "{path}: {filled}");
                }
            }
        }
        let python = values(Lang::Python, "hello", Path::new("/src/my weft"));
        let build = &python.pairs.iter().find(|(k, _)| *k == "build").unwrap().1;
        assert!(
            build.contains("pip install '/src/my weft/guest-sdk/python'"),
            "{build}"
        );
    }

    /// The text of the project file `path`, filled in.
    fn filled(lang: Lang, style: Style, path: &str) -> String {
        let (_, text) = files(lang, style)
            .into_iter()
            .find(|(p, _)| *p == path)
            .unwrap();
        fill(text, &values(lang, "hello", Path::new("/src/weft")))
    }

    /// The shell blocks of a README, in order (as the newcomer e2e test runs them).
    fn shell_blocks(readme: &str) -> Vec<String> {
        let mut blocks = Vec::new();
        let mut lines = readme.lines();
        while let Some(line) = lines.next() {
            if line.trim() == "```sh" {
                let body: Vec<_> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
                blocks.push(body.join("\n"));
            }
        }
        blocks
    }

    #[test]
    fn both_styles_write_the_same_files_and_readme_commands() {
        for lang in LANGS {
            let paths = |style| {
                files(lang, style)
                    .into_iter()
                    .map(|(p, _)| p)
                    .collect::<Vec<_>>()
            };
            let (workflow, decider) = (paths(Style::Workflow), paths(Style::Decider));
            let mut unique = workflow.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(
                unique.len(),
                workflow.len(),
                "a file written twice: {workflow:?}"
            );
            assert_eq!(
                workflow, decider,
                "the styles differ in what files they write"
            );
            let workflow = shell_blocks(&filled(lang, Style::Workflow, "README.md"));
            let decider = shell_blocks(&filled(lang, Style::Decider, "README.md"));
            assert_eq!(workflow.len(), 4, "build, test, apply, start: {workflow:?}");
            assert_eq!(
                workflow, decider,
                "the styles' READMEs run different commands"
            );
        }
    }

    #[test]
    fn the_workflow_style_writes_workflows_as_code() {
        let rust = filled(Lang::Rust, Style::Workflow, "decider/src/lib.rs");
        assert!(rust.contains("weft_guest::workflow!(greeting);"), "{rust}");
        assert!(rust.contains("Environment::new(\"Greeting\""), "{rust}");
        let python = filled(Lang::Python, Style::Workflow, "decider.py");
        assert!(
            python.contains("@workflow.workflow\nasync def greeting(wf):"),
            "{python}"
        );
        let js = filled(Lang::Js, Style::Workflow, "decider.js");
        assert!(js.contains("async function greeting(wf)"), "{js}");
        assert!(js.contains("export default workflow(greeting);"), "{js}");
        // Node runs a workflow's async functions only through the SDK's module hooks.
        let package = filled(Lang::Js, Style::Workflow, "package.json");
        let test = "\"test\": \"node --import @weft/guest/register --test\"";
        assert!(package.contains(test), "{package}");
        let decider = filled(Lang::Rust, Style::Decider, "decider/src/lib.rs");
        assert!(
            decider.contains("weft_guest::decider!(decide);"),
            "{decider}"
        );
    }
}
