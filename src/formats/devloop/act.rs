//! The decisions this format allows (`loopdeck act`).

use std::path::Path;

use crate::formats::act::not_for;
use crate::model::{Format, Request};
use crate::store::txn::{ActError, Outcome, WriteOptions};

/// Make `req` on the project in `dir`.
pub fn act(dir: &Path, req: &Request, opts: &WriteOptions) -> Result<Outcome, ActError> {
    let _ = (dir, opts);
    Err(not_for(Format::Devloop, &req.verb))
}
