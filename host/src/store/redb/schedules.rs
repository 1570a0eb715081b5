//! redb's side of the reads and writes of schedules, and of task lists' controls.

use redb::ReadableTable;

use crate::model::{ListControl, ListKey, Schedule, TaskKind};
use crate::store::StoreError;
use crate::store::codec::{decode, encode};
use crate::store::seam::{ControlReads, ControlWrites, ScheduleReads, ScheduleWrites};

use super::access::{Tables, WriteTx};

impl<T: Tables> ScheduleReads for T {
    fn schedule(&self, seq: u64) -> Result<Option<Schedule>, StoreError> {
        let table = self.schedule_table()?;
        let value = table.get(seq)?;
        value.map(|v| decode("schedules", v.value())).transpose()
    }

    fn schedule_named(&self, domain: u64, id: &str) -> Result<Option<Schedule>, StoreError> {
        let seq = self
            .schedule_id_table()?
            .get((domain, id))?
            .map(|v| v.value());
        seq.map_or(Ok(None), |seq| self.schedule(seq))
    }

    fn schedules(
        &self,
        domain: u64,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<Schedule>, StoreError> {
        let ids = self.schedule_id_table()?;
        let range = match after {
            Some(after) => ids.range((domain, after)..(domain + 1, ""))?,
            None => ids.range((domain, "")..(domain + 1, ""))?,
        };
        let mut schedules = Vec::new();
        for entry in range {
            let (key, seq) = entry?;
            if after.is_some_and(|after| key.value().1 == after) {
                continue;
            }
            if schedules.len() == limit {
                break;
            }
            schedules.extend(self.schedule(seq.value())?);
        }
        Ok(schedules)
    }
}

impl ScheduleWrites for WriteTx<'_> {
    fn put_schedule(&mut self, schedule: &Schedule) -> Result<(), StoreError> {
        self.schedules
            .write()?
            .insert(schedule.seq, encode(schedule).as_slice())?;
        self.schedule_ids
            .write()?
            .insert((schedule.domain, schedule.id.as_str()), schedule.seq)?;
        Ok(())
    }

    fn delete_schedule(&mut self, schedule: &Schedule) -> Result<(), StoreError> {
        self.schedules.write()?.remove(schedule.seq)?;
        self.schedule_ids
            .write()?
            .remove((schedule.domain, schedule.id.as_str()))?;
        Ok(())
    }
}

impl<T: Tables> ControlReads for T {
    fn list_controls(&self) -> Result<Vec<(ListKey, ListControl)>, StoreError> {
        let mut controls = Vec::new();
        for entry in self.list_control_table()?.iter()? {
            let (key, value) = entry?;
            let (domain, kind, name) = key.value();
            let kind = TaskKind::from_key(kind).ok_or_else(|| StoreError::Corrupt {
                table: "list_controls",
                detail: format!("task kind {kind}"),
            })?;
            let control = decode("list_controls", value.value())?;
            controls.push(((domain, kind, name.to_owned()), control));
        }
        Ok(controls)
    }

    fn list_control(
        &self,
        (domain, kind, name): &ListKey,
    ) -> Result<Option<ListControl>, StoreError> {
        let table = self.list_control_table()?;
        let value = table.get((*domain, *kind as u8, name.as_str()))?;
        value
            .map(|v| decode("list_controls", v.value()))
            .transpose()
    }
}

impl ControlWrites for WriteTx<'_> {
    fn put_list_control(
        &mut self,
        (domain, kind, name): &ListKey,
        control: &ListControl,
        _quiet: bool,
    ) -> Result<(), StoreError> {
        let key = (*domain, *kind as u8, name.as_str());
        let table = self.list_controls.write()?;
        match control.is_empty() {
            true => table.remove(key).map(drop)?,
            false => table.insert(key, encode(control).as_slice()).map(drop)?,
        }
        Ok(())
    }

    fn announce(&mut self, _key: &ListKey) -> Result<(), StoreError> {
        // One process: the engine offers the list to its own polls.
        Ok(())
    }
}
