//! The activity worker of the Greeting workflow: `Greet` answers a greeting for its input.

use weft_guest::{ActivityTask, Failure};

weft_guest::activity_worker!(run);

fn run(task: &ActivityTask) -> Result<Option<String>, Failure> {
    match task.activity_type.name.as_str() {
        "Greet" => Ok(Some(greet(task.input.as_deref().unwrap_or("world")))),
        other => Err(Failure::new(format!("unknown activity type {other}"))),
    }
}

fn greet(name: &str) -> String {
    format!("Hello, {name}!")
}

#[cfg(test)]
mod tests {
    #[test]
    fn greets_by_name() {
        assert_eq!(super::greet("Ada"), "Hello, Ada!");
    }
}
