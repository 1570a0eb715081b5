//! The decider of the Greeting workflow: run `Greet`, wait a second, complete with the greeting.
//! Weft calls `decide` with the run's whole history on every decision task; it answers what to
//! do next.

use weft_guest::{Decision, History};

weft_guest::decider!(decide);

fn decide(history: &History) -> Result<Vec<Decision>, String> {
    let Some(greet) = history.activity("greet") else {
        let name = history.input().unwrap_or("world");
        return Ok(vec![Decision::schedule_activity("greet", "Greet", "1").input(name).into()]);
    };
    if greet.is_open() {
        return Ok(vec![]);
    }
    let Some(greeting) = greet.result().filter(|_| greet.is_completed()) else {
        return Ok(vec![Decision::fail("greet did not complete", None)]);
    };
    Ok(match history.timer("pause") {
        None => vec![Decision::start_timer("pause", 1).into()],
        Some(timer) if timer.is_open() => vec![],
        Some(_) => vec![Decision::complete(Some(greeting.to_owned()))],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_guest::testing::HistoryBuilder;

    #[test]
    fn greets_waits_then_completes_with_the_greeting() {
        let mut h = HistoryBuilder::new("Greeting", "1", Some("Ada"));
        let first = h.decide(decide).unwrap();
        assert!(matches!(&first[..], [Decision::ScheduleActivityTask(a)] if a.input.as_deref() == Some("Ada")));
        h.activity_completed("greet", Some("Hello, Ada!"));
        assert!(matches!(&h.decide(decide).unwrap()[..], [Decision::StartTimer(_)]));
        h.timer_fired("pause");
        let done = h.decide(decide).unwrap();
        assert_eq!(done, vec![Decision::complete(Some("Hello, Ada!".into()))]);
    }
}
