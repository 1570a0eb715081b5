//! PostgreSQL's reads and writes of schedules. A write transaction locks the schedule it reads
//! (`FOR UPDATE`), so a node firing it and another pausing it take turns.

use super::params::owned;
use super::reads::{Sql as _, big, bytes};
use super::session::{Link, Mode, Session, Writing};
use crate::model::Schedule;
use crate::store::StoreError;
use crate::store::codec::{decode, encode};
use crate::store::seam::{ScheduleReads, ScheduleWrites};

impl<C: Link, M: Mode> ScheduleReads for Session<C, M> {
    fn schedule(&self, seq: u64) -> Result<Option<Schedule>, StoreError> {
        let sql = self.pick(
            "SELECT record FROM schedules WHERE seq = $1",
            "SELECT record FROM schedules WHERE seq = $1 FOR UPDATE",
        );
        let row = self.row(sql, &[&big(seq)])?;
        row.map(|row| decode("schedules", bytes(&row, 0)))
            .transpose()
    }

    fn schedule_named(&self, domain: u64, id: &str) -> Result<Option<Schedule>, StoreError> {
        let sql = self.pick(
            "SELECT record FROM schedules WHERE domain = $1 AND id = $2",
            "SELECT record FROM schedules WHERE domain = $1 AND id = $2 FOR UPDATE",
        );
        let row = self.row(sql, &[&big(domain), &id])?;
        row.map(|row| decode("schedules", bytes(&row, 0)))
            .transpose()
    }

    fn schedules(
        &self,
        domain: u64,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Schedule>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.rows(
            "SELECT record FROM schedules WHERE domain = $1 AND ($2::text IS NULL OR id > $2) \
             ORDER BY id LIMIT $3",
            &[&big(domain), &after, &limit],
        )?;
        rows.iter()
            .map(|row| decode("schedules", bytes(row, 0)))
            .collect()
    }
}

impl<C: Link> ScheduleWrites for Session<C, Writing> {
    fn put_schedule(&mut self, schedule: &Schedule) -> Result<(), StoreError> {
        self.write(
            "INSERT INTO schedules (seq, domain, id, record) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (seq) DO UPDATE SET record = excluded.record",
            owned![
                big(schedule.seq),
                big(schedule.domain),
                &schedule.id,
                encode(schedule)
            ],
        );
        Ok(())
    }

    fn delete_schedule(&mut self, schedule: &Schedule) -> Result<(), StoreError> {
        self.write(
            "DELETE FROM schedules WHERE seq = $1",
            owned![big(schedule.seq)],
        );
        Ok(())
    }
}
