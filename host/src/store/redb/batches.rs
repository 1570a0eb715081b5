//! redb's side of the reads and writes of batch jobs.

use redb::ReadableTable;

use crate::model::BatchRecord;
use crate::store::StoreError;
use crate::store::codec::{decode, encode};
use crate::store::seam::{BatchReads, BatchWrites};

use super::access::{Tables, WriteTx};

impl<T: Tables> BatchReads for T {
    fn batch(&self, seq: u64) -> Result<Option<BatchRecord>, StoreError> {
        let table = self.batch_table()?;
        let value = table.get(seq)?;
        value.map(|v| decode("batches", v.value())).transpose()
    }

    fn batches(&self, domain: u64, limit: usize) -> Result<Vec<BatchRecord>, StoreError> {
        let index = self.domain_batch_table()?;
        let mut batches = Vec::new();
        for entry in index
            .range((domain, 0)..=(domain, u64::MAX))?
            .rev()
            .take(limit)
        {
            let seq = entry?.0.value().1;
            batches.extend(self.batch(seq)?);
        }
        Ok(batches)
    }
}

impl BatchWrites for WriteTx<'_> {
    fn put_batch(&mut self, batch: &BatchRecord) -> Result<(), StoreError> {
        self.batches
            .write()?
            .insert(batch.seq, encode(batch).as_slice())?;
        self.domain_batches
            .write()?
            .insert((batch.domain, batch.seq), ())?;
        Ok(())
    }

    fn delete_batch(&mut self, batch: &BatchRecord) -> Result<(), StoreError> {
        self.batches.write()?.remove(batch.seq)?;
        (self.domain_batches.write()?).remove((batch.domain, batch.seq))?;
        Ok(())
    }
}
