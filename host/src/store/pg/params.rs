//! Parameters a write keeps until it is sent: the writer's writes wait for its next read or its
//! commit (`session.rs`), so they own their values.

use tokio_postgres::types::ToSql;

/// A statement's parameters as values the statement owns, for a write sent later.
macro_rules! owned {
    ($($value:expr),* $(,)?) => {
        vec![$($crate::store::pg::params::IntoParam::into_param($value)),*]
    };
}

pub(super) use owned;

/// A value a deferred write keeps as its parameter: owned values move in, borrowed ones are
/// copied.
pub(super) trait IntoParam {
    /// The value, boxed for the statement.
    fn into_param(self) -> Box<dyn ToSql + Sync + Send>;
}

macro_rules! moved {
    ($($ty:ty),*) => {$(
        impl IntoParam for $ty {
            fn into_param(self) -> Box<dyn ToSql + Sync + Send> {
                Box::new(self)
            }
        }
    )*};
}

moved!(i16, i64, String, Vec<u8>, Vec<i16>, Vec<i64>, Vec<Vec<u8>>);

impl IntoParam for &str {
    fn into_param(self) -> Box<dyn ToSql + Sync + Send> {
        Box::new(self.to_owned())
    }
}

impl IntoParam for &String {
    fn into_param(self) -> Box<dyn ToSql + Sync + Send> {
        Box::new(self.clone())
    }
}

impl IntoParam for &[u8] {
    fn into_param(self) -> Box<dyn ToSql + Sync + Send> {
        Box::new(self.to_vec())
    }
}
