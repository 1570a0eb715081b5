//! Schedules (`/v1/domains/{domain}/schedules`): made, listed, described, changed, paused,
//! triggered, backfilled and removed.

use crate::model::routes;
use hyper::Method;
use serde::Serialize;
use serde_json::Value;

use super::{
    Backfill, Client, ClientError, ScheduleDefinition, ScheduleDescription, ScheduleList,
    ScheduleNote, ScheduleOutcome,
};

/// Checks a schedule's definition as the server would, without one: its spec (an interval or
/// cron expressions, the time zone, the bounds) and its action's members, not whether its
/// workflow type is registered; the refusal's message, if it would be refused.
pub fn check_schedule(definition: &ScheduleDefinition) -> Result<(), String> {
    crate::ops::schedules::check_shape(definition)
        .map(drop)
        .map_err(|fault| fault.client_message())
}

impl Client {
    /// Makes schedule `id` in `domain`.
    pub async fn create_schedule(
        &self,
        domain: &str,
        id: &str,
        definition: &ScheduleDefinition,
    ) -> Result<ScheduleDescription, ClientError> {
        let path = routes::fill(routes::SCHEDULE, &[domain, id]);
        self.send_json(Method::POST, path, definition).await
    }

    /// Replaces schedule `id`'s definition.
    pub async fn update_schedule(
        &self,
        domain: &str,
        id: &str,
        definition: &ScheduleDefinition,
    ) -> Result<ScheduleDescription, ClientError> {
        let path = routes::fill(routes::SCHEDULE, &[domain, id]);
        self.send_json(Method::PUT, path, definition).await
    }

    /// Schedule `id` of `domain`, described.
    pub async fn schedule(
        &self,
        domain: &str,
        id: &str,
    ) -> Result<ScheduleDescription, ClientError> {
        let path = routes::fill(routes::SCHEDULE, &[domain, id]);
        self.call(Method::GET, path, None).await
    }

    /// Every schedule of `domain`, in id order.
    pub async fn schedules(&self, domain: &str) -> Result<Vec<ScheduleDescription>, ClientError> {
        let mut all = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut path = format!("{}?limit=1000", routes::fill(routes::SCHEDULES, &[domain]));
            if let Some(token) = &token {
                let query = serde_urlencoded::to_string([("nextPageToken", token)])
                    .map_err(|e| self.protocol(e))?;
                path = format!("{path}&{query}");
            }
            let page: ScheduleList = self.call(Method::GET, path, None).await?;
            all.extend(page.schedules);
            match page.next_page_token {
                Some(next) => token = Some(next),
                None => return Ok(all),
            }
        }
    }

    /// Removes schedule `id`; the runs it started run on.
    pub async fn delete_schedule(&self, domain: &str, id: &str) -> Result<(), ClientError> {
        let path = routes::fill(routes::SCHEDULE, &[domain, id]);
        let _: Value = self.call(Method::DELETE, path, None).await?;
        Ok(())
    }

    /// Pauses schedule `id` (or, with `paused` false, unpauses it), saying why.
    pub async fn pause_schedule(
        &self,
        domain: &str,
        id: &str,
        paused: bool,
        note: Option<String>,
    ) -> Result<ScheduleDescription, ClientError> {
        let route = match paused {
            true => routes::SCHEDULE_PAUSE,
            false => routes::SCHEDULE_UNPAUSE,
        };
        let path = routes::fill(route, &[domain, id]);
        self.send_json(Method::POST, path, &ScheduleNote { note })
            .await
    }

    /// Takes schedule `id`'s action now, as its overlap policy says.
    pub async fn trigger_schedule(
        &self,
        domain: &str,
        id: &str,
    ) -> Result<ScheduleOutcome, ClientError> {
        let path = routes::fill(routes::SCHEDULE_TRIGGER, &[domain, id]);
        self.send_json(Method::POST, path, &serde_json::json!({}))
            .await
    }

    /// Acts on schedule `id`'s nominal times in `range`.
    pub async fn backfill_schedule(
        &self,
        domain: &str,
        id: &str,
        range: &Backfill,
    ) -> Result<ScheduleOutcome, ClientError> {
        let path = routes::fill(routes::SCHEDULE_BACKFILL, &[domain, id]);
        self.send_json(Method::POST, path, range).await
    }

    /// Sends `body` as JSON with `method path`, and reads the answer.
    async fn send_json<B: Serialize, T: serde::de::DeserializeOwned>(
        &self,
        method: Method,
        path: String,
        body: &B,
    ) -> Result<T, ClientError> {
        let body = serde_json::to_vec(body).map_err(|e| self.protocol(e))?;
        self.call(method, path, Some(("application/json", body)))
            .await
    }
}
