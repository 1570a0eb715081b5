//! Typed access to runs' open items ([`Item`]): the backend stores them as JSON under
//! (run, kind, key), and these traits read and write them as their model types, keeping the
//! run's counts ([`OpenItems`](crate::model::OpenItems)) with them.

use crate::model::{Item, Run};

use super::StoreError;
use super::codec::decode;
use super::seam::{RunReads, RunWrites};

/// Typed reads of runs' open items.
pub(crate) trait ItemReads: RunReads {
    /// The open item `key` of kind `T` of run `seq`.
    fn open_item<T: Item>(&self, seq: u64, key: u64) -> Result<Option<T>, StoreError> {
        self.item(seq, T::KIND, key)?
            .map(|json| decode("items", &json))
            .transpose()
    }

    /// The open item of kind `T` of run `seq` named `name`, with its key.
    fn named_item<T: Item>(&self, seq: u64, name: &str) -> Result<Option<(u64, T)>, StoreError> {
        let Some(key) = self.item_named(seq, T::KIND, name)? else {
            return Ok(None);
        };
        Ok(self.open_item(seq, key)?.map(|item| (key, item)))
    }

    /// The keys of the open items of kind `T` of run `seq`, in order.
    fn open_keys<T: Item>(&self, seq: u64) -> Result<Vec<u64>, StoreError> {
        self.item_keys(seq, T::KIND)
    }
}

impl<R: RunReads + ?Sized> ItemReads for R {}

/// Typed writes of runs' open items; the run's counts move with them (saved with the run).
pub(crate) trait ItemWrites: RunWrites + RunReads {
    /// Opens `item` in `run` under `key`.
    fn add_item<T: Item>(&mut self, run: &mut Run, key: u64, item: &T) -> Result<(), StoreError> {
        *T::count(&mut run.open) += 1;
        self.update_item(run, key, item)
    }

    /// Stores the changed open item `key` of `run`.
    fn update_item<T: Item>(&mut self, run: &Run, key: u64, item: &T) -> Result<(), StoreError> {
        let json = serde_json::to_vec(item).map_err(StoreError::broken)?;
        self.put_item(run.seq, T::KIND, key, item.name(), &json)
    }

    /// Closes the open item `key` of `run`, answering it; `None` if it is not open.
    fn take_item<T: Item>(&mut self, run: &mut Run, key: u64) -> Result<Option<T>, StoreError> {
        let Some(item) = self.open_item::<T>(run.seq, key)? else {
            return Ok(None);
        };
        self.remove_item(run.seq, T::KIND, key, item.name())?;
        let count = T::count(&mut run.open);
        *count = count.saturating_sub(1);
        Ok(Some(item))
    }
}

impl<W: RunWrites + RunReads + ?Sized> ItemWrites for W {}
