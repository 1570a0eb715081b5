//! The Greeting workflow, as ordinary async code: run `Greet`, wait a second, complete with the
//! greeting. Weft replays it over the run's history on every decision task: each awaited
//! activity or timer is a decision the first time the code reaches it, and is answered from the
//! history on every replay after.

use std::time::Duration;

use weft_guest::workflow::{Error, Workflow};

weft_guest::workflow!(greeting);

async fn greeting(wf: Workflow) -> Result<Option<String>, Error> {
    let name = wf.input().unwrap_or_else(|| "world".into());
    // A failed Greet is an `Err` here, and `?` fails the run with its reason.
    let greeting = wf.activity("Greet", "1").input(name).await?;
    wf.sleep(Duration::from_secs(1)).await?;
    Ok(greeting)
}

/// The whole workflow, run natively by `cargo test` in the SDK's testing `Environment`: `Greet`
/// answered by a function, and time skipped rather than waited.
#[cfg(test)]
mod tests {
    use std::time::Duration;

    use weft_guest::Failure;
    use weft_guest::testing::Environment;
    use weft_guest::workflow;

    use super::greeting;

    fn greeting_for_ada() -> Environment {
        Environment::new("Greeting", "1", Some("Ada"))
    }

    /// What the worker answers.
    fn greet(name: Option<&str>) -> Result<Option<String>, Failure> {
        Ok(Some(format!("Hello, {}!", name.unwrap_or("world"))))
    }

    #[test]
    fn greets_waits_a_second_then_completes_with_the_greeting() {
        let run = greeting_for_ada()
            .activity("Greet", greet)
            .run(|history| workflow::run(history, greeting));
        assert_eq!(run.result(), Some("Hello, Ada!"));
        let (started, fired) = (run.events("TimerStarted"), run.events("TimerFired"));
        assert_eq!((started.len(), fired.len()), (1, 1), "one timer, fired");
        let waited = fired[0].event_timestamp - started[0].event_timestamp;
        assert!(waited >= 1.0, "the timer fired after {waited} s");
        assert!(run.elapsed() >= Duration::from_secs(1));
    }

    #[test]
    fn a_failed_greet_fails_the_run_without_waiting() {
        let run = greeting_for_ada()
            .activity("Greet", |_| Err(Failure::new("no greeting today")))
            .run(|history| workflow::run(history, greeting));
        let (reason, _details) = run.failure().expect("the run failed");
        assert_eq!(reason, Some("no greeting today"));
        assert!(run.events("TimerStarted").is_empty(), "no timer started");
    }

    #[test]
    fn a_termination_while_greet_runs_ends_the_run_ungreeted() {
        let hour = Duration::from_secs(3600);
        let run = greeting_for_ada()
            .activity_taking("Greet", hour, greet)
            .terminate(Duration::from_secs(60), Some("enough"))
            .run(|history| workflow::run(history, greeting));
        assert!(run.terminated(), "{:?}", run.close);
        assert_eq!(run.result(), None);
        assert!(run.events("ActivityTaskCompleted").is_empty());
        assert!(run.elapsed() < hour, "{:?}", run.elapsed());
    }
}
