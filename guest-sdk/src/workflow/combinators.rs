//! Awaiting several things at once, deterministically: the code runs once per decision task,
//! after all the events that task saw, so of outcomes seen by different tasks the earlier wins,
//! and of outcomes seen by one task the future given first.

use std::future::{Future, IntoFuture, poll_fn};
use std::pin::pin;
use std::task::Poll;

/// One of two outcomes: which of [`select`]'s futures finished first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Either<A, B> {
    /// The first future finished first.
    Left(A),
    /// The second future finished first.
    Right(B),
}

/// Both outcomes, once both are ready.
pub async fn join<A: IntoFuture, B: IntoFuture>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (pin!(a.into_future()), pin!(b.into_future()));
    let (mut left, mut right) = (None, None);
    poll_fn(|cx| {
        if left.is_none()
            && let Poll::Ready(value) = a.as_mut().poll(cx)
        {
            left = Some(value);
        }
        if right.is_none()
            && let Poll::Ready(value) = b.as_mut().poll(cx)
        {
            right = Some(value);
        }
        match (left.take(), right.take()) {
            (Some(l), Some(r)) => Poll::Ready((l, r)),
            (l, r) => {
                (left, right) = (l, r);
                Poll::Pending
            }
        }
    })
    .await
}

/// Every outcome, in the order given, once all are ready.
pub async fn join_all<F: IntoFuture>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut futures: Vec<_> = futures
        .into_iter()
        .map(|f| Box::pin(f.into_future()))
        .collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    poll_fn(|cx| {
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none()
                && let Poll::Ready(value) = future.as_mut().poll(cx)
            {
                *output = Some(value);
            }
        }
        match outputs.iter().all(Option::is_some) {
            true => Poll::Ready(outputs.iter_mut().map(|o| o.take().expect("all")).collect()),
            false => Poll::Pending,
        }
    })
    .await
}

/// The outcome of whichever of `a` and `b` is ready first (`a` if both are); the other is
/// dropped: a timer or activity it started stays open unless cancelled.
pub async fn select<A: IntoFuture, B: IntoFuture>(a: A, b: B) -> Either<A::Output, B::Output> {
    let (mut a, mut b) = (pin!(a.into_future()), pin!(b.into_future()));
    poll_fn(|cx| {
        if let Poll::Ready(value) = a.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(value));
        }
        b.as_mut().poll(cx).map(Either::Right)
    })
    .await
}

/// The index and outcome of the first of `futures` that is ready (the earliest given, if
/// several are at once).
pub async fn select_all<F: IntoFuture>(futures: impl IntoIterator<Item = F>) -> (usize, F::Output) {
    let mut futures: Vec<_> = futures
        .into_iter()
        .map(|f| Box::pin(f.into_future()))
        .collect();
    poll_fn(|cx| {
        for (index, future) in futures.iter_mut().enumerate() {
            if let Poll::Ready(value) = future.as_mut().poll(cx) {
                return Poll::Ready((index, value));
            }
        }
        Poll::Pending
    })
    .await
}

/// Ready once `condition` holds: the workflow's own state, changed by its other awaits (a flag
/// set when a signal came, a counter of finished activities). The condition is checked as the
/// replay applies each event, so it becomes true at the same point on every replay.
pub async fn wait_until(mut condition: impl FnMut() -> bool) {
    poll_fn(|_| match condition() {
        true => Poll::Ready(()),
        false => Poll::Pending,
    })
    .await
}
