#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gridsim::fuzzing::experiment_toml(data));
