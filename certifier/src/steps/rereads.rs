//! Changes read again: what a write's answer showed must be what later reads show.
use cucumber::then;

use crate::{checks::ensure, exchange::timestamps, world::TenderWorld};

#[then("reading the tender shows the dateModified of the change")]
async fn read_shows_date_modified(w: &mut TenderWorld) -> Result<(), String> {
    let answered = w.tender_instant("/dateModified")?;
    w.refresh_tender().await?;
    let read = w.tender_instant("/dateModified")?;
    ensure(read == answered, || {
        format!(
            "the change was answered with dateModified {}, a later read shows {}",
            timestamps::format(answered),
            timestamps::format(read)
        )
    })
}
