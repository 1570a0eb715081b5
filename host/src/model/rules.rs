//! The input rules that the model states only in prose (spec §3): names, durations, priorities,
//! retention and tag characters. Each check adds to a [`Violations`] in AWS's message format.

use serde_json::{Map, Value};

use crate::fault::Violations;

use super::ResourceTag;
use super::values::{MAX_DURATION_SECS, Priority, Timeout};

/// The start-to-close timeouts a Lambda function task may have, in seconds (spec §6.13).
const LAMBDA_TIMEOUT_SECS: std::ops::RangeInclusive<u32> = 1..=900;

/// The start-to-close timeout of a Lambda function task scheduled without one (spec §6.13).
pub(crate) const LAMBDA_DEFAULT_TIMEOUT: u32 = 900;

/// The longest retention period a domain may have, in days.
const MAX_RETENTION_DAYS: u32 = 90;

/// Whether a duration member accepts `NONE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoneAllowed {
    Yes,
    No,
}

/// A rule the model states only in prose (spec §3, §6) on one member of a structure: checked
/// on the raw JSON, before the structure is read typed, so that reading it cannot fail on one.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rule {
    /// A task list, whose name follows the name rule.
    TaskList,
    /// A task priority.
    Priority,
    /// An optional duration; `""` is absent (the model lets SDKs send empty durations).
    Duration(NoneAllowed),
    /// A required duration, never `NONE`.
    RequiredDuration,
    /// A Lambda function task's optional start-to-close timeout: 1 to 900 seconds; `""` is
    /// absent, so the default applies (spec §6.13).
    LambdaTimeout,
}

impl Rule {
    /// Checks `member` of `members`, the structure at `path` (`""` for the input itself),
    /// and drops it if it is an empty optional duration.
    pub(crate) fn apply(
        self,
        members: &mut Map<String, Value>,
        member: &str,
        path: &str,
        v: &mut Violations,
    ) {
        let at = if path.is_empty() {
            member.to_owned()
        } else {
            format!("{path}.{member}")
        };
        if matches!(self, Rule::Duration(_) | Rule::LambdaTimeout)
            && members.get(member).and_then(Value::as_str) == Some("")
        {
            members.remove(member);
            return;
        }
        let text = members.get(member).and_then(Value::as_str);
        match self {
            Rule::TaskList => {
                let name = members.get(member).and_then(|l| l.get("name"));
                if let Some(name) = name.and_then(Value::as_str) {
                    v.name(&format!("{at}.name"), name);
                }
            }
            Rule::Priority => {
                v.priority(&at, text);
            }
            Rule::Duration(none) => {
                v.duration(&at, text, none);
            }
            Rule::RequiredDuration => {
                v.duration(&at, text, NoneAllowed::No);
            }
            Rule::LambdaTimeout => v.lambda_timeout(&at, text),
        }
    }
}

/// The constraint AWS quotes for tag keys and values.
const TAG_PATTERN: &str =
    "Member must satisfy regular expression pattern: ^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$";

/// What is wrong with `value` as a name under the model's NAME-RULE with TRIM: a `:`, `/`, `|`
/// or control character, leading or trailing whitespace, or the literal `arn`.
///
/// AWS enforces the rule on the names of resources: domains, types and their versions, task
/// lists (spec §3; a type name with `::` is refused, quoted from AWS in 2014). It does not on
/// the ids deciders and starters choose, though the model's prose says so for them too:
/// recorded AWS traffic (2015, 2016) starts timers such as `delayed_task-0-0:t` and children
/// such as `fakeuuid-0-:task-0-0`, and AWS's own Flow Framework for Java names children
/// `<runId>:<n>`, run ids holding `/` and `+`. So workflow, activity, timer and Lambda ids
/// take any characters within their lengths but control characters, which the schema walk
/// refuses in every name and id of every input (`api/schema.rs`).
pub(crate) fn name_problem(value: &str) -> Option<String> {
    if value == "arn" {
        Some("Member must not be the literal string 'arn'".to_owned())
    } else if value.starts_with(char::is_whitespace) || value.ends_with(char::is_whitespace) {
        Some("Member must not start or end with whitespace".to_owned())
    } else if let Some(c) = value.chars().find(|&c| matches!(c, ':' | '/' | '|')) {
        Some(format!("Member must not contain '{c}'"))
    } else if value.chars().any(is_control) {
        Some(CONTROL_CHARACTERS.to_owned())
    } else {
        None
    }
}

impl Violations {
    /// The NAME-RULE for the resource name at `path` (see [`name_problem`]).
    pub(crate) fn name(&mut self, path: &str, value: &str) {
        if let Some(problem) = name_problem(value) {
            self.add(path, Some(value), problem);
        }
    }

    /// A duration member, if present; answers it parsed, if it is valid.
    pub(crate) fn duration(
        &mut self,
        path: &str,
        value: Option<&str>,
        none: NoneAllowed,
    ) -> Option<Timeout> {
        let value = value?;
        match Timeout::parse(value) {
            Some(Timeout::None) if none == NoneAllowed::No => {
                self.add(path, Some(value), "Member must not be NONE");
                None
            }
            Some(timeout) => Some(timeout),
            None => {
                self.add(
                    path,
                    Some(value),
                    format_args!(
                        "Member must be a whole number of seconds from 0 to {MAX_DURATION_SECS}{}",
                        if none == NoneAllowed::Yes {
                            ", or NONE"
                        } else {
                            ""
                        }
                    ),
                );
                None
            }
        }
    }

    /// A Lambda function task's start-to-close timeout, if present: whole seconds from 1 to 900,
    /// never `NONE`.
    pub(crate) fn lambda_timeout(&mut self, path: &str, value: Option<&str>) {
        let Some(value) = value else { return };
        let valid = value.bytes().all(|b| b.is_ascii_digit())
            && value
                .parse::<u32>()
                .is_ok_and(|secs| LAMBDA_TIMEOUT_SECS.contains(&secs));
        if !valid {
            self.add(
                path,
                Some(value),
                format_args!(
                    "Member must be a whole number of seconds from {} to {}",
                    LAMBDA_TIMEOUT_SECS.start(),
                    LAMBDA_TIMEOUT_SECS.end()
                ),
            );
        }
    }

    /// A task priority, if present: a signed 32-bit integer in a string. Answers it parsed, if
    /// it is valid.
    pub(crate) fn priority(&mut self, path: &str, value: Option<&str>) -> Option<Priority> {
        let value = value?;
        let parsed = Priority::parse(value);
        if parsed.is_none() {
            self.add(
                path,
                Some(value),
                format_args!(
                    "Member must be an integer from {} to {}",
                    i32::MIN,
                    i32::MAX
                ),
            );
        }
        parsed
    }

    /// A domain's retention period: `NONE`, or 0 to 90 days.
    pub(crate) fn retention(&mut self, path: &str, value: &str) {
        let valid = value == "NONE"
            || (value.bytes().all(|b| b.is_ascii_digit())
                && value
                    .parse::<u32>()
                    .is_ok_and(|days| days <= MAX_RETENTION_DAYS));
        if !valid {
            self.add(
                path,
                Some(value),
                format_args!(
                    "Member must be NONE or a number of days from 0 to {MAX_RETENTION_DAYS}"
                ),
            );
        }
    }

    /// TAG-CHARS on each key and value of a list of resource tags.
    pub(crate) fn resource_tags(&mut self, path: &str, tags: &[ResourceTag]) {
        for (i, tag) in tags.iter().enumerate() {
            if !tag.key.chars().all(is_tag_char) {
                self.add(
                    &format!("{path}.{}.member.key", i + 1),
                    Some(&tag.key),
                    TAG_PATTERN,
                );
            }
            if let Some(value) = tag.value.as_deref().filter(|v| !v.chars().all(is_tag_char)) {
                self.add(
                    &format!("{path}.{}.member.value", i + 1),
                    Some(value),
                    TAG_PATTERN,
                );
            }
        }
    }
}

/// The constraint quoted for a name or id that holds a control character.
pub(crate) const CONTROL_CHARACTERS: &str =
    "Member must not contain control characters (\\u0000-\\u001f, \\u007f-\\u009f)";

/// A control character as SWF's rules count them: `\u0000-\u001f` and `\u007f-\u009f`.
pub(crate) fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

/// Unicode letters, numbers, space separators, and `_ . : / = + - @`.
fn is_tag_char(c: char) -> bool {
    c.is_alphabetic()
        || c.is_numeric()
        || (c.is_whitespace() && !c.is_control())
        || matches!(c, '_' | '.' | ':' | '/' | '=' | '+' | '-' | '@')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violations(f: impl FnOnce(&mut Violations)) -> usize {
        let mut v = Violations::default();
        f(&mut v);
        match v.finish() {
            Ok(()) => 0,
            Err(e) => e.to_string().split("; ").count(),
        }
    }

    #[test]
    fn names() {
        for ok in ["d", "my-domain_1.x", "名前", "a b"] {
            assert_eq!(violations(|v| v.name("name", ok)), 0, "{ok}");
        }
        for bad in [
            "arn", "a:b", "a/b", "a|b", " a", "a ", "a\tb", "a\u{85}b", "\n",
        ] {
            assert_eq!(violations(|v| v.name("name", bad)), 1, "{bad:?}");
        }
        // Only the literal string is reserved.
        assert_eq!(violations(|v| v.name("name", "arn1")), 0);
    }

    #[test]
    fn durations() {
        assert_eq!(Timeout::parse("NONE"), Some(Timeout::None));
        assert_eq!(Timeout::parse("0"), Some(Timeout::Seconds(0)));
        assert_eq!(
            Timeout::parse("31536000"),
            Some(Timeout::Seconds(31_536_000))
        );
        for bad in ["31536001", "-1", "1.5", "none", "", " 5", "+5"] {
            assert_eq!(Timeout::parse(bad), None, "{bad:?}");
        }
        assert_eq!(
            violations(|v| {
                v.duration("t", Some("NONE"), NoneAllowed::Yes);
            }),
            0
        );
        assert_eq!(
            violations(|v| {
                v.duration("t", Some("NONE"), NoneAllowed::No);
            }),
            1
        );
        assert_eq!(
            violations(|v| {
                v.duration("t", None, NoneAllowed::No);
            }),
            0
        );
    }

    #[test]
    fn lambda_timeouts() {
        for ok in ["1", "60", "900"] {
            assert_eq!(violations(|v| v.lambda_timeout("t", Some(ok))), 0, "{ok}");
        }
        for bad in ["0", "901", "NONE", "-1", "1.5", "", "+5", "99999999999"] {
            assert_eq!(
                violations(|v| v.lambda_timeout("t", Some(bad))),
                1,
                "{bad:?}"
            );
        }
        assert_eq!(violations(|v| v.lambda_timeout("t", None)), 0);
        assert!(LAMBDA_TIMEOUT_SECS.contains(&LAMBDA_DEFAULT_TIMEOUT));
    }

    #[test]
    fn priorities_and_retention() {
        for ok in ["0", "-20", "2147483647", "-2147483648"] {
            let valid = violations(|v| {
                v.priority("p", Some(ok));
            });
            assert_eq!(valid, 0, "{ok}");
        }
        for bad in ["2147483648", "high", "", "1.0"] {
            let invalid = violations(|v| {
                v.priority("p", Some(bad));
            });
            assert_eq!(invalid, 1, "{bad:?}");
        }
        for ok in ["NONE", "0", "1", "90"] {
            assert_eq!(violations(|v| v.retention("r", ok)), 0, "{ok}");
        }
        for bad in ["91", "-1", "none", "1d", "99999999"] {
            assert_eq!(violations(|v| v.retention("r", bad)), 1, "{bad}");
        }
    }

    #[test]
    fn tag_characters() {
        let tag = |k: &str, v: Option<&str>| ResourceTag {
            key: k.into(),
            value: v.map(Into::into),
        };
        let ok = [
            tag("team", Some("a b_c.d:e/f=g+h-i@j")),
            tag("Ünïcödé 42", None),
        ];
        assert_eq!(violations(|v| v.resource_tags("tags", &ok)), 0);
        let bad = [tag("a#b", Some("ok")), tag("ok", Some("new\nline"))];
        assert_eq!(violations(|v| v.resource_tags("tags", &bad)), 2);
    }
}
