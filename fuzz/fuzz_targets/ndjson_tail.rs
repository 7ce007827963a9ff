#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| loopdeck_fuzz::ndjson_tail(data));
