//! NDJSON files: reading the tail from the end, scanning, appending.
//! (Being written: see issue 3.)
