//! PostgreSQL's reads and writes of batch jobs. A write transaction locks the job it reads
//! (`FOR UPDATE`), so a node taking its step and another canceling it take turns.

use super::params::owned;
use super::reads::{Sql as _, big, bytes};
use super::session::{Link, Mode, Session, Writing};
use crate::model::BatchRecord;
use crate::store::StoreError;
use crate::store::codec::{decode, encode};
use crate::store::seam::{BatchReads, BatchWrites};

impl<C: Link, M: Mode> BatchReads for Session<C, M> {
    fn batch(&self, seq: u64) -> Result<Option<BatchRecord>, StoreError> {
        let sql = self.pick(
            "SELECT record FROM batches WHERE seq = $1",
            "SELECT record FROM batches WHERE seq = $1 FOR UPDATE",
        );
        let row = self.row(sql, &[&big(seq)])?;
        row.map(|row| decode("batches", bytes(&row, 0))).transpose()
    }

    fn batches(&self, domain: u64, limit: usize) -> Result<Vec<BatchRecord>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self.rows(
            "SELECT record FROM batches WHERE domain = $1 ORDER BY seq DESC LIMIT $2",
            &[&big(domain), &limit],
        )?;
        rows.iter()
            .map(|row| decode("batches", bytes(row, 0)))
            .collect()
    }
}

impl<C: Link> BatchWrites for Session<C, Writing> {
    fn put_batch(&mut self, batch: &BatchRecord) -> Result<(), StoreError> {
        self.write(
            "INSERT INTO batches (seq, domain, record) VALUES ($1, $2, $3) \
             ON CONFLICT (seq) DO UPDATE SET record = excluded.record",
            owned![big(batch.seq), big(batch.domain), encode(batch)],
        );
        Ok(())
    }

    fn delete_batch(&mut self, batch: &BatchRecord) -> Result<(), StoreError> {
        self.write("DELETE FROM batches WHERE seq = $1", owned![big(batch.seq)]);
        Ok(())
    }
}
