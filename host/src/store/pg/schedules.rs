//! PostgreSQL's reads and writes of schedules, and of task lists' controls. A write transaction
//! locks the schedule it reads (`FOR UPDATE`), so a node firing it and another pausing it take
//! turns. A change of a list's controls is told to the other nodes, which keep them in memory.

use super::notices;
use super::params::owned;
use super::reads::{Sql as _, big, bytes, from_big};
use super::session::{Link, Mode, Session, Writing};
use crate::model::{ListControl, ListKey, Schedule, TaskKind};
use crate::store::StoreError;
use crate::store::codec::{decode, encode};
use crate::store::seam::{ControlReads, ControlWrites, ScheduleReads, ScheduleWrites};

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

impl<C: Link, M: Mode> ControlReads for Session<C, M> {
    fn list_controls(&self) -> Result<Vec<(ListKey, ListControl)>, StoreError> {
        let rows = self.rows("SELECT domain, kind, list, record FROM list_controls", &[])?;
        rows.iter()
            .map(|row| {
                let kind: i16 = row.get(1);
                let kind = u8::try_from(kind).ok().and_then(TaskKind::from_key);
                let kind = kind.ok_or_else(|| StoreError::Corrupt {
                    table: "list_controls",
                    detail: format!("task kind {:?}", row.get::<_, i16>(1)),
                })?;
                let key = (from_big(row.get(0)), kind, row.get::<_, String>(2));
                Ok((key, decode("list_controls", bytes(row, 3))?))
            })
            .collect()
    }

    fn list_control(
        &self,
        (domain, kind, list): &ListKey,
    ) -> Result<Option<ListControl>, StoreError> {
        let sql = self.pick(
            "SELECT record FROM list_controls WHERE domain = $1 AND kind = $2 AND list = $3",
            "SELECT record FROM list_controls WHERE domain = $1 AND kind = $2 AND list = $3 \
             FOR UPDATE",
        );
        let row = self.row(sql, &[&big(*domain), &(*kind as i16), list])?;
        row.map(|row| decode("list_controls", bytes(&row, 0)))
            .transpose()
    }
}

impl<C: Link> ControlWrites for Session<C, Writing> {
    fn put_list_control(
        &mut self,
        (domain, kind, list): &ListKey,
        control: &ListControl,
        quiet: bool,
    ) -> Result<(), StoreError> {
        let (domain, kind) = (big(*domain), *kind as i16);
        match control.is_empty() {
            true => self.write(
                "DELETE FROM list_controls WHERE domain = $1 AND kind = $2 AND list = $3",
                owned![domain, kind, list.clone()],
            ),
            false => self.write(
                "INSERT INTO list_controls (domain, kind, list, record) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (domain, kind, list) DO UPDATE SET record = excluded.record",
                owned![domain, kind, list.clone(), encode(control)],
            ),
        }
        if !quiet {
            self.mode.notices.insert(notices::CONTROLS.to_owned());
        }
        Ok(())
    }

    fn announce(&mut self, (domain, kind, list): &ListKey) -> Result<(), StoreError> {
        let list = (*domain, *kind as i16, list.clone());
        self.mode.notices.insert(notices::queued(&list));
        Ok(())
    }
}
